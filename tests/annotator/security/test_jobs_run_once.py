"""An import or export job runs once: a run claims the job row before any work; a task the broker
delivers again while a live worker runs the job leaves it, one whose worker died takes it over, and a run
that lost its claim never records its outcome (a failed job never ends "succeeded")."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.core.cache import cache

from annotator.corpus import jobs as corpus_jobs
from annotator.corpus import run_once
from annotator.models import CorpusJob, Project
from tests import make
from tests.make import TWO_ROWS, counts

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


@pytest.fixture
def world(
    settings: Any, tmp_path: Any, task_queue: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> Any:
    settings.MEDIA_ROOT = tmp_path
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 10)  # the upload goes to a worker
    make.isolate_cache(settings)
    cache.clear()
    cast = make.cast()
    project = make.project_with_pairs("P", n_pairs=1, lead=cast.lead, annotators=(cast.anna,))
    with django_capture_on_commit_callbacks(execute=True):  # sent to the (recording) broker
        job = corpus_jobs.start_import(cast.admin, "mrpc", "New", [("train.txt", TWO_ROWS)])
    assert job.status == CorpusJob.Status.QUEUED
    return {"cast": cast, "project": project, "job": job}


def test_a_delivery_while_a_live_worker_runs_the_job_leaves_it(world, monkeypatch):
    job = world["job"]
    real_import = corpus_jobs.import_corpus
    second: list[Any] = []

    def delivered_again_meanwhile(*args: Any, **kwargs: Any) -> Any:
        before = counts()
        second.append(corpus_jobs.run_import(job.pk))  # the broker's second delivery, on another worker
        assert counts() == before
        return real_import(*args, **kwargs)

    monkeypatch.setattr(corpus_jobs, "import_corpus", delivered_again_meanwhile)
    assert corpus_jobs.run_import(job.pk) == CorpusJob.Status.SUCCEEDED
    assert second == [None]
    job.refresh_from_db()
    assert job.status == CorpusJob.Status.SUCCEEDED and Project.objects.filter(name="New").count() == 1


def test_a_job_whose_worker_died_is_run_again_by_the_next_delivery(world):
    job = world["job"]
    # what a killed worker leaves: the row claimed and running, its lock gone with its connection
    CorpusJob.objects.filter(pk=job.pk).update(status=CorpusJob.Status.RUNNING, claimed_by="dead:1:x")
    assert corpus_jobs.run_import(job.pk) == CorpusJob.Status.SUCCEEDED
    job.refresh_from_db()
    assert job.status == CorpusJob.Status.SUCCEEDED and job.claimed_by != "dead:1:x"
    assert Project.objects.filter(name="New").exists()


def test_a_run_that_lost_its_claim_does_not_record_success_over_a_failure(world, monkeypatch):
    job = world["job"]
    real_import = corpus_jobs.import_corpus

    def taken_over_and_failed_meanwhile(*args: Any, **kwargs: Any) -> Any:
        # this run looked dead (no heartbeat): another took the job over and it failed there
        CorpusJob.objects.filter(pk=job.pk).update(
            claimed_by="other:2:y", status=CorpusJob.Status.FAILED, report={"summary": "failed elsewhere"}
        )
        return real_import(*args, **kwargs)

    monkeypatch.setattr(corpus_jobs, "import_corpus", taken_over_and_failed_meanwhile)
    assert corpus_jobs.run_import(job.pk) is None
    job.refresh_from_db()
    assert job.status == CorpusJob.Status.FAILED and job.report == {"summary": "failed elsewhere"}


def test_the_running_job_is_held_without_a_thread_and_the_lock_goes_with_the_run(world, monkeypatch):
    job = world["job"]
    real_import = corpus_jobs.import_corpus
    seen: list[Any] = []
    threads = set(threading.enumerate())

    def look(*args: Any, **kwargs: Any) -> Any:
        seen.append((run_once.is_held(corpus_jobs.lock_name(job.pk)), set(threading.enumerate()) == threads))
        return real_import(*args, **kwargs)

    monkeypatch.setattr(corpus_jobs, "import_corpus", look)
    corpus_jobs.run_import(job.pk)
    job.refresh_from_db()
    assert seen == [(True, True)] and job.claimed_by  # held, and no thread keeps it alive
    assert not run_once.is_held(corpus_jobs.lock_name(job.pk))


def test_a_cancel_of_a_job_whose_worker_died_is_recorded_by_the_next_delivery(world):
    job = world["job"]
    CorpusJob.objects.filter(pk=job.pk).update(
        status=CorpusJob.Status.RUNNING, claimed_by="dead:1:x", cancel_requested=True
    )
    assert corpus_jobs.run_import(job.pk) is None
    job.refresh_from_db()
    assert job.status == CorpusJob.Status.CANCELLED and "worker stopped" in job.report["summary"]
    assert not Project.objects.filter(name="New").exists()


def test_an_export_delivered_twice_runs_once(world, settings, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        export = corpus_jobs.start_export(world["cast"].lead, world["project"], "native")
    assert corpus_jobs.run_export(export.pk) == CorpusJob.Status.SUCCEEDED
    assert corpus_jobs.run_export(export.pk) is None
    CorpusJob.objects.filter(pk=export.pk).update(status=CorpusJob.Status.RUNNING, claimed_by="live:3:z")
    with make.held_elsewhere(corpus_jobs.lock_name(export.pk)):  # a live worker runs it
        assert corpus_jobs.run_export(export.pk) is None
    export.refresh_from_db()
    assert export.status == CorpusJob.Status.RUNNING and export.claimed_by == "live:3:z"
