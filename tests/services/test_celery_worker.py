"""A task enqueued through Redis is executed by a real worker started by the fixture."""

import time

import pytest

from annotator.tasks import ping


@pytest.mark.services
def test_task_round_trip_through_redis_and_a_live_worker(celery_worker_process, postgres_required):
    result = ping.delay("hello")
    assert result.get(timeout=30) == "pong:hello"


@pytest.mark.services
def test_a_live_worker_writes_its_heartbeat_with_celerys_own(
    celery_worker_process, postgres_required, settings
):
    from annotator.core import health

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        beats = health.heartbeats(settings.REDIS_URL, settings.CELERY_TASK_DEFAULT_QUEUE)
        if beats:
            break
        time.sleep(0.5)
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    assert beats and all(name.startswith(f"{queue}@") for name in beats)  # the worker's node name
