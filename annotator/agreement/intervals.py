"""When the confidence intervals of a project's figures are computed: the sending of the intervals task.

The task (`INTERVALS_TASK`, `computation.compute_intervals`) computes the 95 % intervals of the current
figures and stores them with the figures' fingerprint (`current.figures_fingerprint`). Every computation,
once it is over, calls `send_intervals`: when the figures it leaves are final and have no intervals of
their own, and no further save waits for a recompute (that recompute calls it again), the task is due.

- Without a broker the task runs at once (`taskqueue.enqueue` runs it in the caller).
- With a broker at most one task per project is sent per window (`window`:
  AGREEMENT_REPORT_INTERVAL_SECONDS). A project is either not due — then the computation sends the task
  at once and leaves the project due at the window's end — or due at the end of the window of the task
  sent last: then the computation leaves it so. When a project is due is a column of its agreement
  state row (`AgreementState.intervals_due_at`), not a delayed (ETA) task. The Celery beat task
  `annotator.send_due_agreement_intervals` (every `BEAT_SECONDS`, 2 s) looks at the
  projects that are due (`send_due`): one whose figures still have no intervals of their own gets its
  task and is due again a window later; the others are no longer due. So the figures of the last
  computation get their intervals at most a window, a beat period and the task's own time after it, a
  stream of saves computes them at most once per window, a lost task is sent again at its window's end,
  and no message waits in the broker or in a worker. (A worker that holds a delayed task,
  unacknowledged, when the Redis broker goes away dies on restoring it — kombu 5.7 — and no recompute
  follows once the broker is back; for the same reason the intervals task is acknowledged when it
  starts, `annotator.tasks.compute_agreement_intervals`.)
- Without a broker the task runs in the web process. A computation outside a web request (a command, the
  demo's load) runs it at once. A computation that a save left for after its response (`taskqueue`:
  `after_response`) does not: that thread serves the annotator's browser connection, whose next save
  would wait seconds behind the intervals. The lead's dashboard asks for them instead (`ask`, a POST
  while its figures show "intervals updating"), and the task runs after the response of that request,
  in the lead's thread: when no save came for `QUIET_SECONDS`, or once per window under a stream of
  saves, or at once when the lead presses "compute the intervals now".
"""

from __future__ import annotations

import datetime as dt
import logging
import time

from django.conf import settings

from annotator import taskqueue
from annotator.agreement import current
from annotator.agreement.scheduling import is_queued
from annotator.models import AgreementState

log = logging.getLogger(__name__)

INTERVALS_TASK = "annotator.compute_agreement_intervals"
#: How often Celery beat sends the intervals tasks that are due (the beat schedule in settings).
BEAT_SECONDS = 2.0
#: How soon a project whose task the broker refused is due again.
POLL_SECONDS = 1.0
#: Seconds without a save after which the saves count as stopped: a dashboard's ask sends the task.
QUIET_SECONDS = 10.0


def window() -> float:
    """At most one intervals task per project and this many seconds (AGREEMENT_REPORT_INTERVAL_SECONDS,
    the report cadence; 0: no limit)."""
    return max(float(settings.AGREEMENT_REPORT_INTERVAL_SECONDS), 0.0)


def _more_saves_wait(project_id: int) -> bool:
    """Whether a recompute of the project follows (changes wait for one): it sends instead."""
    return is_queued(project_id)


def send_intervals(project_id: int) -> str:
    """After a computation: send the intervals task of the figures it left, or leave it due.

    Returns "none" (no final figures, they have their intervals, or a recompute follows), "sent", "due"
    (the project is due already: a worker's `send_due` sends its task at the end of the window),
    "asked" (without a broker, in the work a save left for after its response: the lead's dashboard
    asks for them, `ask`) or "failed" (the broker or the cache cannot be reached, or fail in any other
    way: logged, never raised into the computation; a project left due is looked at again at the end of
    its window, and the next computation tries again)."""
    try:
        if _more_saves_wait(project_id):  # first: under a stream of saves, nothing else is read
            return "none"
        in_process = taskqueue.runs_in_process()
        if in_process and taskqueue.in_request():
            return "asked"  # not in the thread of the annotator's connection
        figures = current.figures_fingerprint(project_id)
        if figures is None or current.intervals_fingerprint(project_id) == figures:
            return "none"
        limit = window()
        if in_process or limit <= 0:
            taskqueue.enqueue(INTERVALS_TASK, project_id, figures)
            return "sent"
        if not _due_store().add(project_id, time.time() + limit):
            return "due"  # a task was sent within the window: the window's end looks again
        taskqueue.enqueue(INTERVALS_TASK, project_id, figures)
        return "sent"
    except Exception as exc:  # the broker or the cache in any state: never fail the computation
        log.warning("intervals of project %s not sent: %s", project_id, exc)
        return "failed"


def ask(project_id: int, *, at_once: bool = False, now: float | None = None) -> str:
    """The lead's dashboard asks for the intervals of the current figures (a POST, never a GET).

    `at_once` (the lead's "compute the intervals now") sends the task whatever the window. Otherwise (the
    dashboard asks every few seconds while its figures show "intervals updating") the task is sent when
    the saves have stopped — none for `QUIET_SECONDS` since the task was last sent — or when the window
    of the last task is over, and only by one of the dashboards that ask (the project's due time is
    taken by a compare-and-set: `_Due.claim`). The task runs after the response of the request that
    asked (without a broker, in that request's thread, not in an annotator's).

    Returns "none" (no final figures, or they have their intervals), "sent", "waiting" (saves still come
    within the window, or another dashboard's ask sent the task) or "failed" (the broker cannot be
    reached: logged)."""
    now = time.time() if now is None else now
    figures = current.figures_fingerprint(project_id)
    if figures is None or current.intervals_fingerprint(project_id) == figures:
        return "none"
    if not at_once and not _due_store().claim(project_id, now, window()):
        return "waiting"
    if at_once:
        _due_store().take(project_id)
        _due_store().add(project_id, now + window())
    try:
        taskqueue.enqueue(INTERVALS_TASK, project_id, figures, after_response=True)
    except taskqueue.QueueUnavailable:
        return "failed"  # (logged by enqueue) the next ask, or the window's end, sends again
    return "sent"


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


def due_projects() -> dict[int, float]:
    """The projects whose intervals task is due: id → when (epoch seconds)."""
    return _due_store().all()


class _Due:
    """When each project's intervals task is due: `AgreementState.intervals_due_at`."""

    def add(self, project_id: int, at: float) -> bool:
        """Whether the project was not due yet (its due time stays otherwise)."""
        AgreementState.objects.get_or_create(project_id=project_id)
        rows = AgreementState.objects.filter(project_id=project_id, intervals_due_at__isnull=True)
        return bool(rows.update(intervals_due_at=_at(at)))

    def claim(self, project_id: int, now: float, limit: float) -> bool:
        """Take the right to send the project's task now, for the caller alone, and leave the project due
        `limit` seconds later: when no task was sent (not due), when the window of the last one is over
        (due by `now`), or when the saves stopped (the last one, `AgreementState.changed_at`, is more
        than QUIET_SECONDS old and came after the last task was sent, `limit` before its due time)."""
        state = AgreementState.objects.filter(project_id=project_id).values_list(
            "intervals_due_at", "changed_at"
        )
        due_at, changed_at = state.first() or (None, None)
        if due_at is not None and due_at > _at(now):
            sent_at = due_at - dt.timedelta(seconds=limit)
            quiet = changed_at is not None and sent_at < changed_at <= _at(now - QUIET_SECONDS)
            if not quiet:
                return False
        AgreementState.objects.get_or_create(project_id=project_id)
        return self.replace(project_id, due_at, _at(now + limit))

    def replace(self, project_id: int, seen: dt.datetime | None, at: dt.datetime) -> bool:
        """Set the project's due time to `at` if it is still `seen` (what the caller read): of the
        callers that read the same, one sets it."""
        rows = AgreementState.objects.filter(project_id=project_id)
        rows = rows.filter(intervals_due_at=seen) if seen is not None else rows.filter(intervals_due_at=None)
        return bool(rows.update(intervals_due_at=at))

    def due(self, now: float) -> list[int]:
        rows = AgreementState.objects.filter(intervals_due_at__lte=_at(now)).order_by("project_id")
        return list(rows.values_list("project_id", flat=True))

    def take(self, project_id: int) -> bool:
        rows = AgreementState.objects.filter(project_id=project_id, intervals_due_at__isnull=False)
        return bool(rows.update(intervals_due_at=None))

    def all(self) -> dict[int, float]:
        rows = AgreementState.objects.filter(intervals_due_at__isnull=False)
        pairs = rows.values_list("project_id", "intervals_due_at")
        return {pk: at.timestamp() for pk, at in pairs if at is not None}


def _at(epoch: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch, tz=dt.UTC)


def _due_store() -> _Due:
    return _Due()
