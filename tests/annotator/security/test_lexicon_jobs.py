"""Lexicon builds are jobs like imports: the same size limit and hourly quota, large files built on a
worker (not in the web request), run once under redelivery, cancelled within a phrase or a unit with
nothing written, uploads removed when the job ends; a lexicon name longer than a lexicon's name may be
is a clear error at the form, not a 500."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from annotator.corpus import jobs as corpus_jobs
from annotator.corpus import retention
from annotator.evaluation import lexicon_jobs
from annotator.evaluation.lexicons import NAME_MAX, UnitRule, parse_lexicon
from annotator.models import CorpusJob, EvaluationUnit, Lexicon
from annotator.projects import services as project_setup
from tests import make
from tests.annotator.evaluation.lexicon_files import LEXICON, SENTENCES

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

RULE = UnitRule(seed=3, n=3, per_phrase=2)
FILES = (("lex.tsv", LEXICON.encode()), ("s.txt", SENTENCES.encode()))


@pytest.fixture
def world(settings: Any, tmp_path: Path) -> dict[str, Any]:
    settings.MEDIA_ROOT = tmp_path
    make.isolate_cache(settings)
    cache.clear()
    lead = make.user("lead")
    project = project_setup.create_project(
        None,
        name="Lex",
        layer_evaluation=True,
        layer_pair_label=False,
        layer_phenomena=False,
        layer_word_alignment=False,
    )
    project.memberships.create(user=lead, role="lead")
    return {"lead": lead, "project": project, "media": tmp_path}


@pytest.fixture
def queued(
    world: dict[str, Any], task_queue: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> Any:
    """A build large enough for a worker (the inline limit lowered), sent to the recording broker."""
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 10)
    with django_capture_on_commit_callbacks(execute=True):
        job = lexicon_jobs.start_build(world["lead"], world["project"], *FILES, RULE)
    return job


def post(client: Any, project: Any, lexicon: bytes, **extra: Any) -> Any:
    return client.post(
        reverse("annotator:evaluation-lexicons", args=[project.pk]),
        {
            "lexicon_file": SimpleUploadedFile("lex.tsv", lexicon),
            "sentence_file": SimpleUploadedFile("s.txt", SENTENCES.encode()),
            "seed": 3,
            "n": 3,
            "per_phrase": 2,
            **extra,
        },
        follow=True,
    )


def test_a_lexicon_name_longer_than_allowed_is_a_clear_form_error(client, world):
    long_name = "L" * (NAME_MAX + 1)
    client.force_login(world["lead"])
    response = post(client, world["project"], LEXICON.replace("P_Del", long_name).encode())
    assert response.status_code == 422
    assert f"lex.tsv:4: lexicon: the name is {NAME_MAX + 1} characters long; at most {NAME_MAX}" in (
        response.content.decode()
    )
    assert not Lexicon.objects.exists() and not EvaluationUnit.objects.exists()


def test_a_lexicon_name_longer_than_allowed_is_a_clear_api_error(world):
    client = make.api_client(world["lead"])
    body = {
        "project": world["project"].pk,
        "lexicon_file": SimpleUploadedFile(
            "lex.tsv", LEXICON.replace("P_Del", "L" * (NAME_MAX + 1)).encode()
        ),
        "sentence_file": SimpleUploadedFile("s.txt", SENTENCES.encode()),
        "seed": 3,
        "n": 3,
        "per_phrase": 2,
    }
    response = client.post("/api/jobs/lexicon/", body, format="multipart")
    assert response.status_code == 400
    assert response.json()["lexicon_file"] == [
        f"lex.tsv:4: lexicon: the name is {NAME_MAX + 1} characters long; at most {NAME_MAX} are allowed."
    ]
    assert not Lexicon.objects.exists()


def test_the_api_builds_or_previews_as_a_job_and_refuses_past_the_quota(world, settings):
    settings.UPLOADS_PER_HOUR = 2
    client = make.api_client(world["lead"])

    def body(**extra: Any) -> dict[str, Any]:
        return {
            "project": world["project"].pk,
            "lexicon_file": SimpleUploadedFile("lex.tsv", LEXICON.encode()),
            "sentence_file": SimpleUploadedFile("s.txt", SENTENCES.encode()),
            "seed": 3,
            "n": 3,
            "per_phrase": 2,
            **extra,
        }

    preview = client.post("/api/jobs/lexicon/", body(preview="true"), format="multipart")
    assert preview.status_code == 201 and preview.json()["report"]["summary"].startswith("Preview: 2 units")
    assert not EvaluationUnit.objects.exists()
    built = client.post("/api/jobs/lexicon/", body(), format="multipart")
    assert (
        built.status_code == 201
        and built.json()["status"] == "succeeded"
        and built.json()["kind"] == "lexicon"
    )
    assert EvaluationUnit.objects.filter(project=world["project"]).count() == 2
    refused = client.post("/api/jobs/lexicon/", body(), format="multipart")
    assert refused.status_code == 429 and "the limit is 2 an hour" in refused.json()["lexicon_file"][0]
    outsider = make.api_client(make.user("stranger"))
    assert outsider.post("/api/jobs/lexicon/", body(), format="multipart").status_code == 404


def test_a_lexicon_name_of_the_longest_allowed_length_is_built(world):
    name = "L" * NAME_MAX
    assert name in {
        n for c in parse_lexicon(LEXICON.replace("P_Del", name))["went up"].values() for n in c.scores
    }


def test_a_small_build_runs_within_the_request_as_a_job_and_leaves_no_upload(client, world):
    client.force_login(world["lead"])
    response = post(client, world["project"], LEXICON.encode())
    assert "Built 2 units with 6 candidate sentences" in response.content.decode()
    job = CorpusJob.objects.get(kind=CorpusJob.Kind.LEXICON)
    assert job.status == CorpusJob.Status.SUCCEEDED and job.created_by == world["lead"]
    assert [f["path"] for f in job.input_files] == ["", ""]
    assert not list((world["media"] / "corpus_jobs").rglob("*.*"))


def test_files_over_the_upload_limit_are_refused_at_the_form(client, world, settings):
    settings.UPLOAD_MAX_MB = 0
    client.force_login(world["lead"])
    response = post(client, world["project"], LEXICON.encode())
    assert (
        response.status_code == 422
        and "larger than 0 MB together (UPLOAD_MAX_MB)" in response.content.decode()
    )
    assert not CorpusJob.objects.exists() and not EvaluationUnit.objects.exists()


def test_lexicon_builds_count_towards_the_hourly_upload_quota(client, world, settings):
    settings.UPLOADS_PER_HOUR = 1
    client.force_login(world["lead"])
    post(client, world["project"], LEXICON.encode())
    response = post(client, world["project"], LEXICON.encode())
    assert response.status_code == 422 and "the limit is 1 an hour" in response.content.decode()
    assert CorpusJob.objects.count() == 1


def test_a_large_build_goes_to_a_worker_and_the_request_builds_nothing(client, world, queued, task_queue):
    assert queued.status == CorpusJob.Status.QUEUED and not EvaluationUnit.objects.exists()
    assert task_queue.sent == [("annotator.run_lexicon_job", (queued.pk,))]
    client.force_login(world["lead"])
    page = client.get(reverse("annotator:corpus-jobs", args=[world["project"].pk])).content.decode()
    assert (
        "Lexicon build" in page
        and reverse("annotator:corpus-job-cancel", args=[world["project"].pk, queued.pk]) in page
    )
    assert lexicon_jobs.run_build(queued.pk) == CorpusJob.Status.SUCCEEDED
    assert EvaluationUnit.objects.filter(project=world["project"]).count() == 2


def test_a_delivery_while_a_live_worker_builds_leaves_it(world, queued, monkeypatch):
    real = lexicon_jobs.build_units
    second: list[Any] = []

    def delivered_again_meanwhile(*args: Any, **kwargs: Any) -> Any:
        second.append(lexicon_jobs.run_build(queued.pk))  # the broker's second delivery
        return real(*args, **kwargs)

    monkeypatch.setattr(lexicon_jobs, "build_units", delivered_again_meanwhile)
    assert lexicon_jobs.run_build(queued.pk) == CorpusJob.Status.SUCCEEDED
    assert second == [None]
    assert EvaluationUnit.objects.filter(project=world["project"]).count() == 2  # built once
    assert lexicon_jobs.run_build(queued.pk) is None  # and a late delivery of the finished job does nothing


def test_a_build_whose_worker_died_is_run_by_the_next_delivery(world, queued):
    CorpusJob.objects.filter(pk=queued.pk).update(status=CorpusJob.Status.RUNNING, claimed_by="dead:1:x")
    assert lexicon_jobs.run_build(queued.pk) == CorpusJob.Status.SUCCEEDED
    assert EvaluationUnit.objects.filter(project=world["project"]).count() == 2


@pytest.mark.parametrize("stage", ["planning", "writing"])
def test_a_cancel_during_the_build_stops_it_at_the_next_step_and_writes_nothing(
    world, queued, monkeypatch, stage
):
    calls: list[tuple[int, int]] = []
    real_progress = corpus_jobs.Checkpoints.progress

    def cancel_midway(self: Any, done: int, total: int) -> None:
        calls.append((done, total))
        # planning reports phrases (2 here), writing reports units: cancel at the first step of the stage
        if (stage == "planning" and len(calls) == 1) or (stage == "writing" and len(calls) == 4):
            corpus_jobs.request_cancel(CorpusJob.objects.get(pk=queued.pk))
        real_progress(self, done, total)

    monkeypatch.setattr(corpus_jobs.Checkpoints, "progress", cancel_midway)
    assert lexicon_jobs.run_build(queued.pk) == CorpusJob.Status.CANCELLED
    assert len(calls) == (1 if stage == "planning" else 4)  # no step after the cancel
    queued.refresh_from_db()
    assert queued.status == CorpusJob.Status.CANCELLED and "no unit was built" in queued.report["summary"]
    assert not EvaluationUnit.objects.exists() and not Lexicon.objects.exists()
    assert [f["path"] for f in queued.input_files] == ["", ""]  # its uploads removed


def test_a_failed_builds_uploads_are_kept_for_the_failed_upload_period(world, monkeypatch, settings):
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 10**9)
    job = lexicon_jobs.start_build(
        world["lead"], world["project"], ("lex.tsv", b"went up\trose\n"), FILES[1], RULE
    )
    assert job.status == CorpusJob.Status.FAILED
    assert "lex.tsv:1: expected 4 tab-separated fields" in job.report["summary"]
    assert all(Path(f["path"]).is_file() for f in job.input_files)
    assert retention.kept_until(job) is not None
    retention.delete_job(job)
    assert not list((world["media"] / "corpus_jobs").rglob("*.*"))


def test_a_build_stuck_past_the_upload_keep_days_is_failed_and_its_files_removed(world, queued, settings):
    settings.UPLOAD_KEEP_DAYS = 2
    assert all(Path(f["path"]).is_file() for f in queued.input_files)
    CorpusJob.objects.filter(pk=queued.pk).update(created_at=timezone.now() - timedelta(days=2, hours=1))
    assert retention.clean_up().jobs == 1
    queued.refresh_from_db()
    assert queued.status == CorpusJob.Status.FAILED and "imported or built" in queued.report["summary"]
    assert not list((world["media"] / "corpus_jobs").rglob("*.*"))
