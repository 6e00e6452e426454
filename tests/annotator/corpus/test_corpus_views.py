"""The import/export pages: who may use them, uploads and exports as jobs, progress, cancel, downloads."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotator import tasks
from annotator.corpus import jobs as corpus_jobs
from annotator.models import CorpusJob, Pair, Project
from annotator.projects import services as project_setup
from tests import make
from tests.make import TWO_ROWS, counts, logged_in

# export jobs run as Celery tasks: in-process here, even when REDIS_URL points at a broker
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


@pytest.fixture
def world(settings: Any, tmp_path: Any) -> dict[str, Any]:
    settings.MEDIA_ROOT = tmp_path
    cache.clear()  # progress and cancel flags live in the cache, keyed by job id
    cast = make.cast()
    project = make.project_with_pairs("P", n_pairs=1, lead=cast.lead, annotators=(cast.anna,))
    project_setup.create_project(cast.other_lead, name="Other")
    return {
        "lead": cast.lead,
        "anna": cast.anna,
        "other": cast.other_lead,
        "admin": cast.admin,
        "project": project,
    }


def jobs_url(project: Project) -> str:
    return reverse("annotator:corpus-jobs", args=[project.pk])


@pytest.mark.parametrize(
    ("who", "status"), [(None, 302), ("anna", 403), ("other", 404), ("lead", 200), ("admin", 200)]
)
def test_only_leads_of_the_project_and_admins_see_the_page(
    world: dict[str, Any], who: str | None, status: int
) -> None:
    response = logged_in(world.get(who) if who else None).get(jobs_url(world["project"]))
    assert response.status_code == status


@pytest.mark.parametrize(("who", "status"), [(None, 302), ("anna", 403), ("lead", 403), ("admin", 200)])
def test_only_admins_import_into_a_new_project(world: dict[str, Any], who: str | None, status: int) -> None:
    response = logged_in(world.get(who) if who else None).get(reverse("annotator:corpus-import"))
    assert response.status_code == status


def upload(client: Client, url: str, **fields: Any) -> Any:
    data = {
        "format": "mrpc",
        "annotator": "",
        "files": SimpleUploadedFile("msr_paraphrase_train.txt", TWO_ROWS),
        **fields,
    }
    return client.post(url, data)


def test_small_upload_runs_inline_and_lists_the_job(world: dict[str, Any]) -> None:
    project = world["project"]
    response = upload(logged_in(world["lead"]), jobs_url(project))
    assert response.status_code == 302
    job = CorpusJob.objects.get()
    assert job.status == "succeeded" and job.report["created"] == {"pairs": 2}
    assert Pair.objects.filter(project=project).count() == 3
    page = logged_in(world["lead"]).get(jobs_url(project)).content.decode()
    assert "P: created 2 pairs" in page and "Full report (JSON)" in page


def test_invalid_upload_fails_with_every_problem_and_writes_nothing(world: dict[str, Any]) -> None:
    before = counts()
    bad = SimpleUploadedFile("bad.txt", b"Quality,#1 ID,#2 ID,#1 String,#2 String\r\n")
    upload(logged_in(world["lead"]), jobs_url(world["project"]), files=bad)
    assert counts() == before
    job = CorpusJob.objects.get()
    assert job.status == "failed"
    page = logged_in(world["lead"]).get(jobs_url(world["project"])).content.decode()
    assert "the columns are separated by commas" in page


def test_dry_run_checkbox_writes_nothing(world: dict[str, Any]) -> None:
    before = counts()
    upload(logged_in(world["lead"]), jobs_url(world["project"]), dry_run="on")
    assert counts() == before
    assert CorpusJob.objects.get().report["summary"] == "P: would create 2 pairs"


def test_htmx_request_gets_the_jobs_partial_with_few_queries(
    world: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    client = logged_in(world["lead"])
    upload(client, jobs_url(world["project"]))
    with django_assert_max_num_queries(8):
        response = client.get(jobs_url(world["project"]), HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert body.lstrip().startswith('<section id="jobs"') and "<html" not in body
    assert "every 1s" not in body  # nothing runs: no polling


def test_running_job_shows_progress_polls_and_can_be_cancelled(world: dict[str, Any]) -> None:
    project = world["project"]
    job = CorpusJob.objects.create(
        kind="import", format="mrpc", project=project, project_name="P", status="running", total=200
    )
    corpus_jobs.Checkpoints(job.pk).progress(50, 200)
    client = logged_in(world["lead"])
    body = client.get(jobs_url(project), HTTP_HX_REQUEST="true").content.decode()
    assert "every 1s" in body and 'aria-valuenow="25"' in body and "50 of 200 records" in body
    cancel = reverse("annotator:corpus-job-cancel", args=[project.pk, job.pk])
    body = client.post(cancel, HTTP_HX_REQUEST="true").content.decode()
    assert "Cancelling…" in body
    assert corpus_jobs.Checkpoints(job.pk).cancelled()


def test_large_import_runs_as_a_task_and_a_cancelled_one_writes_nothing(
    world: dict[str, Any], monkeypatch: Any, task_queue: Any, django_capture_on_commit_callbacks: Any
) -> None:
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 10)
    project = world["project"]
    with django_capture_on_commit_callbacks(execute=True):  # a broker takes the task; no worker yet
        job = corpus_jobs.start_import(world["lead"], "mrpc", "P", [("train.txt", TWO_ROWS)], project=project)
    assert task_queue.args_of("annotator.run_import_job") == [(job.pk,)]
    job.refresh_from_db()
    assert job.status == "queued"
    assert tasks.run_import_job(job.pk) == "succeeded"  # the task, called as a worker would
    job.refresh_from_db()
    assert (job.progress, job.total) == (2, 2)
    assert tasks.run_import_job(job.pk) is None  # a re-delivered task does nothing

    before = counts()
    other = corpus_jobs.start_import(world["lead"], "mrpc", "New", [("train.txt", TWO_ROWS)])
    assert task_queue.args_of("annotator.run_import_job") == [(job.pk,)]  # not sent before the commit
    real_import = corpus_jobs.import_corpus

    def lead_cancels_meanwhile(*args: Any, **kwargs: Any) -> Any:
        corpus_jobs.request_cancel(other)  # the lead presses Cancel once the worker has started
        return real_import(*args, **kwargs)

    monkeypatch.setattr(corpus_jobs, "import_corpus", lead_cancels_meanwhile)
    assert corpus_jobs.run_import(other.pk) == "cancelled"  # the task, called as a worker would
    assert counts() == before and not Project.objects.filter(name="New").exists()
    other.refresh_from_db()
    assert other.status == "cancelled" and other.report["cancelled"] is True


def test_an_import_the_queue_cannot_take_fails_at_once_and_says_why(
    world: dict[str, Any], monkeypatch: Any, task_queue: Any, django_capture_on_commit_callbacks: Any
) -> None:
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 10)
    task_queue.refuse_with = ConnectionError("broker down")
    before = counts()
    with django_capture_on_commit_callbacks(execute=True):
        job = corpus_jobs.start_import(world["lead"], "mrpc", "New", [("train.txt", TWO_ROWS)])
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert (
        "task queue is unreachable" in job.report["summary"]
        and "Nothing was changed" in job.report["summary"]
    )
    assert counts() == before


def test_export_job_gives_a_download(world: dict[str, Any], django_capture_on_commit_callbacks: Any) -> None:
    client = logged_in(world["lead"])
    project = world["project"]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("annotator:corpus-export", args=[project.pk]), {"format": "native", "variant": "json"}
        )
    assert response.status_code == 302
    job = CorpusJob.objects.get(kind="export")
    assert job.status == "succeeded"
    download = client.get(reverse("annotator:corpus-job-download", args=[project.pk, job.pk]))
    assert download.status_code == 200 and download["Content-Disposition"].startswith("attachment")
    assert b'"format": "paraphrase-agreement/1"' in b"".join(download.streaming_content)


def test_export_form_needs_an_annotator_for_etpc(world: dict[str, Any]) -> None:
    response = logged_in(world["lead"]).post(
        reverse("annotator:corpus-export", args=[world["project"].pk]), {"format": "etpc", "variant": "json"}
    )
    assert response.status_code == 422 and "name them or choose the gold layer" in response.content.decode()


def test_printable_report_without_snapshot_says_so(world: dict[str, Any]) -> None:
    response = logged_in(world["lead"]).get(
        reverse("annotator:corpus-report-print", args=[world["project"].pk])
    )
    assert response.status_code == 404 and "has no agreement report yet" in response.content.decode()


def test_admin_imports_into_a_new_project(world: dict[str, Any]) -> None:
    client = logged_in(world["admin"])
    response = upload(client, reverse("annotator:corpus-import"), project_name="Fresh")
    fresh = Project.objects.get(name="Fresh")
    assert response.status_code == 302 and response["Location"] == jobs_url(fresh)
    assert fresh.pairs.count() == 2
    taken = upload(client, reverse("annotator:corpus-import"), project_name="Fresh")
    assert taken.status_code == 422 and "exists: import into it" in taken.content.decode()


def test_other_projects_jobs_are_not_reachable(world: dict[str, Any]) -> None:
    other = Project.objects.get(name="Other")
    job = CorpusJob.objects.create(kind="export", format="csv", project=other, project_name="Other")
    url = reverse("annotator:corpus-job-report", args=[world["project"].pk, job.pk])
    assert logged_in(world["lead"]).get(url).status_code == 404
