"""Telling the agreement pipeline that a project's annotations changed.

Called inside the transaction that changed the data; the Celery task is enqueued only after commit so
a worker never reads uncommitted rows, and only by the change that made the project dirty
(`annotator.agreement.scheduling`: coalescing).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction
from django.utils import timezone

import annotator.agreement.scheduling as scheduling
from annotator.models import AgreementState

log = logging.getLogger(__name__)
_batch = threading.local()


@contextmanager
def batched() -> Iterator[set[int]]:
    """Within the block, changes are only recorded; the caller recomputes the collected projects once.

    For bulk loads (demo, imports) where a recompute after each of hundreds of saves would be wasted.
    """
    outer = getattr(_batch, "projects", None)
    _batch.projects = outer if outer is not None else set()
    try:
        yield _batch.projects
    finally:
        if outer is None:
            _batch.projects = None


def project_changed(project_id: int, pair_id: int | None = None) -> None:
    """Record that the project changed and enqueue a recompute once the transaction commits.

    `pair_id`: the one pair whose annotations changed (None: anything may have changed); the computation
    reads the whole document either way. The change mark (`mark_changed`) also says whether this change
    made the project dirty, and only then is the task sent. Within `batched` the change is only
    recorded: the caller sends the recompute.
    """
    now = timezone.now()
    dirtied = mark_changed(project_id, now)
    if dirtied is None:
        _, dirtied = AgreementState.objects.get_or_create(
            project_id=project_id, defaults={"changed_at": now, "queued_at": now}
        )
    collected = getattr(_batch, "projects", None)
    if collected is not None:
        collected.add(project_id)
        return
    if dirtied:  # otherwise a task is waiting already and reads this change too
        transaction.on_commit(lambda: enqueue_recompute(project_id))


def mark_changed(project_id: int, now: dt.datetime) -> bool | None:
    """Mark the project changed at `now` (`AgreementState.changed_at`) and dirty since `now` unless it
    is dirty already (`queued_at` keeps the time of the first change no computation has started on);
    returns whether this change made it dirty (its save sends the task), None when the project has no
    agreement state yet.

    One UPDATE while a task waits (the usual case under load: the project stays dirty until its
    computation starts), two when the project was clean. Either UPDATE that matches locks the row until
    the save commits, so a computation starting meanwhile (`scheduling.take_queued`, an UPDATE of the
    same row) waits for the save and reads it. When the first finds the project clean and the second
    finds it dirty (another save dirtied it in between), the first is tried again."""
    rows = AgreementState.objects.filter(project_id=project_id)
    while True:
        if rows.filter(queued_at__isnull=False).update(changed_at=now):
            return False
        if rows.filter(queued_at__isnull=True).update(changed_at=now, queued_at=now):
            return True
        if not rows.exists():
            return None


def enqueue_recompute(project_id: int) -> bool:
    """Send the recompute task now (after the changes of a batch, or a bulk change, committed); if the
    broker is down, the project is marked so that the periodic catch-up re-sends it. Returns whether it
    was sent."""
    AgreementState.objects.filter(project_id=project_id, queued_at__isnull=True).update(
        queued_at=timezone.now()
    )
    return scheduling.send_after_change(project_id)
