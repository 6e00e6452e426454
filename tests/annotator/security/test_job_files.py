"""Exports and uploads are bounded and kept for a set time: an export larger than EXPORT_MAX_MB fails and
leaves no file; JSON Lines is written as it is read; `clean_up_uploads` removes exports after
EXPORT_KEEP_DAYS and fails imports stuck for UPLOAD_KEEP_DAYS; a lead sees each job's files (size, kept
until) and deletes a finished job with them."""

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
from annotator.corpus.exports import jsonl
from annotator.models import CorpusJob
from tests import make
from tests.make import TWO_ROWS, api_client, logged_in

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


@pytest.fixture
def world(settings: Any, tmp_path: Any) -> dict[str, Any]:
    settings.MEDIA_ROOT = tmp_path
    make.isolate_cache(settings)
    cache.clear()
    cast = make.cast()
    project = make.project_with_pairs("P", n_pairs=5, lead=cast.lead, annotators=(cast.anna,))
    return {"cast": cast, "project": project}


def export(world: dict[str, Any], format: str = "jsonl", **options: Any) -> CorpusJob:
    job = corpus_jobs.start_export(world["cast"].lead, world["project"], format, **options)
    corpus_jobs.run_export(job.pk)
    job.refresh_from_db()
    return job


def test_an_export_larger_than_the_limit_fails_and_keeps_no_file(world, settings):
    settings.EXPORT_MAX_MB = 0
    job = export(world)
    assert job.status == CorpusJob.Status.FAILED and "EXPORT_MAX_MB" in job.report["summary"]
    assert job.output_file == ""
    assert not [p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file()]


def test_json_lines_are_written_a_chunk_of_pairs_at_a_time(world, monkeypatch):
    whole = jsonl.jsonl_bytes(world["project"])
    sizes: list[int] = []
    real = jsonl._chunk_records

    def chunk(project, pairs, *args, **kwargs):
        sizes.append(len(pairs))
        return real(project, pairs, *args, **kwargs)

    monkeypatch.setattr(jsonl, "PAIRS_PER_CHUNK", 2)
    monkeypatch.setattr(jsonl, "_chunk_records", chunk)
    job = export(world)
    assert sizes == [2, 2, 1]
    assert Path(job.output_file).read_bytes() == whole and job.report["size"] == len(whole)


def test_clean_up_removes_old_exports(world, settings):
    job = export(world, "native")
    assert Path(job.output_file).is_file()
    assert retention.clean_up().exports == 0
    later = timezone.now() + timedelta(days=settings.EXPORT_KEEP_DAYS, hours=1)
    assert retention.clean_up(now=later).exports == 1
    assert not Path(job.output_file).exists() and CorpusJob.objects.get(pk=job.pk).output_file == ""
    download = logged_in(world["cast"].lead).get(
        reverse("annotator:corpus-job-download", args=[world["project"].pk, job.pk])
    )
    assert download.status_code == 404


def test_celery_beat_removes_the_files_that_are_due_every_hour(world, settings, monkeypatch):
    from annotator import tasks

    schedule = settings.CELERY_BEAT_SCHEDULE["job-files-retention"]
    assert schedule == {"task": "annotator.clean_up_job_files", "schedule": 3600.0}
    job = export(world, "native")
    later = timezone.now() + timedelta(days=settings.EXPORT_KEEP_DAYS, hours=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert "the files of 1 exports" in tasks.clean_up_job_files()
    assert not Path(job.output_file).exists()


def test_an_import_stuck_for_days_is_failed_and_its_files_removed(
    world, settings, monkeypatch, task_queue, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 10)
    with django_capture_on_commit_callbacks(execute=True):
        job = corpus_jobs.start_import(
            world["cast"].lead, "mrpc", "P", [("train.txt", TWO_ROWS)], project=world["project"]
        )
    stored = Path(job.input_files[0]["path"])
    assert stored.is_file() and job.status == CorpusJob.Status.QUEUED
    assert retention.kept_until(job) is not None
    later = timezone.now() + timedelta(days=settings.UPLOAD_KEEP_DAYS, hours=1)
    assert retention.clean_up(now=later).jobs == 1
    job.refresh_from_db()
    assert job.status == CorpusJob.Status.FAILED and "UPLOAD_KEEP_DAYS" in job.report["summary"]
    assert not stored.exists()


def test_uploads_larger_than_the_limit_are_refused(world, settings):
    settings.UPLOAD_MAX_MB = 0
    response = logged_in(world["cast"].lead).post(
        reverse("annotator:corpus-jobs", args=[world["project"].pk]),
        {"format": "mrpc", "annotator": "", "files": SimpleUploadedFile("train.txt", TWO_ROWS)},
    )
    assert "UPLOAD_MAX_MB" in response.content.decode()
    assert not CorpusJob.objects.exists()


def test_the_lead_sees_the_files_and_deletes_a_finished_job(world):
    job = export(world, "native")
    path = Path(job.output_file)
    client = logged_in(world["cast"].lead)
    page = client.get(reverse("annotator:corpus-jobs", args=[world["project"].pk])).content.decode()
    assert (
        "kept until" in page
        and reverse("annotator:corpus-job-delete", args=[world["project"].pk, job.pk]) in page
    )
    answer = client.post(reverse("annotator:corpus-job-delete", args=[world["project"].pk, job.pk]))
    assert answer.status_code == 302
    assert not CorpusJob.objects.filter(pk=job.pk).exists() and not path.exists()


def test_the_api_deletes_a_finished_job_and_refuses_a_running_one(world):
    job = export(world, "native")
    other = api_client(world["cast"].other_lead).delete(f"/api/jobs/{job.pk}/")
    assert other.status_code == 404 and CorpusJob.objects.filter(pk=job.pk).exists()
    assert api_client(world["cast"].lead).delete(f"/api/jobs/{job.pk}/").status_code == 204
    assert not CorpusJob.objects.filter(pk=job.pk).exists() and not Path(job.output_file).exists()
    running = CorpusJob.objects.create(
        kind="export", format="native", project=world["project"], status="running"
    )
    assert api_client(world["cast"].lead).delete(f"/api/jobs/{running.pk}/").status_code == 409
    assert CorpusJob.objects.filter(pk=running.pk).exists()
