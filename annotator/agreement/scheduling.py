"""Scheduling of agreement recomputes, from the database and Celery alone.

- Coalescing. `AgreementState.queued_at` is the project's "dirty since": the save that finds it empty
  sets it (in the save's transaction, with the change mark, `changes.mark_changed`) and
  sends the task `annotator.recompute_agreement` when it commits, `COALESCE_SECONDS` later; the saves
  that follow find it set and send nothing. The task, once it holds the project, clears it and then
  reads the project's document: a change committed before the clear is read by this computation, one
  committed after it sends a fresh task.
- One computation per project at a time (`project_lock`): on PostgreSQL a session advisory lock, which
  the server releases when the worker's connection goes (a killed worker holds nothing); elsewhere
  (SQLite: one writer at a time) the computation is one transaction. A task that finds the project busy
  is retried by Celery after `BUSY_RETRY_SECONDS` (the task's own `retry`).
- Failures: tasks are acknowledged late and rejected when their worker is lost, so the broker delivers a
  killed worker's task again. If the broker is down when a save commits, the project is marked
  `enqueue_failed` and its `queued_at` cleared (the next save sends again); the periodic task
  `annotator.catch_up_agreement` (Celery beat, `CELERY_BEAT_SCHEDULE`) re-sends the recompute of every
  project whose enqueue failed or that has been dirty for `LOST_AFTER_SECONDS` without a task
  starting (`catch_up`).
- Without a broker (the embedded default) the task runs where it is sent: in the request that saved,
  after its response has been sent (`taskqueue`: `after_response`), or at once outside a request; a
  computation that finds changes committed meanwhile by a request
  it kept waiting runs again (`computation.recompute`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from annotator import taskqueue
from annotator.core import sql
from annotator.models import AgreementState

log = logging.getLogger(__name__)

TASK = "annotator.recompute_agreement"
#: Seconds a sent recompute waits before it starts: the saves of a burst join it.
COALESCE_SECONDS = 0.3
#: Seconds after which a task that found the project busy is tried again.
BUSY_RETRY_SECONDS = 1.0
#: Seconds after which a project dirty for longer, its task not started, is sent again by the catch-up
#: (a task lost with its broker, or changes recorded in bulk that nobody sent).
LOST_AFTER_SECONDS = 60
ADVISORY_LOCK_CLASS = 0x5041_5257  # "PARW": namespace of the advisory locks of this pipeline


def schedule(project_id: int) -> None:
    """Send the project's recompute task (it starts `COALESCE_SECONDS` later); without a broker run it
    in this process — after the response when a web request sent it, otherwise now. A failure there is
    recorded in `AgreementState.last_error` by the computation and logged, not raised into the save that
    asked for it. Raises `taskqueue.QueueUnavailable` when the broker cannot be reached."""
    if taskqueue.runs_in_process():
        try:
            taskqueue.enqueue(TASK, project_id, after_response=True)
        except Exception:
            log.exception("in-process recompute of project %s failed", project_id)
        return
    taskqueue.enqueue(TASK, project_id, countdown=COALESCE_SECONDS)


def send_after_change(project_id: int) -> bool:
    """Send the recompute a committed change asked for; when the broker is down, mark the project
    `enqueue_failed` and clear its `queued_at` (the next change, or the catch-up task, sends again).
    Returns whether it was sent."""
    try:
        schedule(project_id)
    except taskqueue.QueueUnavailable as exc:  # the save stands, dashboards are behind
        log.warning("could not enqueue recompute of project %s: %s", project_id, exc)
        AgreementState.objects.filter(project_id=project_id).update(enqueue_failed=True, queued_at=None)
        return False
    return True


def catch_up() -> int:
    """Re-send the recompute of every project that no task will compute: its enqueue failed (the broker
    was down), or it has been dirty for `LOST_AFTER_SECONDS` without a task starting (a task lost with
    its broker, or changes recorded in bulk that nobody sent). The body of the periodic task
    `annotator.catch_up_agreement`; returns how many projects it sent. A computation in progress may get
    one more task: it waits for the lock and finds nothing left to do."""
    lost = timezone.now() - dt.timedelta(seconds=LOST_AFTER_SECONDS)
    behind = AgreementState.objects.filter(enqueue_failed=True) | AgreementState.objects.filter(
        queued_at__lt=lost
    )
    waiting = set(behind.values_list("project_id", flat=True))
    sent = 0
    for project_id in sorted(waiting):
        AgreementState.objects.filter(project_id=project_id).update(queued_at=timezone.now())
        if not send_after_change(project_id):
            break  # the broker is still down: the next round tries again
        AgreementState.objects.filter(project_id=project_id).update(enqueue_failed=False)
        sent += 1
    return sent


def take_queued(project_id: int) -> None:
    """The computation holding the project starts: the project is clean again (a change committed from
    here on sends a fresh task) and any failed enqueue is made good."""
    now = timezone.now()
    # started after every change it reads: a change committed before this statement (its row lock
    # waited for) may carry a time later than this process's clock
    started = Greatest(Value(now), Coalesce(F("changed_at"), Value(now)) + dt.timedelta(microseconds=1))
    if not AgreementState.objects.filter(project_id=project_id).update(
        started_at=started, queued_at=None, enqueue_failed=False
    ):
        AgreementState.objects.get_or_create(project_id=project_id, defaults={"started_at": now})


def is_queued(project_id: int) -> bool:
    """Whether a change is waiting for a computation that has not started."""
    return AgreementState.objects.filter(project_id=project_id, queued_at__isnull=False).exists()


@contextmanager
def project_lock(project_id: int) -> Iterator[bool]:
    """Hold the exclusive right to compute the project within the block; yields False (and holds
    nothing) when another computation holds it. PostgreSQL: a session advisory lock, released at the end
    of the block or by the server when the connection is gone. Other databases: the block is one
    transaction (SQLite lets one writer in at a time)."""
    if connection.vendor != "postgresql":
        with transaction.atomic():
            yield True
        return
    if not sql.try_advisory_lock(ADVISORY_LOCK_CLASS, project_id):
        yield False
        return
    try:
        yield True
    finally:
        sql.advisory_unlock(ADVISORY_LOCK_CLASS, project_id)
