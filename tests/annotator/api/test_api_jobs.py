"""REST API: import and export jobs (start, progress, cancel, download) through the corpus services."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.models import CorpusJob, Pair, Project
from tests import make
from tests.make import api_client, mrpc_file

pytestmark = pytest.mark.django_db

ROWS = (
    (
        "1",
        "702876",
        "702977",
        "Amrozi accused his brother of distorting evidence .",
        "Amrozi called his brother a liar .",
    ),
    (
        "0",
        "2108705",
        "2108831",
        "Yucaipa owned Dominick 's before selling the chain .",
        "Yucaipa bought Dominick 's in 1995 .",
    ),
)


@pytest.fixture
def world(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return make.two_projects()


@pytest.fixture
def in_process_tasks():
    """Run Celery tasks in the test process (also when REDIS_URL is set and no worker runs)."""
    from celery import current_app

    before = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = before


def _upload(name: str = "msr_paraphrase_train.txt") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, mrpc_file(*ROWS), content_type="text/plain")


def test_admin_imports_a_corpus_into_a_new_project(world):
    body = {"project_name": "MRPC sample", "format": "mrpc", "files": [_upload()]}
    response = api_client(world.admin).post("/api/jobs/import/", body, format="multipart")
    assert response.status_code == 201, response.json()
    job = response.json()
    assert job["status"] == "succeeded" and job["kind"] == "import"
    project = Project.objects.get(name="MRPC sample")
    assert job["project"] == project.pk and Pair.objects.filter(project=project).count() == 2
    assert api_client(world.admin).get(f"/api/jobs/{job['id']}/").json()["progress"] == 2


def test_lead_imports_into_own_project_only(world):
    body = {"project": world.project.pk, "format": "mrpc", "files": [_upload()]}
    assert api_client(world.lead).post("/api/jobs/import/", body, format="multipart").status_code == 201
    assert world.project.pairs.count() == 4
    other = {"project": world.other_project.pk, "format": "mrpc", "files": [_upload()]}
    assert api_client(world.lead).post("/api/jobs/import/", other, format="multipart").status_code == 404
    assert api_client(world.anna).post("/api/jobs/import/", body, format="multipart").status_code == 403
    new = {"project_name": "Mine", "format": "mrpc", "files": [_upload()]}
    assert api_client(world.lead).post("/api/jobs/import/", new, format="multipart").status_code == 403


def test_import_form_errors_are_400_by_field(world):
    client = api_client(world.admin)
    no_files = client.post("/api/jobs/import/", {"project_name": "X", "format": "mrpc"}, format="multipart")
    assert no_files.status_code == 400 and "files" in no_files.json()
    existing = {"project_name": world.project.name, "format": "mrpc", "files": [_upload()]}
    taken = client.post("/api/jobs/import/", existing, format="multipart")
    assert taken.status_code == 400 and "exists" in taken.json()["project_name"][0]
    bad_format = {"project": world.project.pk, "format": "docx", "files": [_upload()]}
    assert "format" in client.post("/api/jobs/import/", bad_format, format="multipart").json()


def test_broken_file_gives_a_failed_job_with_the_report(world):
    broken = SimpleUploadedFile("msr_paraphrase_train.txt", b"not,a,tsv,file,at all\n")
    body = {"project": world.project.pk, "format": "mrpc", "files": [broken]}
    job = api_client(world.lead).post("/api/jobs/import/", body, format="multipart").json()
    assert job["status"] == "failed" and job["report"]["problems"]
    assert world.project.pairs.count() == 2  # all or nothing


def test_export_job_and_download(world, in_process_tasks, django_capture_on_commit_callbacks):
    client = api_client(world.lead)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/jobs/export/", {"project": world.project.pk, "format": "native"}, format="json"
        )
    assert response.status_code == 201, response.json()
    job = client.get(f"/api/jobs/{response.json()['id']}/").json()
    assert job["status"] == "succeeded"
    download = client.get(f"/api/jobs/{job['id']}/download/")
    assert download.status_code == 200 and b"p1" in b"".join(download.streaming_content)
    assert api_client(world.anna).get(f"/api/jobs/{job['id']}/download/").status_code == 404
    bad = client.post("/api/jobs/export/", {"project": world.project.pk, "format": "etpc"}, format="json")
    assert bad.status_code == 400 and "annotator" in bad.json()


def test_cancel_a_queued_job(world):
    job = CorpusJob.objects.create(kind="import", format="mrpc", project=world.project, created_by=world.lead)
    assert api_client(world.anna).post(f"/api/jobs/{job.pk}/cancel/").status_code == 404
    response = api_client(world.lead).post(f"/api/jobs/{job.pk}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"


def test_jobs_are_visible_to_their_creator_and_the_projects_leads(world):
    mine = CorpusJob.objects.create(
        kind="import", format="mrpc", project=world.project, created_by=world.anna
    )
    CorpusJob.objects.create(
        kind="export", format="native", project=world.other_project, created_by=world.other_lead
    )
    assert [j["id"] for j in api_client(world.anna).get("/api/jobs/").json()["results"]] == [mine.pk]
    lead = api_client(world.lead).get(f"/api/jobs/?project={world.project.pk}&kind=import").json()
    assert [j["id"] for j in lead["results"]] == [mine.pk]
    assert api_client(world.ben).get(f"/api/jobs/{mine.pk}/").status_code == 404
    assert api_client(world.admin).get("/api/jobs/").json()["count"] == 2
