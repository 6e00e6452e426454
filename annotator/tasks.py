"""Celery tasks: ids in; load → compute with a pure `metrics` call → store. Idempotent."""

from __future__ import annotations

import logging

from celery import shared_task

log = logging.getLogger(__name__)


@shared_task(name="annotator.ping")
def ping(value: str) -> str:
    """A trivial round trip used by the health check and the service tests to prove a worker runs."""
    return f"pong:{value}"


def schedule_recompute(project_id: int) -> None:
    """Enqueue a recompute of the project's agreement (coalescing lives in `annotator.agreement`)."""
    from .agreement import schedule

    schedule(project_id)


@shared_task(
    name="annotator.recompute_agreement",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ConnectionError,),
    retry_backoff=True,
    max_retries=5,
)
def recompute_agreement(self: object, project_id: int) -> str | None:
    """Recompute and store the project's AgreementSnapshot (no-op when the inputs' fingerprint is unchanged)."""
    from .agreement import recompute

    return recompute(project_id)


@shared_task(
    name="annotator.build_reevaluation_sets",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ConnectionError,),
    retry_backoff=True,
    max_retries=5,
)
def build_reevaluation_sets(project_id: int, seed: int = 0) -> int | None:
    """Draw every rater's re-evaluation sets (metrics.reeval) and give them their round-1 units.

    Idempotent: the same seed on the same judgements stores the same sets and creates no new work.
    Returns the number of round-1 assignments created; a deleted project is logged and skipped.
    """
    from django.db import OperationalError

    from .models import Project
    from .services.reevaluation import build_reevaluation_sets as build

    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        log.info("build_reevaluation_sets: project %s no longer exists", project_id)
        return None
    try:
        return build(project, seed)
    except OperationalError as exc:  # transient database trouble: let Celery retry
        raise ConnectionError(str(exc)) from exc
