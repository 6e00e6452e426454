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


def _transient_errors() -> tuple[type[BaseException], ...]:
    """Errors worth retrying: the database or the broker/cache went away for a moment."""
    from django.db import InterfaceError, OperationalError
    from kombu.exceptions import OperationalError as BrokerOperationalError
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return (
        ConnectionError,
        OperationalError,
        InterfaceError,
        BrokerOperationalError,
        RedisConnectionError,
        RedisTimeoutError,
    )


@shared_task(
    name="annotator.recompute_agreement",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=_transient_errors(),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def recompute_agreement(self: object, project_id: int) -> str | None:
    """Recompute and store the project's AgreementSnapshot (no-op when the inputs' fingerprint is unchanged).

    Transient errors are retried with back-off; any other exception is a bug: it is recorded in
    `AgreementState.last_error` and the task fails once.
    """
    from .agreement import recompute

    return recompute(project_id)


@shared_task(
    name="annotator.queue_reannotation",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=_transient_errors(),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def queue_reannotation(
    self: object, project_id: int, rule: str, params: dict, seed: int, actor_id: int | None = None
) -> int | None:
    """Draw a re-annotation round by `rule` and queue its pairs back to their annotators.

    Idempotent: run again on unchanged annotations (e.g. after a killed worker) it finds the round it
    stored and queues nothing twice. Returns the round number; a deleted project is logged and skipped.
    """
    from django.contrib.auth import get_user_model

    from .models import Project
    from .services.reannotation import queue_reannotation as queue

    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        log.info("queue_reannotation: project %s no longer exists; skipped", project_id)
        return None
    actor = get_user_model().objects.filter(pk=actor_id).first() if actor_id else None
    return queue(project, rule, params, seed=seed, actor=actor).round


@shared_task(
    name="annotator.build_reevaluation_sets",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=_transient_errors(),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def build_reevaluation_sets(project_id: int, seed: int = 0) -> int | None:
    """Draw every rater's re-evaluation sets (metrics.reeval) and give them their round-1 units.

    Idempotent: the same seed on the same judgements stores the same sets and creates no new work.
    Returns the number of round-1 assignments created; a deleted project is logged and skipped.
    """
    from .models import Project
    from .services.reevaluation import build_reevaluation_sets as build

    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        log.info("build_reevaluation_sets: project %s no longer exists; skipped", project_id)
        return None
    return build(project, seed)


from .corpus_jobs import run_export_job, run_import_job  # noqa: E402,F401


@shared_task(
    name="annotator.train_aligner",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=_transient_errors(),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def train_aligner(self: object, run_id: int) -> str | None:
    """Train the project's statistical aligner and store its initial alignments (one `AlignerRun`).

    A finished run is not run again (a re-delivered task changes nothing); a deleted one is skipped.
    """
    from .corpus.aligner_training import run_training

    return run_training(run_id)


@shared_task(
    name="annotator.parse_trees",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=_transient_errors(),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def parse_trees(self: object, project_id: int, backend: str = "spacy") -> dict | None:
    """Parse the members of the project's pairs that have no imported tree (`corpus.tree_parsing`)."""
    from .corpus.tree_parsing import parse_missing_trees
    from .models import Project

    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        import logging

        logging.getLogger(__name__).warning("project %s no longer exists; tree parsing skipped", project_id)
        return None
    return parse_missing_trees(project, backend=backend)
