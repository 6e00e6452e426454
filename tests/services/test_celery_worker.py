"""A task enqueued through Redis is executed by a real worker started by the fixture."""

import pytest

from annotator.tasks import ping


@pytest.mark.services
def test_task_round_trip_through_redis_and_a_live_worker(celery_worker_process, postgres_required):
    result = ping.delay("hello")
    assert result.get(timeout=30) == "pong:hello"
