"""Celery entry points only: ids in; load → compute (a pure `metrics` call, or a service) → store.

Nothing imports this module: work is sent by task name through `annotator.taskqueue`, and Celery's
autodiscovery registers these tasks in the worker (and in-process, on the first `enqueue`).
Every task is idempotent; a deleted object is logged and skipped; transient errors (the database or the
broker went away for a moment) are retried with back-off, anything else is a bug that fails once.
"""

from __future__ import annotations

import logging

from celery import Task, shared_task
from django.contrib.auth import get_user_model
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from annotator.agreement import computation, kappa_c_chunks, retention, scheduling
from annotator.agreement.statistics import compute_statistics as compute_project_statistics
from annotator.annotation import recommender
from annotator.corpus import aligner_training, jobs, tree_parsing
from annotator.corpus.retention import clean_up
from annotator.evaluation import lexicon_jobs
from annotator.evaluation.reevaluation import build_reevaluation_sets as build_sets
from annotator.leadtools import explorer_rows, planning
from annotator.leadtools.reannotation import queue_reannotation as queue_round
from annotator.models import Project

log = logging.getLogger(__name__)

#: Errors worth retrying: the database or the broker/cache went away for a moment.
TRANSIENT_ERRORS = (
    ConnectionError,
    OperationalError,
    InterfaceError,
    BrokerOperationalError,
    RedisConnectionError,
    RedisTimeoutError,
)
RETRYING = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "max_retries": 5,
}


@shared_task(name="annotator.ping")
def ping(value: str) -> str:
    """A trivial round trip used by the health check and the service tests to prove a worker runs."""
    return f"pong:{value}"


@shared_task(name="annotator.recompute_agreement", bind=True, **RETRYING)
def recompute_agreement(self: Task, project_id: int) -> str:
    """Recompute and store the project's current agreement (`computation.recompute`; "unchanged" when
    nothing changed). A task that finds another computation of the project running is retried by Celery
    after `scheduling.BUSY_RETRY_SECONDS`, as often as it takes. Any exception other than a transient
    one is a bug: it is recorded in `AgreementState.last_error` and the task fails once.
    """
    return _recompute(self, project_id)


def _recompute(task: Task, project_id: int) -> str:
    # a delivery after its worker was lost (the broker restored the unacknowledged task)
    redelivered = bool((task.request.delivery_info or {}).get("redelivered"))
    outcome = computation.recompute(project_id, redelivered=redelivered)
    if outcome == "busy" and not task.request.is_eager:
        raise task.retry(countdown=scheduling.BUSY_RETRY_SECONDS, max_retries=None)
    return outcome


@shared_task(name="annotator.catch_up_agreement", **RETRYING)
def catch_up_agreement() -> int:
    """Periodic (Celery beat, `CELERY_BEAT_SCHEDULE`): re-send the recomputes the broker refused while
    it was down, or that no task waits for (`scheduling.catch_up`); returns how many were sent."""
    return scheduling.catch_up()


@shared_task(name="annotator.compute_kappa_c_part", **RETRYING)
def compute_kappa_c_part(part_id: int) -> str:
    """Compute one part of a project's κ_C Monte Carlo and store it (`annotator.agreement.kappa_c_chunks`):
    one task of the chord `kappa_c_chunks.start_plan` sends. Acknowledged late: a killed worker's part
    is delivered again; a part already computed, or dropped by a newer plan, returns at once."""
    return kappa_c_chunks.compute(part_id)


#: How often and how long the chord's callback waits for a part its chord counted too early (5 min).
PART_WAIT_SECONDS, PART_WAIT_RETRIES = 2, 150


@shared_task(name="annotator.finish_kappa_c", bind=True, **RETRYING)
def finish_kappa_c(self: Task, parts: list[str], project_id: int, run_id: int) -> str:
    """The chord's callback once every part of κ_C plan `run_id` returned (`parts`: their outcomes): the
    recompute that combines the parts into the final κ_C. "superseded" when a newer plan replaced it
    (that plan's chord finishes κ_C). Without a broker the recompute that sent the chord combines them."""
    if not kappa_c_chunks.ready(project_id, run_id):
        if kappa_c_chunks.is_current(project_id, run_id) and not self.request.is_eager:
            # Still the project's plan with a part to compute: the chord counted a part twice (one
            # stored its result, its worker was lost before acknowledging it, and the delivery again
            # returned "already done"), so this callback came before the last part. Wait for it.
            raise self.retry(countdown=PART_WAIT_SECONDS, max_retries=PART_WAIT_RETRIES)
        return "superseded"
    if self.request.is_eager:
        return "combined by the caller"
    return _recompute(self, project_id)


@shared_task(name="annotator.compute_agreement_intervals", **{**RETRYING, "acks_late": False})
def compute_agreement_intervals(project_id: int, fingerprint: str | None = None) -> str:
    """Compute and store the 95 % confidence intervals of the project's current figures
    (`computation.compute_intervals`): sent once a computation leaves final figures without intervals,
    at most once per project and AGREEMENT_REPORT_INTERVAL_SECONDS (`annotator.agreement.intervals`), on
    the low-priority κ_C queue. `fingerprint`: the figures it was sent for (None: the current ones);
    stores nothing when they moved (the computation that moved them sends it again).

    Acknowledged when it starts, not when it ends: a worker holding an unacknowledged message when the
    Redis broker goes away dies on restoring it (kombu 5.7), and the intervals take seconds. A task lost
    with its worker is sent again at the end of its window (`intervals.send_due`)."""
    return computation.compute_intervals(project_id, fingerprint)


@shared_task(name="annotator.send_due_agreement_intervals", **RETRYING)
def send_due_agreement_intervals() -> list[int]:
    """Celery beat, every 2 s (the beat schedule in settings): send the agreement intervals tasks that
    are due (`computation.send_due_intervals`)."""
    return computation.send_due_intervals()


@shared_task(name="annotator.compute_statistics", **RETRYING)
def compute_statistics(project_id: int) -> str:
    """Compute the project's corpus statistics (the papers' tables) and keep them for the dashboard."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return "deleted"
    compute_project_statistics(project)
    return "stored"


@shared_task(name="annotator.apply_agreement_retention", **RETRYING)
def apply_agreement_retention(project_id: int | None = None) -> int:
    """Prune full agreement reports by the retention policy (`annotator.agreement.retention`); periodic
    (Celery beat, `CELERY_BEAT_SCHEDULE`). Never deletes a project's latest or a pinned report; returns
    how many reports were deleted. Idempotent: a second run right after deletes nothing."""
    return retention.apply_retention(project_id)


@shared_task(name="annotator.clean_up_job_files", **RETRYING)
def clean_up_job_files() -> str:
    """Remove the job files that are due (`annotator.corpus.retention.clean_up`: finished imports' and
    lexicon builds' uploads, exports after EXPORT_KEEP_DAYS, stuck jobs after UPLOAD_KEEP_DAYS, orphan
    folders); periodic (Celery beat, hourly, `CELERY_BEAT_SCHEDULE`). What it removed, in words."""
    return str(clean_up())


@shared_task(name="annotator.queue_reannotation", **RETRYING)
def queue_reannotation(
    project_id: int, rule: str, params: dict, seed: int, actor_id: int | None = None
) -> int | None:
    """Draw a re-annotation round by `rule` and queue its pairs back to their annotators.

    Idempotent: run again on unchanged annotations (e.g. after a killed worker) it finds the round it
    stored and queues nothing twice. Returns the round number; a deleted project is logged and skipped.
    """
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        log.info("queue_reannotation: project %s no longer exists; skipped", project_id)
        return None
    actor = get_user_model().objects.filter(pk=actor_id).first() if actor_id else None
    return queue_round(project, rule, params, seed=seed, actor=actor).round


@shared_task(name="annotator.refresh_explorer", **RETRYING)
def refresh_explorer(project_id: int) -> int | None:
    """Store the disagreement explorer's rows of the project from its current annotations.

    Sent by the agreement computation that follows a change and by the lead. Idempotent (the rows are
    replaced); returns how many were stored; a deleted project, rows that are current already and a
    project whose refreshes the lead stopped are skipped, and a delivery that finds a live worker
    refreshing the project leaves it to that worker.
    """
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        log.info("refresh_explorer: project %s no longer exists; skipped", project_id)
        return None
    if explorer_rows.is_paused(project) or explorer_rows.rows_current(project):
        return None  # the lead stopped the refreshes, or the rows are current already
    return explorer_rows.refresh_once(project)


@shared_task(name="annotator.compute_assignment_plan", **RETRYING)
def compute_assignment_plan(plan_id: int) -> str | None:
    """Compute a stored assignment plan (`annotator.leadtools.planning.compute_stored_plan`): the
    planner's preview. A finished plan is not computed again; a deleted one is skipped."""
    return planning.compute_stored_plan(plan_id)


@shared_task(name="annotator.build_reevaluation_sets", **RETRYING)
def build_reevaluation_sets(project_id: int, seed: int = 0) -> int | None:
    """Draw every rater's re-evaluation sets (metrics.reeval) and give them their round-1 units.

    Idempotent: the same seed on the same judgements stores the same sets and creates no new work.
    Returns the number of round-1 assignments created; a deleted project is logged and skipped.
    """
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        log.info("build_reevaluation_sets: project %s no longer exists; skipped", project_id)
        return None
    return build_sets(project, seed)


@shared_task(name="annotator.run_import_job", acks_late=True, reject_on_worker_lost=True)
def run_import_job(job_id: int) -> str | None:
    """Run a stored import job (a re-delivered task of a finished job does nothing)."""
    return jobs.run_import(job_id)


@shared_task(name="annotator.run_export_job", acks_late=True, reject_on_worker_lost=True)
def run_export_job(job_id: int) -> str | None:
    """Run a stored export job: write the file under MEDIA_ROOT and remember its path."""
    return jobs.run_export(job_id)


@shared_task(name="annotator.run_lexicon_job", acks_late=True, reject_on_worker_lost=True)
def run_lexicon_job(job_id: int) -> str | None:
    """Run a stored lexicon build (or its preview) once (`annotator.evaluation.lexicon_jobs`)."""
    return lexicon_jobs.run_build(job_id)


@shared_task(name="annotator.train_aligner", **RETRYING)
def train_aligner(run_id: int) -> str | None:
    """Train the project's statistical aligner and store its initial alignments (one `AlignerRun`).

    A finished run is not run again (a re-delivered task changes nothing); a deleted one is skipped.
    """
    return aligner_training.run_training(run_id)


@shared_task(name="annotator.train_recommender", **RETRYING)
def train_recommender(run_id: int) -> str | None:
    """Train a project's phenomena recommender on its training project's phenomena (one `RecommenderRun`).

    A finished run is not run again (a re-delivered task changes nothing); a deleted one is skipped.
    """
    return recommender.run_training(run_id)


@shared_task(name="annotator.parse_trees", **RETRYING)
def parse_trees(project_id: int, backend: str = "spacy") -> dict | None:
    """Parse the members of the project's pairs that have no imported tree (`corpus.tree_parsing`)."""
    return tree_parsing.run_parsing(project_id, backend)


@shared_task(name="annotator.parse_pair_trees", **RETRYING)
def parse_pair_trees(project_id: int, pair_ids: list[int]) -> int | None:
    """Parse the pairs whose tokens a lead corrected (`corpus.tree_parsing.parse_pairs`)."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        log.info("parse_pair_trees: project %s no longer exists; skipped", project_id)
        return None
    return tree_parsing.parse_pairs(project, pair_ids)
