"""Faults on the production-shaped stack: Redis down, PostgreSQL restarted in the middle of a run.

The stack is private (bench/stack.py): a throwaway PostgreSQL cluster, a private Redis, gunicorn and
one Celery worker on free loopback ports, so stopping them never disturbs the machine's shared services
(nor another test run's stack). Requests go over HTTP to gunicorn with API tokens, as scripts and browsers send them.

The third fault of the issue — the worker killed in the middle of a recompute, after which the next
snapshot is correct — is proven in tests/services/test_recompute_worker.py.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from bench.stack import PrivateRedis, Stack, available, free_port, seed
from tests.conftest import unavailable

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    reason = available()
    if reason:
        unavailable("REQUIRE_SERVICES", f"private stack cannot start: {reason}")
    stack = Stack(pg_port=free_port(), redis_port=free_port(), web_port=free_port())
    try:
        stack.start_services("faults")
        stack.world = seed(stack, n_annotators=2, n_pairs=3)
        stack.start_web()
        stack.start_worker()
        stack.start_beat()
        yield stack
    finally:
        stack.stop()
        stack.cleanup()


def post(
    stack: Stack, path: str, body: dict[str, Any], token: str, timeout: float = 30
) -> tuple[int, Any, float]:
    request = urllib.request.Request(
        stack.url(path),
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        method="POST",
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except OSError as exc:  # connection-level failure: must not happen, gunicorn stays up
        return 0, repr(exc), time.perf_counter() - started
    elapsed = time.perf_counter() - started
    try:
        return status, json.loads(raw), elapsed
    except ValueError:
        return status, raw.decode(errors="replace"), elapsed


def save(stack: Stack, n: int, annotator: int = 0) -> tuple[int, Any, float]:
    world = stack.world
    body = {
        "pair": world["pairs"][n % len(world["pairs"])],
        "ptype": world["ptypes"][0],
        "scope1": [n % 11],
        "scope2": [n % 8],
        "base_version": None,  # scripted load: each save stands alone
    }
    return post(stack, "/api/phenomena/", body, world["annotators"][annotator])


def agreement(stack: Stack) -> dict[str, Any]:
    status, body = stack.get_json(f"/api/projects/{stack.world['project']}/agreement/", stack.world["lead"])
    assert status == 200, body
    return body


def wait_until(condition: Any, timeout: float, what: str) -> Any:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def current_snapshot(stack: Stack) -> Any:
    body = agreement(stack)
    return body["snapshot"] if body["snapshot"] and not body["behind"] else None


def test_redis_down_saves_succeed_and_recompute_follows_when_it_is_back(stack):
    status, body, _ = save(stack, 0)
    assert status == 201, body
    before = wait_until(lambda: current_snapshot(stack), 60, "the first snapshot")

    stack.redis.kill()
    status, body, elapsed = save(stack, 1)
    assert status == 201, body  # the annotation is stored although the queue is gone
    print(f"save while Redis is down: {elapsed * 1000:.0f} ms")
    assert elapsed < 10, f"a save took {elapsed:.1f}s while Redis was down"
    assert save(stack, 2)[0] == 201
    health_status, health = stack.get_json("/healthz")
    assert health_status == 503 and health["broker"].startswith("unreachable") and health["database"] == "ok"
    told = agreement(stack)
    assert told["behind"] is True and told["enqueue_failed"] is True  # the lead is told dashboards lag

    stack.redis = PrivateRedis(stack.redis.port, stack.root)
    stack.redis.start()
    # The periodic catch-up (Celery beat) re-sends the refused recompute to the worker; reading the
    # agreement sends nothing.
    after = wait_until(lambda: current_snapshot(stack), 90, "a recompute after Redis came back")
    assert after["id"] != before["id"] and after["fingerprint"] != before["fingerprint"]
    assert agreement(stack)["enqueue_failed"] is False
    assert stack.get_json("/healthz")[0] == 200


def test_postgres_restart_fails_requests_cleanly_and_they_succeed_after(stack):
    outcomes: list[tuple[float, int, Any]] = []
    stop = threading.Event()

    def client() -> None:
        n = 100
        while not stop.is_set():
            status, body, _ = save(stack, n, annotator=1)
            outcomes.append((time.time(), status, body))
            n += 1
            time.sleep(0.05)

    thread = threading.Thread(target=client)
    thread.start()
    try:
        time.sleep(1.5)
        stack.postgres.stop("fast")
        down_at = time.time()
        time.sleep(3)
        restarting_at = time.time()  # from here on a request may already find the database back
        stack.postgres.start()
        up_at = time.time()
        wait_until(
            lambda: any(t > up_at and s == 201 for t, s, _ in outcomes), 30, "a save after the restart"
        )
        time.sleep(1)
    finally:
        stop.set()
        thread.join(60)

    statuses = [status for _, status, _ in outcomes]
    assert set(statuses) <= {201, 503}, [o for o in outcomes if o[1] not in (201, 503)]  # no 500, no drop
    during = [(s, b) for t, s, b in outcomes if down_at + 0.5 < t < restarting_at]
    assert during and all(s == 503 for s, _ in during), during
    for _, body in during:
        assert "try again" in body["detail"]
        assert "Traceback" not in json.dumps(body) and "psycopg" not in json.dumps(body)
    assert statuses[-1] == 201
    # Every save that was answered 201 is really stored.
    created = [b["phenomenon"]["id"] for _, s, b in outcomes if s == 201]
    stored = stack.python(
        "from annotator.models import Phenomenon\n"
        f"print(json.dumps(sorted(Phenomenon.objects.filter(pk__in={created!r}).values_list('pk', flat=True))))"
    )
    assert stored == sorted(created)
    assert stack.get_json("/healthz")[0] == 200
    # The worker recovers too: the agreement catches up with the saves made around the restart.
    wait_until(lambda: current_snapshot(stack), 90, "the agreement to catch up after the restart")
