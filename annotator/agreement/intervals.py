"""When the confidence intervals of a project's figures are computed: the sending of the intervals task.

The task (`INTERVALS_TASK`, `computation.compute_intervals`) computes the 95 % intervals of the current
figures and stores them with the figures' fingerprint (`current.figures_fingerprint`). Every computation,
once it is over, calls `send_intervals`: when the figures it leaves are final and have no intervals of
their own, and no further save waits for a recompute (that recompute calls it again), the task is due.

- Without a broker the task runs at once (`taskqueue.enqueue` runs it in the caller).
- With a broker at most one task per project is sent per window (`window`:
  AGREEMENT_REPORT_INTERVAL_SECONDS). A project is either not due — then the computation sends the task
  at once and leaves the project due at the window's end — or due at the end of the window of the task
  sent last: then the computation leaves it so. The due projects are a sorted set of the cache's Redis
  (`DUE_KEY`), not delayed (ETA) tasks. A thread of every worker's main process (`start_due_sender`)
  looks at the projects that are due every `POLL_SECONDS` (`send_due`): one whose figures still have no
  intervals of their own gets its task and is due again a window later; the others are no longer due.
  So the figures of the last computation get their intervals at most a window, `POLL_SECONDS` and the
  task's own time after it, a stream of saves computes them at most once per window, a lost task is
  sent again at its window's end, and no message waits in the broker or in a worker. (A worker that
  holds a delayed task, unacknowledged, when the Redis broker goes away dies on restoring it — kombu
  5.7 — and no recompute follows once the broker is back; for the same reason the intervals task is
  acknowledged when it starts, `annotator.tasks.compute_agreement_intervals`.)
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from celery import signals
from django.conf import settings
from django.core.cache import cache
from django.db import connection

from annotator import taskqueue
from annotator.agreement import current
from annotator.agreement.scheduling import RERUN_KEY, SCHEDULED_KEY, setting

log = logging.getLogger(__name__)

INTERVALS_TASK = "annotator.compute_agreement_intervals"
#: The projects whose intervals task is due later: a Redis sorted set, project id → when (epoch seconds).
DUE_KEY = "agreement:intervals:due"
#: How often a worker looks for projects whose intervals task is due.
POLL_SECONDS = 1.0


def window() -> float:
    """At most one intervals task per project and this many seconds (AGREEMENT_REPORT_INTERVAL_SECONDS,
    the report cadence; 0: no limit)."""
    return max(float(setting("AGREEMENT_REPORT_INTERVAL_SECONDS", 60)), 0.0)


def _more_saves_wait(project_id: int) -> bool:
    """Whether a recompute of the project follows (a rerun mark, or one scheduled): it sends instead."""
    return bool(cache.get(RERUN_KEY.format(project_id)) or cache.get(SCHEDULED_KEY.format(project_id)))


def send_intervals(project_id: int) -> str:
    """After a computation: send the intervals task of the figures it left, or leave it due.

    Returns "none" (no final figures, they have their intervals, or a recompute follows), "sent", "due"
    (the project is due already: a worker's `send_due` sends its task at the end of the window) or
    "failed" (the broker or the cache cannot be reached, or fail in any other way: logged, never raised
    into the computation; a project left due is looked at again at the end of its window, and the next
    computation tries again)."""
    try:
        if _more_saves_wait(project_id):  # first: under a stream of saves, nothing else is read
            return "none"
        figures = current.figures_fingerprint(project_id)
        if figures is None or current.intervals_fingerprint(project_id) == figures:
            return "none"
        limit = window()
        if taskqueue.runs_in_process() or limit <= 0:
            taskqueue.enqueue(INTERVALS_TASK, project_id, figures)
            return "sent"
        if not _due_store().add(project_id, time.time() + limit):
            return "due"  # a task was sent within the window: the window's end looks again
        taskqueue.enqueue(INTERVALS_TASK, project_id, figures)
        return "sent"
    except Exception as exc:  # the broker or the cache in any state: never fail the computation
        log.warning("intervals of project %s not sent: %s", project_id, exc)
        return "failed"


def send_due(now: float | None = None) -> list[int]:
    """Look at every project due by `now` (`DUE_KEY`; each taken by one caller only): when its figures
    are final and still without intervals of their own, send its intervals task and leave it due again a
    window later (so a lost task is sent again, and the figures of later computations wait for that
    window's end); otherwise it is no longer due. Returns the ids of the projects whose task was sent.
    A project whose task the broker refuses is due again in `POLL_SECONDS`."""
    now = time.time() if now is None else now
    store = _due_store()
    sent: list[int] = []
    for project_id in store.due(now):
        figures = current.figures_fingerprint(project_id)
        if not store.take(project_id):
            continue  # another worker took it
        if figures is None or current.intervals_fingerprint(project_id) == figures:
            continue  # computed (or nothing final to compute): the next computation sends at once
        store.add(project_id, now + window())
        try:
            taskqueue.enqueue(INTERVALS_TASK, project_id)
        except taskqueue.QueueUnavailable:
            store.take(project_id)
            store.add(project_id, now + POLL_SECONDS)
            raise
        sent.append(project_id)
    return sent


def start_due_sender() -> threading.Thread:
    """Run `send_due` every `POLL_SECONDS` from a daemon thread of the worker's main process."""

    def run() -> None:
        while True:
            try:
                if due_projects_by(time.time()):
                    send_due()
            except Exception as exc:  # the broker, the cache or the database is down: next round
                log.warning("due intervals tasks not sent: %s", exc)
            finally:
                connection.close()  # this thread's database connection, if it opened one
            time.sleep(POLL_SECONDS)

    thread = threading.Thread(target=run, name="workbench-intervals", daemon=True)
    thread.start()
    return thread


@signals.worker_ready.connect
def _start_with_the_worker(**_: object) -> None:
    """Every worker (it has a broker: REDIS_URL) runs `start_due_sender`, as it writes its heartbeat."""
    if settings.REDIS_URL:
        start_due_sender()


def due_projects() -> dict[int, float]:
    """The projects whose intervals task is due: id → when (epoch seconds)."""
    return _due_store().all()


def due_projects_by(now: float) -> list[int]:
    """The projects due by `now` (one small read of the cache, no database)."""
    return _due_store().due(now)


class _RedisDue:
    """`DUE_KEY` as a sorted set of the cache's Redis (one set for every process)."""

    def __init__(self, client: Any) -> None:
        self.client, self.key = client, cache.make_and_validate_key(DUE_KEY)

    def add(self, project_id: int, at: float) -> bool:
        """Whether the project was not due yet (its due time stays otherwise)."""
        return bool(self.client.zadd(self.key, {str(project_id): at}, nx=True))

    def due(self, now: float) -> list[int]:
        return [int(member) for member in self.client.zrangebyscore(self.key, "-inf", now)]

    def take(self, project_id: int) -> bool:
        return bool(self.client.zrem(self.key, str(project_id)))

    def all(self) -> dict[int, float]:
        return {int(member): float(at) for member, at in self.client.zrange(self.key, 0, -1, withscores=True)}


class _CacheDue:
    """`DUE_KEY` as one cache entry (a cache other than Redis: one process, as in the tests)."""

    def add(self, project_id: int, at: float) -> bool:
        due = self.all()
        if project_id in due:
            return False
        due[project_id] = at
        cache.set(DUE_KEY, due, timeout=None)
        return True

    def due(self, now: float) -> list[int]:
        return sorted(pk for pk, at in self.all().items() if at <= now)

    def take(self, project_id: int) -> bool:
        due = self.all()
        taken = due.pop(project_id, None) is not None
        cache.set(DUE_KEY, due, timeout=None)
        return taken

    def all(self) -> dict[int, float]:
        return dict(cache.get(DUE_KEY) or {})


def _due_store() -> _RedisDue | _CacheDue:
    backend: Any = getattr(cache, "_cache", None)
    if hasattr(backend, "get_client"):  # Django's RedisCache
        return _RedisDue(backend.get_client(write=True))
    return _CacheDue()
