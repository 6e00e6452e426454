"""/healthz reports the database, the broker and the workers' heartbeat separately; the dashboard says
when its figures are stale and why."""

from __future__ import annotations

import datetime as dt
import os
import time
import uuid
from types import SimpleNamespace

import pytest
from django.test import Client
from django.utils import timezone

from annotator.core import health
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_queue(settings):
    """A Redis and a queue name of this test's own (the heartbeat hash is per queue)."""
    url = os.environ.get("REDIS_URL", "")
    if not url:
        pytest.skip("needs Redis: set REDIS_URL=redis://…")
    settings.REDIS_URL = url
    settings.CELERY_TASK_DEFAULT_QUEUE = f"test-health-{uuid.uuid4().hex[:8]}"
    yield url, settings.CELERY_TASK_DEFAULT_QUEUE
    health._redis(url).delete(health.HEARTBEAT_KEY.format(queue=settings.CELERY_TASK_DEFAULT_QUEUE))


def test_healthz_reports_in_process_worker_without_broker(settings):
    settings.REDIS_URL = ""
    body = Client().get("/healthz").json()
    assert body["database"] == "ok" and body["broker"].startswith("in-process")
    assert body["worker"]["state"] == "in-process" and body["ok"] is True


def test_healthz_with_broker_down_reports_worker_unknown(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = Client().get("/healthz")
    assert response.status_code == 503 and response.json()["worker"]["state"] == "unknown"


def test_healthz_says_when_no_worker_ever_answered(redis_queue):
    response = Client().get("/healthz")
    assert response.status_code == 200  # the web serves; the worker's absence is reported beside it
    assert response.json()["worker"] == {**response.json()["worker"], "state": "none", "ok": False}


def test_healthz_reports_the_age_of_the_last_heartbeat(redis_queue):
    url, queue = redis_queue
    health.beat(url, queue, "celery@a", now=time.time() - 5)
    health.beat(url, queue, "celery@b", now=time.time() - 200)
    staff = Client()
    staff.force_login(make.user("root", staff=True))
    worker = staff.get("/healthz").json()["worker"]  # worker names: admins only
    assert worker["state"] == "ok" and 4 <= worker["age_seconds"] <= 7
    assert set(worker["workers"]) == {"celery@a", "celery@b"} and worker["workers"]["celery@b"] >= 199


def test_the_worker_heartbeat_is_written_at_most_every_heartbeat_seconds(redis_queue):
    url, queue = redis_queue
    write = health.Heartbeat(url, queue)
    assert write("celery@a", now=100.0)  # Celery's heartbeat every 2 s; one write per HEARTBEAT_SECONDS
    assert not write("celery@a", now=102.0)
    assert write("celery@a", now=100.0 + health.HEARTBEAT_SECONDS)
    assert set(health.heartbeats(url, queue)) == {"celery@a"}


def test_a_failed_heartbeat_write_is_logged_and_tried_again_later(caplog):
    write = health.Heartbeat("redis://127.0.0.1:1/0", "q")  # nothing listens there
    assert not write("celery@a", now=100.0)
    assert "worker heartbeat not written" in caplog.text
    assert not write("celery@a", now=101.0)  # not before HEARTBEAT_SECONDS


def test_worker_is_silent_after_the_stale_limit(redis_queue):
    url, queue = redis_queue
    health.beat(url, queue, "celery@a", now=time.time() - health.STALE_SECONDS - 5)
    worker = health.worker_status(url, queue)
    assert worker["state"] == "silent" and worker["ok"] is False


def test_compose_probe_checks_the_named_worker(redis_queue, monkeypatch, capsys):
    url, queue = redis_queue
    monkeypatch.setenv("REDIS_URL", url)
    monkeypatch.setenv("CELERY_QUEUE", queue)
    health.beat(url, queue, "celery@alive")
    health.beat(url, queue, "celery@gone", now=time.time() - 600)
    assert health.main(["--worker", "celery@alive"]) == 0
    assert health.main(["--worker", "celery@gone"]) == 1
    assert health.main(["--worker", "celery@never"]) == 1
    assert '"state": "ok"' in capsys.readouterr().out


def _state(**fields):
    defaults = {
        "enqueue_failed": False,
        "queued_at": None,
        "changed_at": None,
        "started_at": None,
        "finished_at": None,
    }
    state = SimpleNamespace(**{**defaults, **fields})
    from annotator.models import AgreementState

    state.is_behind = AgreementState.is_behind.fget(state)
    return state


def test_figures_are_stale_when_no_worker_answers(redis_queue):
    url, queue = redis_queue
    health.beat(url, queue, "celery@a", now=time.time() - 185)
    computed = timezone.now() - dt.timedelta(minutes=10)
    fresh = health.figures_freshness(_state(), computed)
    assert fresh["stale"] and fresh["reason"] == "no worker has answered for 3 min"
    assert 599 <= fresh["age_seconds"] <= 602


def test_figures_are_fresh_with_a_worker_and_nothing_behind(redis_queue):
    url, queue = redis_queue
    health.beat(url, queue, "celery@a")
    now = timezone.now()
    state = _state(changed_at=now - dt.timedelta(hours=1), started_at=now - dt.timedelta(minutes=59))
    state.finished_at = state.started_at + dt.timedelta(seconds=2)
    state.is_behind = False
    assert health.figures_freshness(state, now - dt.timedelta(minutes=59))["stale"] is False


def test_figures_lag_when_changes_wait_behind_a_busy_queue(redis_queue):
    url, queue = redis_queue
    health.beat(url, queue, "celery@a")
    now = timezone.now()
    computed = now - dt.timedelta(minutes=5)
    waiting = _state(changed_at=now - dt.timedelta(seconds=30), started_at=computed, finished_at=computed)
    assert (
        health.figures_freshness(waiting, computed)["reason"]
        == "changes saved 30 s ago wait for a busy worker"
    )
    just_saved = _state(changed_at=now - dt.timedelta(seconds=1), started_at=computed, finished_at=computed)
    assert health.figures_freshness(just_saved, computed)["stale"] is False  # the worker has it in hand
    running = _state(changed_at=now, started_at=now - dt.timedelta(minutes=3), finished_at=computed)
    assert health.figures_freshness(running, computed)["reason"] == "a computation has run for 3 min"


def test_figures_are_never_stale_in_process(settings):
    settings.REDIS_URL = ""
    assert health.figures_freshness(_state(), timezone.now() - dt.timedelta(days=3))["stale"] is False


def test_figures_are_not_stale_when_tasks_run_eagerly(redis_queue):
    from celery import current_app

    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    try:
        assert health.figures_freshness(_state(), timezone.now())["stale"] is False
    finally:
        current_app.conf.task_always_eager = eager


def test_dashboard_status_says_stale_and_why(redis_queue, client):
    from tests import make

    url, queue = redis_queue
    lead = make.user("lead")
    project = make.project_with_pairs("Stale", n_pairs=1, lead=lead)
    client.force_login(lead)
    status = f"/projects/{project.pk}/dashboard/"
    headers = {"HX-Request": "true", "HX-Target": "snapshot-status"}
    health.beat(url, queue, "celery@a", now=time.time() - 200)
    html = client.get(status, headers=headers).content.decode()
    assert "stale" in html and "no worker has answered for 3 min" in html
    health.beat(url, queue, "celery@a")
    assert "stale" not in client.get(status, headers=headers).content.decode()
