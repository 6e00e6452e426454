"""The broker down during an import or an export, with a real Redis client to a port nothing listens on:
the page answers at once (no 500), the job fails saying the task queue is unreachable and that nothing
was changed, it never stays "queued", and nothing is written. Jobs started once the queue is back run.

(tests/annotator/corpus/test_corpus_views.py checks the same rule at the service with a recording queue;
here the error is the one redis-py and kombu really raise.)"""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest
import redis
from celery import Celery
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator import taskqueue
from annotator.corpus import jobs as corpus_jobs
from annotator.models import CorpusJob
from tests import make
from tests.make import TWO_ROWS, counts, logged_in

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def broker_down(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Celery:
    """The project's Celery configuration with its broker at a closed port (worker mode, not eager)."""
    # not made the current app: shared tasks of later tests must keep resolving to the project's own
    app = Celery("annotator-broker-down", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(broker_url=f"redis://127.0.0.1:{closed_port()}/0", task_always_eager=False)
    monkeypatch.setattr(taskqueue, "app", app)
    return app


@pytest.fixture
def world(settings: Any, tmp_path: Any) -> dict[str, Any]:
    settings.MEDIA_ROOT = tmp_path
    make.isolate_cache(settings)
    cache.clear()
    cast = make.cast()
    project = make.project_with_pairs("P", n_pairs=1, lead=cast.lead, annotators=(cast.anna,))
    return {"lead": cast.lead, "admin": cast.admin, "project": project}


def assert_failed_saying_so(job: CorpusJob) -> None:
    assert job.status == CorpusJob.Status.FAILED and job.finished_at is not None
    summary = job.report["summary"]
    assert "task queue is unreachable" in summary and "Nothing was changed" in summary


def test_an_import_with_the_broker_down_fails_at_once_and_writes_nothing(
    world: dict[str, Any],
    broker_down: Celery,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 10)  # the upload goes to a worker
    before = counts()
    project = world["project"]
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in(world["lead"]).post(
            reverse("annotator:corpus-jobs", args=[project.pk]),
            {"format": "mrpc", "annotator": "", "files": SimpleUploadedFile("train.txt", TWO_ROWS)},
        )
    assert response.status_code == 302
    job = CorpusJob.objects.get(kind="import")
    assert_failed_saying_so(job)
    assert counts() == before
    page = logged_in(world["lead"]).get(response["Location"]).content.decode()
    assert "task queue is unreachable" in page


def test_an_export_through_the_api_with_the_broker_down_fails_and_is_never_left_queued(
    world: dict[str, Any], broker_down: Celery, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = make.api_client(world["lead"]).post(
            "/api/jobs/export/", {"project": world["project"].pk, "format": "native"}, format="json"
        )
    assert response.status_code < 500
    job = CorpusJob.objects.get(kind="export")
    assert_failed_saying_so(job)
    assert not CorpusJob.objects.filter(status=CorpusJob.Status.QUEUED).exists()


@pytest.fixture
def redis_down(broker_down: Celery, settings: Any) -> None:
    """As in production, where one REDIS_URL is the broker and the cache: both at the closed port."""
    url = broker_down.conf.broker_url
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}
    with pytest.raises(redis.exceptions.ConnectionError):
        cache.get("anything")  # the cache is down too


@pytest.mark.parametrize("format", ["native", "jsonl"])
def test_an_export_with_the_whole_redis_down_answers_at_once_saying_so(
    world: dict[str, Any], redis_down: None, django_capture_on_commit_callbacks: Any, format: str
) -> None:
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        response = make.api_client(world["lead"]).post(
            "/api/jobs/export/", {"project": world["project"].pk, "format": format}, format="json"
        )
    assert time.monotonic() - started < 5
    assert response.status_code < 500
    assert_failed_saying_so(CorpusJob.objects.get(kind="export"))


def test_an_import_with_the_whole_redis_down_answers_at_once_saying_so(
    world: dict[str, Any],
    redis_down: None,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 10)  # the upload goes to a worker
    before = counts()
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in(world["lead"]).post(
            reverse("annotator:corpus-jobs", args=[world["project"].pk]),
            {"format": "mrpc", "annotator": "", "files": SimpleUploadedFile("train.txt", TWO_ROWS)},
        )
    assert time.monotonic() - started < 5
    assert response.status_code == 302
    assert_failed_saying_so(CorpusJob.objects.get(kind="import"))
    assert counts() == before
