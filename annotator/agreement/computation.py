"""Computing and storing a project's agreement snapshot (the body of the recompute task).

Load the document (`annotator.agreement.document`), compute with the metrics library through
`annotator.agreement.results` (unchanged sections copied from the latest snapshot), store a snapshot
keyed by the document's fingerprint. One computation per project at a time (`scheduling.ProjectLock`).
"""

from __future__ import annotations

import logging
import time
import traceback
from collections import defaultdict
from typing import Any

from django.core.cache import cache
from django.db.models import BooleanField, Count, ExpressionWrapper, Q, Sum
from django.utils import timezone

from annotator import taskqueue
from annotator.agreement import kappa_c_chunks
from annotator.agreement.document import automatic_phrase_alignments, project_document
from annotator.agreement.results import (
    document_fingerprints,
    fingerprint,
    forget_memos,
    forget_phenomena_states,
    kappa_c_pending_work,
    pair_label_agreement,
    pair_results,
    phenomena_agreement,
    report_sections,
    trusted_document,
)
from annotator.agreement.retention import maybe_apply_in_process
from annotator.agreement.scheduling import (
    RERUN_KEY,
    SCHEDULED_KEY,
    LivenessKeeper,
    ProjectLock,
    setting,
)
from annotator.core.machine_agreement import machine_agreement
from annotator.corpus.aligner_training import baseline_summary
from annotator.corpus.systems import gold_alignments, system_alignments
from annotator.models import (
    AgreementHeadline,
    AgreementSnapshot,
    AgreementState,
    Assignment,
    Membership,
    Project,
)
from metrics.incremental import gc_paused

log = logging.getLogger(__name__)

HEADLINE_KEYS = (
    "iapta.do.f1",
    "iapta.tpo.partial.f1",
    "alignment.words.f1",
    "kappa_c",
    "fleiss.G2",
    "fleiss.M2",
)


def recompute(project_id: int, *, full: bool = False) -> str:
    """Recompute and store the project's agreement snapshot; returns what happened (for logs and tests).

    "stored", "stored provisional+final", "unchanged" (same fingerprint as the latest snapshot), "busy"
    (another worker computes the project; it will re-schedule), "deleted" (no such project).
    Changes that arrive meanwhile leave a rerun mark (`scheduling.take_rerun_mark`) for the task.
    `full=True` computes every section afresh: nothing is reused from the latest snapshot or from the
    statistics this process keeps, and a snapshot is stored even when the fingerprint is unchanged.
    """
    cache.delete(SCHEDULED_KEY.format(project_id))
    if not Project.objects.filter(pk=project_id).exists():
        log.info("recompute of project %s skipped: the project was deleted", project_id)
        return "deleted"
    lock = ProjectLock(project_id)
    if not lock.acquire():
        cache.set(RERUN_KEY.format(project_id), 1, timeout=int(setting("AGREEMENT_LOCK_TTL", 1800)))
        if not lock.acquire():  # the holder may have finished between the two looks
            return "busy"
    keeper = LivenessKeeper(project_id, lock.token, lock.cache_keys()).start()
    try:
        outcome = _recompute_locked(project_id, full)
    finally:
        keeper.stop()
        lock.release()
    return outcome


def _recompute_locked(project_id: int, full: bool = False) -> str:
    cache.delete(RERUN_KEY.format(project_id))  # what it asked for is read below
    started = time.perf_counter()
    state, _ = AgreementState.objects.get_or_create(project_id=project_id)
    AgreementState.objects.filter(pk=state.pk).update(started_at=timezone.now(), enqueue_failed=False)
    try:
        project = Project.objects.get(pk=project_id)
        outcome = (
            _compute_and_store(project, started, full=True) if full else _compute_and_store(project, started)
        )
    except Exception as exc:
        AgreementState.objects.filter(pk=state.pk).update(last_error=_error_text(exc))
        raise
    AgreementState.objects.filter(pk=state.pk).update(finished_at=timezone.now(), last_error="")
    if outcome.startswith("stored") and taskqueue.runs_in_process():
        maybe_apply_in_process(project_id)  # no beat without a broker: prune now and then after a store
    return outcome


def _error_text(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"[:2000]


def latest_snapshot(project: Project | int) -> AgreementSnapshot | None:
    project_id = project if isinstance(project, int) else project.pk
    return (
        AgreementSnapshot.objects.filter(project_id=project_id, scope="project")
        .order_by("-computed_at", "-id")
        .first()
    )


def _compute_and_store(project: Project, started: float, full: bool = False) -> str:
    with gc_paused():  # see project_document
        return _compute_and_store_all(project, started, full)


def _machine_extras(project: Project, doc: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Humans vs the automatic alignment and registered systems vs humans and gold (Cohn Table 5), the
    baseline κ_C used, and a digest of the inputs that are not in the document (systems, gold)."""
    systems = system_alignments(project) if project.layer_word_alignment else {}
    gold = gold_alignments(project) if systems else {}
    # the automatic tree phrase alignment of the pairs someone phrase-aligned: it depends on the
    # pairs' trees, which the document does not hold, so it enters the fingerprint
    phrase_rows = doc.get("phrase_alignments") if project.layer_phrase_alignment else None
    automatic = (
        automatic_phrase_alignments(project, {row["pair"] for rows in phrase_rows.values() for row in rows})
        if phrase_rows is not None
        else None
    )
    machine = (
        machine_agreement(doc, systems, gold, automatic)
        if project.layer_word_alignment or automatic is not None
        else {}
    )
    extras = {"machine": machine, "kappa_c_baseline": baseline_summary(project)}
    return extras, fingerprint([systems, gold, automatic]) if systems or automatic else ""


def _compute_and_store_all(project: Project, started: float, full: bool = False) -> str:
    doc = project_document(project)
    fingerprints = document_fingerprints(doc)
    machine, outside = _machine_extras(project, doc)
    digest = fingerprint([fingerprints.document, outside]) if outside else fingerprints.document
    latest = latest_snapshot(project)
    if full:
        forget_memos()
        forget_phenomena_states()
        latest = None
    if latest is not None and latest.fingerprint == digest and not latest.results.get("pending"):
        return "unchanged"
    previous = latest.results if latest is not None else None
    # Per-pair DO F1 depends only on the phenomena section: reuse it while that is unchanged.
    same_phenomena = (
        previous is not None
        and "phenomena" in doc
        and previous.get("sections", {}).get("phenomena") == fingerprints.sections.get("phenomena")
        and "pairs" in previous
    )
    documents: dict[str, Any] = {}  # the document's sections as metrics types, converted once
    kappa_c_inputs = fingerprints.sections.get("kappa_c", "")
    # κ_C's Monte Carlo done in chunks by the workers for exactly these inputs (kappa_c_chunks)
    chance = (
        kappa_c_chunks.chance_results(project.pk, kappa_c_inputs) if kappa_c_inputs and not full else None
    )
    defer = chance is None and _kappa_c_is_expensive(doc, fingerprints, previous, documents)
    report = report_sections(
        doc,
        previous,
        defer_kappa_c=defer,
        fingerprints=fingerprints,
        documents=documents,
        kappa_c_chance=chance,
    )
    tables = None
    if "phenomena" in doc and not same_phenomena:
        tables = phenomena_agreement(doc, fingerprints).tables  # kept by report_sections: no recomputation
    extras = {
        "annotators": doc["annotators"],
        "pairs": pair_results(
            doc,
            _done_source_ids(project),
            previous["pairs"] if same_phenomena and previous is not None else None,
            tables=tables,
        ),
        "pair_labels": pair_label_agreement(doc, report[0]["measures"]),
        "progress": progress(project),
        **machine,
    }
    snapshot = _store(project, digest, *report, extras, started)
    if not snapshot.results["pending"]:
        return "stored"
    if kappa_c_chunks.enabled():
        # the workers compute the chunks; the last one schedules the recompute that combines them
        # (without a broker they have all run, here, by the time `start` returns)
        if "word_alignments" not in documents:
            documents["word_alignments"] = trusted_document(doc, sections=("word_alignments",))
        done, total = kappa_c_chunks.start(project, documents["word_alignments"], kappa_c_inputs, fresh=full)
        chance = kappa_c_chunks.chance_results(project.pk, kappa_c_inputs)
        if chance is None:
            return f"stored provisional; κ_C in {total} chunks ({done} done)"
    _store(
        project,
        digest,
        *report_sections(
            doc, snapshot.results, fingerprints=fingerprints, documents=documents, kappa_c_chance=chance
        ),
        extras,
        started,
    )
    return "stored provisional+final"


def _store(
    project: Project,
    digest: str,
    report: dict[str, Any],
    sections: dict[str, str],
    section_keys: dict[str, list[str]],
    pending: list[str],
    extras: dict[str, Any],
    started: float,
) -> AgreementSnapshot:
    results = {
        "report": report,
        "sections": sections,
        "section_keys": section_keys,
        "pending": pending,
        **extras,
    }
    results["headline"] = headline(results)
    snapshot = AgreementSnapshot.objects.create(
        project=project,
        fingerprint=digest,
        results=results,
        duration_ms=round(1000 * (time.perf_counter() - started)),
    )
    AgreementHeadline.objects.create(  # the trend's row, kept when retention prunes the full report
        project=project,
        computed_at=snapshot.computed_at,
        snapshot=snapshot,
        fingerprint=digest,
        values=results["headline"],
        pending=bool(pending),
        duration_ms=snapshot.duration_ms,
    )
    return snapshot


def headline(results: dict[str, Any]) -> dict[str, float | None]:
    """The few measures the trend chart follows (small, so the chart never loads whole reports)."""
    measures = results["report"]["measures"]
    out = {key: measures[key]["value"] for key in HEADLINE_KEYS if key in measures}
    if results.get("pair_labels"):
        out["pair_labels.fleiss"] = results["pair_labels"]["fleiss"]["value"]
    return out


def _kappa_c_is_expensive(
    doc: dict[str, Any], fingerprints: Any, previous: dict[str, Any] | None, documents: dict[str, Any]
) -> bool:
    """Whether the κ_C Monte Carlo still to run (pairs the kept results cannot serve) exceeds
    AGREEMENT_KAPPA_C_DEFER_WORK items × samples."""
    work = kappa_c_pending_work(doc, fingerprints, previous, documents)
    return work > setting("AGREEMENT_KAPPA_C_DEFER_WORK", 20_000)


def _done_source_ids(project: Project) -> dict[str, set[str]]:
    rows = Assignment.objects.filter(
        project=project,
        pair__isnull=False,
        status=Assignment.Status.DONE,
        annotator__memberships__project=project,
        annotator__memberships__role=Membership.Role.ANNOTATOR,
    ).values_list("annotator__username", "pair__source_id")
    out: dict[str, set[str]] = defaultdict(set)
    for name, source_id in rows:
        out[name].add(source_id)
    return out


def progress(project: Project) -> list[dict[str, Any]]:
    """Per annotator, phase and kind of work (pairs / units): done, postponed, to do, time spent (s)."""
    rows = (
        Assignment.objects.filter(project=project)
        .annotate(is_unit=ExpressionWrapper(Q(pair__isnull=True), output_field=BooleanField()))
        .values("annotator__username", "phase", "is_unit")
        .annotate(
            total=Count("id"),
            done=Count("id", filter=Q(status=Assignment.Status.DONE)),
            postponed=Count("id", filter=Q(status=Assignment.Status.POSTPONED)),
            seconds=Sum("time_spent"),
        )
        .order_by("annotator__username", "phase", "is_unit")
    )
    return [
        {
            "annotator": row["annotator__username"],
            "phase": row["phase"],
            "kind": "units" if row["is_unit"] else "pairs",
            "done": row["done"],
            "postponed": row["postponed"],
            "todo": row["total"] - row["done"] - row["postponed"],
            "total": row["total"],
            "time_spent": row["seconds"] or 0,
        }
        for row in rows
    ]
