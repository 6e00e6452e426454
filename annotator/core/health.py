"""Health of the deployment: the database, the broker and the workers' heartbeat, reported separately.

`/healthz` answers `report()` as JSON; docker-compose's health checks run the same checks (the web's
through `/healthz`, the worker's with `python -m annotator.core.health --worker NAME`, which needs no
Django); the dashboard says its figures are stale from `figures_freshness()`.

The heartbeat: every Celery worker's main process writes the time into a Redis hash, one field per
worker (`HSET workbench:heartbeat:<queue> <worker name> <unix time>`), at most every
`WORKER_HEARTBEAT_SECONDS` (10 s), when Celery's own worker heartbeat is sent (the signal
`heartbeat_sent`, every 2 s from the worker's event loop; no thread of ours). One small write per worker
every 10 s costs nothing beside the work it reports on, and a reader needs one `HGETALL`, not a
broadcast to the workers (`celery inspect ping` waits for replies: a second or more). A worker that
stops or dies stops writing; after `WORKER_STALE_SECONDS` (30 s) of silence it counts as gone. A worker
started with `--without-heartbeat` writes none.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import logging
import os
import sys
import time
from typing import Any

import redis
from celery import current_app
from django.conf import settings
from django.utils import timezone

log = logging.getLogger(__name__)

HEARTBEAT_KEY = "workbench:heartbeat:{queue}"
HEARTBEAT_SECONDS = float(os.environ.get("WORKER_HEARTBEAT_SECONDS", "10"))
STALE_SECONDS = float(os.environ.get("WORKER_STALE_SECONDS", "30"))
FORGET_SECONDS = 7 * 24 * 3600  # heartbeats of workers gone this long are dropped from the report


@functools.cache
def _redis(url: str) -> Any:
    """One client (and connection pool) per URL: the dashboard asks every second per open tab."""

    return redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)


def _queue() -> str:
    try:
        return settings.CELERY_TASK_DEFAULT_QUEUE
    except Exception:  # outside Django (the compose health check): the environment says it
        return os.environ.get("CELERY_QUEUE", "workbench")


# ---- the worker side ------------------------------------------------------------------------------


def beat(redis_url: str, queue: str, worker: str, now: float | None = None) -> None:
    """Record that `worker` is alive now."""
    _redis(redis_url).hset(HEARTBEAT_KEY.format(queue=queue), worker, f"{now or time.time():.3f}")


class Heartbeat:
    """The worker's heartbeat writes: `beat` at most every HEARTBEAT_SECONDS, whatever calls it more often
    (Celery's heartbeat, every 2 s). A failed write (the broker is down: the worker cannot work either)
    is logged and tried again HEARTBEAT_SECONDS later."""

    def __init__(self, redis_url: str, queue: str) -> None:
        self.redis_url, self.queue, self.last = redis_url, queue, float("-inf")

    def __call__(self, worker: str, now: float | None = None) -> bool:
        """Write the heartbeat of `worker` if it is due; whether it was written."""
        now = time.monotonic() if now is None else now
        if now - self.last < HEARTBEAT_SECONDS:
            return False
        self.last = now
        try:
            beat(self.redis_url, self.queue, worker)
        except Exception as exc:
            log.warning("worker heartbeat not written: %s", exc)
            return False
        return True


# ---- the readers ----------------------------------------------------------------------------------


def heartbeats(redis_url: str, queue: str) -> dict[str, float]:
    """Last heartbeat (unix time) of each worker of the queue that beat within FORGET_SECONDS."""
    raw = _redis(redis_url).hgetall(HEARTBEAT_KEY.format(queue=queue))
    horizon = time.time() - FORGET_SECONDS
    beats = {name.decode(): float(value) for name, value in raw.items()}
    return {name: at for name, at in beats.items() if at >= horizon}


def worker_status(redis_url: str, queue: str, now: float | None = None) -> dict[str, Any]:
    """`state`: "ok" (a worker beat within WORKER_STALE_SECONDS), "silent" (the last beat is older),
    "none" (no worker ever beat), "unknown" (the broker does not answer) or "in-process" (no broker:
    tasks run inside the web process). With the age of the last heartbeat and each worker's."""
    if not redis_url:
        return {"state": "in-process", "ok": True, "last_heartbeat": None, "age_seconds": None, "workers": {}}
    now = now or time.time()
    try:
        beats = heartbeats(redis_url, queue)
    except Exception as exc:
        return {
            "state": "unknown",
            "ok": False,
            "detail": f"broker unreachable: {exc.__class__.__name__}",
            "last_heartbeat": None,
            "age_seconds": None,
            "workers": {},
        }
    last = max(beats.values(), default=None)
    age = None if last is None else max(0.0, now - last)
    state = "none" if age is None else ("ok" if age <= STALE_SECONDS else "silent")
    return {
        "state": state,
        "ok": state == "ok",
        "queue": queue,
        "last_heartbeat": None if last is None else _iso(last),
        "age_seconds": None if age is None else round(age, 1),
        "stale_after_seconds": STALE_SECONDS,
        "workers": {name: round(now - at, 1) for name, at in sorted(beats.items())},
    }


def database_status() -> tuple[bool, str]:
    """Whether the database answers one round trip (`annotator.core.sql.ping`)."""
    from annotator.core import sql  # the models it reads load after this module (celery.py imports it)

    try:
        sql.ping()
    except Exception as exc:
        return False, f"unreachable: {exc.__class__.__name__}"
    return True, "ok"


def broker_status() -> tuple[bool, str]:
    """Whether the Celery broker answers (in-process mode counts as up)."""

    if not settings.REDIS_URL:
        return True, "in-process (no REDIS_URL)"
    try:
        _redis(settings.REDIS_URL).ping()
    except Exception as exc:
        return False, f"unreachable: {exc.__class__.__name__}"
    return True, "ok"


def report() -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of /healthz. 503 when the database or the broker is down: the web cannot
    serve. A silent worker does not make the web unhealthy (pages and saves still work; agreement
    figures wait) — it is reported under `worker` for the worker's own check and the admin."""

    db_ok, db_msg = database_status()
    broker_ok, broker_msg = broker_status()
    worker = worker_status(settings.REDIS_URL, _queue()) if broker_ok else worker_status("", "")
    if not broker_ok:
        worker = {**worker, "state": "unknown", "ok": False, "detail": "broker unreachable"}
    ok = db_ok and broker_ok
    return (200 if ok else 503), {"ok": ok, "database": db_msg, "broker": broker_msg, "worker": worker}


def public(body: dict[str, Any]) -> dict[str, Any]:
    """The report without names (workers, queue) and error details, for callers who are not admins."""
    worker = body.get("worker", {})
    return {
        "ok": body["ok"],
        "database": body["database"].split(":")[0],
        "broker": body["broker"].split(":")[0].split(" (")[0],
        "worker": {key: worker.get(key) for key in ("state", "ok", "age_seconds")},
    }


def _iso(unix: float) -> str:
    return dt.datetime.fromtimestamp(unix, dt.UTC).isoformat(timespec="seconds")


# ---- what the dashboard says ----------------------------------------------------------------------


def figures_freshness(state: Any, computed_at: dt.datetime | None) -> dict[str, Any]:
    """Whether the dashboard's figures are stale, how old they are and why.

    Stale when no worker has answered for WORKER_STALE_SECONDS (nothing will update them), when the
    task queue refused the last change (`enqueue_failed`), or when they miss a change and lag: a
    computation has run longer than AGREEMENT_LAG_SECONDS, or the newest change is over 10 s old, the
    figures older than AGREEMENT_LAG_SECONDS and no computation runs (the queue is held up)."""

    now = timezone.now()
    age = None if computed_at is None else (now - computed_at).total_seconds()
    reason = _worker_reason(settings.REDIS_URL)
    if reason is None and state is not None:
        reason = _lag_reason(state, now, age)
    return {"stale": reason is not None, "reason": reason or "", "age_seconds": age}


def _in_process() -> bool:
    """Tasks run inside the requesting process (no REDIS_URL, or Celery told to run them eagerly)."""

    return bool(current_app.conf.task_always_eager)


def _worker_reason(redis_url: str) -> str | None:
    worker = worker_status("" if _in_process() else redis_url, _queue())
    if worker["state"] in ("ok", "in-process"):
        return None
    if worker["state"] == "none":
        return "no worker has answered yet"
    if worker["state"] == "unknown":
        return "the task queue does not answer"
    return f"no worker has answered for {_duration(worker['age_seconds'])}"


def _lag_reason(state: Any, now: dt.datetime, age: float | None) -> str | None:
    if state.enqueue_failed:
        return "the task queue was unreachable when annotations were saved"
    if not state.is_behind:
        return None
    running = state.started_at is not None and (
        state.finished_at is None or state.started_at > state.finished_at
    )
    if running:
        ran = (now - state.started_at).total_seconds()
        return f"a computation has run for {_duration(ran)}" if ran > settings.AGREEMENT_LAG_SECONDS else None
    waited = (now - state.changed_at).total_seconds()
    if waited > 10 and (age is None or age > settings.AGREEMENT_LAG_SECONDS):
        return f"changes saved {_duration(waited)} ago wait for a busy worker"
    return None


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


# ---- the worker container's health check (no Django) ----------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """`python -m annotator.core.health --worker celery@HOST`: exit 0 when that worker (or, without
    --worker, any worker of CELERY_QUEUE) beat within WORKER_STALE_SECONDS; print the status as JSON."""

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--worker", help="the worker's name (celery@hostname); default: any worker")
    args = parser.parse_args(argv)
    url = os.environ.get("REDIS_URL", "")
    status = worker_status(url, os.environ.get("CELERY_QUEUE", "workbench"))
    if args.worker and url and status["state"] != "unknown":
        age = status["workers"].get(args.worker)
        status["ok"] = age is not None and age <= STALE_SECONDS
    print(json.dumps(status))
    return 0 if status["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
