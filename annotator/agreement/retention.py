"""Which full agreement reports are kept: the retention policy, pinning, and the task body that prunes.

Every computation leaves a small `AgreementHeadline` row (kept for good: the trend needs nothing more)
and rewrites the current agreement in place (`annotator.agreement.current`: the report's section rows
and a summary row). Full reports (`AgreementSnapshot` of scope "project": the measures, whose size
grows with the number of annotators, not of pairs — each pair's explorer values are kept on its state
row) are stored at a bounded cadence (`annotator.agreement.computation.report_due`: after a full
computation, when κ_C becomes final, otherwise at most one per `AGREEMENT_REPORT_INTERVAL_SECONDS`
while changes stream in; on demand when a lead pins the current agreement), and thinned out by age:

- every report of the last `AGREEMENT_RETENTION_ALL_SECONDS` (default one hour);
- the newest report of each clock hour (UTC) for `AGREEMENT_RETENTION_HOURLY_DAYS` (default 7 days);
- the newest report of each day (UTC) after that;
- always the project's latest report and every pinned one (a lead pins a report from the dashboard,
  e.g. "reported in the paper").

Snapshots of other scopes (e.g. `before-reannotation-<n>`, which a re-annotation round refers to) are
never touched. `apply_retention` runs as the periodic Celery task `annotator.apply_agreement_retention`
(beat schedule in settings: `CELERY_BEAT_SCHEDULE`); in-process mode (no broker, no beat) runs it for
the project when a computation stored a full report (`computation._store`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotator.agreement import current
from annotator.models import (
    AgreementHeadline,
    AgreementSnapshot,
    Project,
)

log = logging.getLogger(__name__)

PROJECT_SCOPE = "project"
DELETE_BATCH = 500


class PinError(ValueError):
    """A pin or unpin that cannot be done (no such report of the project, note too long)."""


def reports_to_keep(
    reports: Iterable[tuple[int, dt.datetime, bool]],
    now: dt.datetime,
    *,
    keep_all: dt.timedelta = dt.timedelta(hours=1),
    hourly_for: dt.timedelta = dt.timedelta(days=7),
) -> set[int]:
    """The ids of the reports the policy keeps, from (id, computed_at, pinned) of one project's reports.

    Pure: keeps the latest report, every pinned one, every one newer than `now - keep_all`, the newest of
    each UTC hour newer than `now - hourly_for`, and the newest of each UTC day before that.
    """
    rows = sorted(reports, key=lambda r: (r[1], r[0]), reverse=True)  # newest first
    if not rows:
        return set()
    keep = {rows[0][0]}
    seen_buckets: set[tuple[str, dt.datetime]] = set()
    for pk, at, pinned in rows:
        age = now - at
        if pinned or age <= keep_all:
            keep.add(pk)
            continue
        utc = at.astimezone(dt.UTC)
        if age <= hourly_for:
            bucket = ("hour", utc.replace(minute=0, second=0, microsecond=0))
        else:
            bucket = ("day", utc.replace(hour=0, minute=0, second=0, microsecond=0))
        if bucket not in seen_buckets:  # newest first: the first of a bucket is its newest
            seen_buckets.add(bucket)
            keep.add(pk)
    return keep


def _policy_windows() -> tuple[dt.timedelta, dt.timedelta]:
    return (
        dt.timedelta(seconds=settings.AGREEMENT_RETENTION_ALL_SECONDS),
        dt.timedelta(days=settings.AGREEMENT_RETENTION_HOURLY_DAYS),
    )


def apply_retention(project_id: int | None = None, *, now: dt.datetime | None = None) -> int:
    """Delete the full reports the policy no longer keeps (of one project, or of all); returns how many.

    Reads only ids, times and pins (never the reports themselves). The latest report is read again
    inside the deleting transaction, so a report stored meanwhile is never the one removed as "latest".
    """
    now = now or timezone.now()
    keep_all, hourly_for = _policy_windows()
    projects = [project_id] if project_id is not None else list(Project.objects.values_list("pk", flat=True))
    deleted = 0
    for pk in projects:
        rows = list(
            AgreementSnapshot.objects.filter(project_id=pk, scope=PROJECT_SCOPE).values_list(
                "id", "computed_at", "pinned"
            )
        )
        doomed = sorted(
            {r[0] for r in rows} - reports_to_keep(rows, now, keep_all=keep_all, hourly_for=hourly_for)
        )
        for start in range(0, len(doomed), DELETE_BATCH):
            batch = doomed[start : start + DELETE_BATCH]
            with transaction.atomic():
                n, _ = AgreementSnapshot.objects.filter(pk__in=batch, pinned=False).delete()
            deleted += n
    if deleted:
        log.info("agreement retention: %d full report(s) deleted", deleted)
    return deleted


def pin(project: Project, snapshot_id: int, note: str) -> AgreementSnapshot:
    """Pin the project's report `snapshot_id` with a note (why it is kept); retention never deletes it."""
    note = note.strip()
    if len(note) > 200:
        raise PinError(f"The note is {len(note)} characters long; at most 200 are kept.")
    snapshot = AgreementSnapshot.objects.filter(project=project, pk=snapshot_id, scope=PROJECT_SCOPE).first()
    if snapshot is None:
        raise PinError(
            f"Report {snapshot_id} is not one of this project's stored reports (it may have been pruned)."
        )
    AgreementSnapshot.objects.filter(pk=snapshot.pk).update(pinned=True, pin_note=note or "pinned")
    snapshot.pinned, snapshot.pin_note = True, note or "pinned"
    return snapshot


def pin_computation(project: Project, computation_id: int, note: str) -> AgreementSnapshot:
    """Pin the full report of computation `computation_id` (its `AgreementHeadline` row): the report the
    cadence stored of it, or — for the current computation, when none was stored — one stored now."""
    row = AgreementHeadline.objects.filter(project=project, pk=computation_id).first()
    if row is None:
        raise PinError(f"Computation {computation_id} is not one of this project's computations.")
    if row.snapshot_id is None:
        now = current.current(project)
        if now is None or now.computation != row.pk:
            raise PinError(
                "The agreement has changed since that computation and its full report was not kept; "
                "pin the current one."
            )
        snapshot = current.current_report(project)
        assert snapshot is not None  # `now` exists
        return pin(project, snapshot.pk, note)
    return pin(project, row.snapshot_id, note)


def unpin(project: Project, snapshot_id: int) -> None:
    """Release a pin: the report falls under the retention policy again."""
    if not AgreementSnapshot.objects.filter(project=project, pk=snapshot_id).update(
        pinned=False, pin_note=""
    ):
        raise PinError(f"Report {snapshot_id} is not one of this project's stored reports.")


def pinned_reports(project: Project) -> list[dict[str, Any]]:
    """The project's pinned reports, newest first: id, time, note (no report bodies are read)."""
    rows = (
        AgreementSnapshot.objects.filter(project=project, scope=PROJECT_SCOPE, pinned=True)
        .order_by("-computed_at", "-id")
        .values_list("id", "computed_at", "pin_note")
    )
    return [{"id": pk, "computed_at": when, "pin_note": note} for pk, when, note in rows]
