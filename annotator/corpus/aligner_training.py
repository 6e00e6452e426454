"""Training the project's statistical aligner and storing its initial alignments (the Django side).

`start_training` records an `AlignerRun` (the next version of the project) and enqueues
`annotator.train_aligner`; `run_training` (the task body, also called by `manage.py align_corpus`)
loads every pair's tokens, trains `annotator.core.statistical_aligner` on them and writes each pair's
`initial_alignment` with its source and version, in one transaction at the end (all or nothing).

What a run may overwrite: pairs without an initial alignment, and pairs whose alignment came from the
built-in identical-token matcher or from an earlier run of the aligner. An imported alignment (Pharaoh
`--annotator initial`, the API's `initial_alignment`, a native import) always wins. Annotators' links
are separate rows and are never touched; the agreement is recomputed because κ_C's baseline changed.

Progress is written to the run's row as it goes (the training runs outside any transaction).

A run runs once (`annotator.corpus.run_once`): a task delivered again while a live worker trains the run
leaves it; one whose worker died takes it over. `cancel_training` stops a queued run at once and a
running one at its next progress report (within seconds while it decodes; the posterior aligner's
evidence and training stages report at their start and midway); a cancelled run changes no alignment.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from annotator import taskqueue
from annotator.agreement import record_change
from annotator.core import link_scorer, wordnet_lexicon
from annotator.core.aligner import SOURCE as IDENTICAL_SOURCE
from annotator.core.statistical_aligner import (
    BACKENDS,
    SYMMETRIZATIONS,
    AlignerSettings,
    train_and_align_scored,
)
from annotator.corpus import run_once
from annotator.models import AlignerRun, Pair, Project

log = logging.getLogger(__name__)
BATCH = 1000
PROGRESS_EVERY = 0.3  # seconds between progress writes


class TrainingError(ValueError):
    """A run that cannot start, said in the lead's words."""


def _replaceable(project: Project) -> Any:
    automatic = [IDENTICAL_SOURCE] + [f"{b}/{s}" for b in BACKENDS for s in SYMMETRIZATIONS]
    return Pair.objects.filter(project=project).filter(
        Q(initial_alignment__isnull=True) | Q(initial_alignment_source__in=automatic)
    )


def settings_from(symmetrize: str = "per-kind", backend: str = "") -> AlignerSettings:
    """The settings of a run: the symmetrisation names the backend unless one is given (per-kind: the
    posterior aligner; intersection, grow-diag-final: eflomal)."""
    backend = backend or ("posterior" if symmetrize == "per-kind" else "eflomal")
    settings = AlignerSettings(backend=backend, symmetrize=symmetrize)
    try:
        settings.validate()
    except ValueError as exc:
        raise TrainingError(str(exc)) from exc
    return settings


@transaction.atomic
def create_run(project: Project, user: Any, settings: AlignerSettings) -> AlignerRun:
    """The project's next aligner version, queued. One run at a time per project."""
    Project.objects.select_for_update().filter(pk=project.pk).first()
    busy = AlignerRun.objects.filter(
        project=project, status__in=(AlignerRun.Status.QUEUED, AlignerRun.Status.RUNNING)
    ).first()
    if busy is not None:
        raise TrainingError(
            f"Version {busy.version} of the aligner is still {busy.get_status_display().lower()}."
        )
    if not Pair.objects.filter(project=project).exists():
        raise TrainingError("The project has no pairs to train on: import a corpus first.")
    last = AlignerRun.objects.filter(project=project).aggregate(v=Max("version"))["v"] or 0
    return AlignerRun.objects.create(
        project=project,
        version=last + 1,
        settings=dataclasses.asdict(settings),
        created_by=user if getattr(user, "pk", None) else None,
    )


def start_training(project: Project, user: Any, *, symmetrize: str = "per-kind") -> AlignerRun:
    """Record the run and enqueue it on a worker (in-process without a broker)."""
    run = create_run(project, user, settings_from(symmetrize))
    transaction.on_commit(lambda: _send(run.pk))
    return run


def _send(run_id: int) -> None:
    """Hand the run to a worker; if the queue is unreachable the run fails now, saying so."""
    try:
        taskqueue.enqueue("annotator.train_aligner", run_id)
    except taskqueue.QueueUnavailable as exc:
        AlignerRun.objects.filter(pk=run_id, status=AlignerRun.Status.QUEUED).update(
            status=AlignerRun.Status.FAILED,
            finished_at=timezone.now(),
            report={"summary": f"{exc} Nothing was changed; train again once the queue is back."},
        )


ACTIVE = (AlignerRun.Status.QUEUED, AlignerRun.Status.RUNNING)
FINISHED = (AlignerRun.Status.SUCCEEDED, AlignerRun.Status.FAILED, AlignerRun.Status.CANCELLED)


def _name(run_id: int) -> str:
    return f"aligner-run:{run_id}"


def cancel_training(run: AlignerRun) -> None:
    """Stop the run: a queued one is cancelled at once, a running one at its next progress report."""
    run_once.request_cancel(_name(run.pk))
    AlignerRun.objects.filter(pk=run.pk, status=AlignerRun.Status.QUEUED).update(
        status=AlignerRun.Status.CANCELLED,
        finished_at=timezone.now(),
        report={"summary": "Cancelled before it started; no alignment was changed."},
    )


class _Progress:
    def __init__(self, run: AlignerRun, claim: run_once.Run | None = None) -> None:
        self.run, self.last, self.claim = run, 0.0, claim

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.claim is not None and stage != "done":  # "done": written; too late to cancel
            self.claim.check()
        now = time.monotonic()
        if now - self.last < PROGRESS_EVERY and done < total and stage == self.run.stage:
            return
        self.last = now
        AlignerRun.objects.filter(pk=self.run.pk).update(stage=stage, progress=done, total=total)
        self.run.stage = stage


def run_training(run_id: int) -> str | None:
    """Train and store (the task body), once (see the module's docstring). Returns the final status, or
    None when this delivery had nothing to do (finished, cancelled, deleted, or held by a live run)."""
    run = AlignerRun.objects.select_related("project").filter(pk=run_id).first()
    if run is None:
        log.warning("aligner run %s no longer exists; skipped", run_id)
        return None
    if run.status in FINISHED:
        return None  # a re-delivered task of a finished run
    with run_once.claim(_name(run.pk)) as claim:
        if claim is None:
            log.info("aligner run %s is trained by a live worker; this delivery leaves it", run.pk)
            return None
        started = AlignerRun.objects.filter(pk=run.pk, status__in=ACTIVE).update(
            status=AlignerRun.Status.RUNNING, stage="loading"
        )
        if not started:
            return None  # cancelled or finished meanwhile
        return _run(run, claim)


def _run(run: AlignerRun, claim: run_once.Run) -> str:
    started = time.perf_counter()
    running = AlignerRun.objects.filter(pk=run.pk, status=AlignerRun.Status.RUNNING)
    try:
        report = _train_and_store(run, _Progress(run, claim))
    except run_once.Cancelled:
        running.update(
            status=AlignerRun.Status.CANCELLED,
            finished_at=timezone.now(),
            report={"summary": "Cancelled while it ran; no alignment was changed."},
        )
        return AlignerRun.Status.CANCELLED
    except Exception as exc:  # a bug: recorded on the run, then the task fails loudly
        running.update(
            status=AlignerRun.Status.FAILED,
            finished_at=timezone.now(),
            report={"summary": f"Internal error: {exc.__class__.__name__}: {exc}"},
        )
        raise
    report["seconds"] = round(time.perf_counter() - started, 2)
    running.update(
        status=AlignerRun.Status.SUCCEEDED, stage="done", finished_at=timezone.now(), report=report
    )
    return AlignerRun.Status.SUCCEEDED


def _train_and_store(run: AlignerRun, progress: _Progress) -> dict[str, Any]:
    project = run.project
    rows = list(
        Pair.objects.filter(project=project)
        .order_by("position", "pk")
        .values_list("pk", "tokens1", "tokens2")
    )
    progress("training", 0, len(rows))
    stored: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in run.settings.items()}
    settings = AlignerSettings(**stored)
    aligned = train_and_align_scored([(t1, t2) for _, t1, t2 in rows], settings, progress=progress)
    links = {pk: [[i, j] for i, j, _c in result] for (pk, _, _), result in zip(rows, aligned, strict=True)}
    # only the posterior aligner has a confidence of its own; the others' links are stored without one
    scored = settings.backend == "posterior"
    confidence = {pk: [c for _i, _j, c in result] for (pk, _, _), result in zip(rows, aligned, strict=True)}
    progress("storing", 0, len(rows))  # the last checkpoint: from here the run writes, all or nothing
    with transaction.atomic():
        replaceable = list(_replaceable(project).only("pk"))
        for pair in replaceable:
            pair.initial_alignment = links[pair.pk]
            pair.initial_alignment_confidence = confidence[pair.pk] if scored else None
            pair.initial_alignment_source = run.source
            pair.initial_alignment_version = run.version
        Pair.objects.bulk_update(
            replaceable,
            [
                "initial_alignment",
                "initial_alignment_confidence",
                "initial_alignment_source",
                "initial_alignment_version",
            ],
            batch_size=BATCH,
        )
        record_change(project.pk, relabelled=True)  # κ_C's baseline and the humans' counts against it
    kept = len(rows) - len(replaceable)
    n_links = sum(len(links[p.pk]) for p in replaceable)
    progress("done", len(rows), len(rows))
    return {
        "summary": (
            f"Version {run.version} ({run.source}): {len(replaceable)} pairs aligned, {n_links} links; "
            f"{kept} pairs kept their imported alignment."
        ),
        "pairs": len(rows),
        "written": len(replaceable),
        "kept_imported": kept,
        "links": n_links,
        # the posterior aligner draws nothing at random; eflomal seeds itself from /dev/urandom
        "seed": None,
        "reproducible": settings.backend != "eflomal",
        # WordNet's synonyms are evidence only where its files are installed (docs/aligner.md)
        "wordnet": settings.backend == "posterior" and wordnet_lexicon.available(),
        # which fitted weights decided the posterior aligner's links (docs/aligner.md)
        "link_weights": link_scorer.weights_digest() if settings.backend == "posterior" else None,
    }


def set_suggestion_threshold(project: Project, threshold: float) -> None:
    """The confidence from which the project's suggested links are shown strongly (the rest faintly)."""
    if not 0.0 <= threshold <= 1.0:
        raise TrainingError(f"The suggestion threshold must be between 0 and 1, not {threshold}.")
    Project.objects.filter(pk=project.pk).update(suggestion_threshold=threshold)
    project.suggestion_threshold = threshold


def latest_run(project: Project) -> AlignerRun | None:
    return AlignerRun.objects.filter(project=project).order_by("-version").first()
