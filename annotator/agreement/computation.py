"""Computing and storing a project's agreement (the body of the recompute task).

Load the document (`annotator.agreement.document`), compute with the metrics library through
`annotator.agreement.results` (unchanged sections copied from the current agreement), or update it pair
by pair (`annotator.agreement.incremental`). One computation per project at a time
(`scheduling.project_lock`).

What a computation stores (`_store`): always the report sections it changed and the summary row
(`annotator.agreement.current`, what every reader shows) and a small `AgreementHeadline` row (the trend);
a full report (`AgreementSnapshot`) only at a bounded cadence (`report_due`): after a full computation,
when κ_C becomes final, and otherwise at most one per AGREEMENT_REPORT_INTERVAL_SECONDS while changes
stream in — so storage grows with time, not with the number of saves. A report of the current state is
also stored on demand (`current.current_report`: pinning, a re-annotation round's "before").

The 95 % confidence intervals of the measures (`compute_intervals`, docs/measures.md#intervals) are
computed by their own task, on the low-priority κ_C queue, once a computation leaves final figures
without intervals and no other save waits: at once, or with a broker at most once per project and
AGREEMENT_REPORT_INTERVAL_SECONDS (`annotator.agreement.intervals`); never per save under a stream. They
are stored as one section row with the fingerprint of the figures they belong to
(`current.figures_fingerprint`), and `current.current` shows them only while that fingerprint is the
current one.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import traceback
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from annotator import taskqueue
from annotator.agreement import current, incremental, kappa_c_chunks, kappa_c_section, retention, scheduling
from annotator.agreement.document import automatic_phrase_alignments, project_document
from annotator.agreement.intervals import ask, send_due, send_intervals
from annotator.agreement.machine_agreement import aligner_from_totals, machine_agreement
from annotator.agreement.results import (
    KAPPA_C,
    Fingerprints,
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
from annotator.agreement.results import (
    any_sense_mark as _any_sense_mark,
)
from annotator.core import counts
from annotator.core.machine_alignments import baseline_summary, gold_alignments, system_alignments
from annotator.models import (
    AgreementHeadline,
    AgreementSection,
    AgreementSnapshot,
    AgreementState,
    Assignment,
    Membership,
    Project,
)
from metrics.incremental import gc_paused
from metrics.report import report_confidence_intervals

log = logging.getLogger(__name__)

HEADLINE_KEYS = (
    "iapta.do.f1",
    "iapta.tpo.partial.f1",
    "alignment.words.f1",
    "kappa_c",
    "fleiss.G2",
    "fleiss.M2",
)


def recompute(project_id: int, *, full: bool = False, redelivered: bool = False) -> str:
    """Recompute and store the project's agreement; returns what happened (for logs and tests).

    "stored", "stored provisional+final", "stored provisional; κ_C in … parts" (the workers compute
    them), "waiting; κ_C in … parts" (nothing new but κ_C, whose parts are not all done), "unchanged"
    (same fingerprint as the current agreement), "busy" (another computation holds the project: the
    task tries again), "deleted" (no such project).
    `full=True` computes every section afresh: nothing is reused from the current agreement or from the
    statistics this process keeps, and its full report is stored even when the fingerprint is unchanged.
    Without a broker, a computation that finds a change waiting when it ends (a request it kept waiting
    saved meanwhile, and that request's own run found it busy) runs again. `redelivered`: the broker
    delivered this task again after its worker was lost; κ_C's plan is then sent again rather than
    waited for (`kappa_c_chunks.resending`).
    """
    if not Project.objects.filter(pk=project_id).exists():
        log.info("recompute of project %s skipped: the project was deleted", project_id)
        return "deleted"
    with kappa_c_chunks.resending(redelivered):
        outcome = _recompute_once(project_id, full)
    while outcome != "busy" and taskqueue.runs_in_process() and scheduling.is_queued(project_id):
        outcome = _recompute_once(project_id, False)
    return outcome


def _recompute_once(project_id: int, full: bool) -> str:
    started = time.perf_counter()
    try:
        with scheduling.project_lock(project_id) as held:
            if not held:
                return "busy"
            scheduling.take_queued(project_id)
            outcome = _compute_and_store(Project.objects.get(pk=project_id), started, full=full)
            # the figures' intervals, if they have none, before the computation is marked finished
            # (`annotator.agreement.intervals`)
            transaction.on_commit(lambda: send_intervals(project_id))
            AgreementState.objects.filter(project_id=project_id).update(
                finished_at=Greatest(Value(timezone.now()), F("started_at")), last_error=""
            )
    except Exception as exc:
        AgreementState.objects.update_or_create(
            project_id=project_id, defaults={"last_error": _error_text(exc)}
        )
        raise
    return outcome


def _error_text(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"[:2000]


def latest_snapshot(project: Project | int) -> AgreementSnapshot | None:
    """The project's latest stored full report (the cadence stores them: it may be older than the
    current agreement, `current.current`, which is what readers show)."""
    project_id = project if isinstance(project, int) else project.pk
    return (
        AgreementSnapshot.objects.filter(project_id=project_id, scope="project")
        .order_by("-computed_at", "-id")
        .first()
    )


def _compute_and_store(project: Project, started: float, full: bool = False) -> str:
    with gc_paused():  # see project_document
        changes = incremental.take_changes(project.pk)
        if not full and not changes and _state_is_current(project):
            return "unchanged"  # nothing was recorded since the stored state (every change is)
        if not full and not changes:  # e.g. the last κ_C chunk is done: only κ_C is left to finish
            finished = _finish_kappa_c(project, started)
            if finished is not None:
                return "stored" if finished == "stored provisional+final" else finished
        update = None if full else incremental.update(project, changes)
        requested = update is None  # a full computation, not an update's κ_C: its report is stored
        if update is not None:
            return _store_update(project, update, changes, started)
        outcome = _compute_and_store_all(project, started, full, full_report=requested)
        incremental.forget_changes([pk for pk, _ in changes])
        return outcome


def _state_is_current(project: Project) -> bool:
    """Whether the stored agreement state and the current agreement are complete (no κ_C pending): with
    no change recorded since, a computation would give the same results."""
    if not incremental.updatable(project):
        return False  # inputs outside the per-pair state (trees, systems): the fingerprint decides
    latest = current.summary_state(project)
    if latest is None or latest[1]:
        return False
    return AgreementSection.objects.filter(project=project, name=incremental.STATE).exists()


def _kappa_c_deferred(update: incremental.Update) -> bool:
    """Whether κ_C's Monte Carlo after this update exceeds AGREEMENT_KAPPA_C_DEFER_WORK (as
    `_kappa_c_is_expensive` decides for a full computation)."""
    return int(update.extras.get("kappa_c_work", 0)) > kappa_c_chunks.small_work()


def _store_update(
    project: Project, update: incremental.Update, changes: list[tuple[int, int | None]], started: float
) -> str:
    """Store an incremental update (`annotator.agreement.incremental`). When κ_C has to be computed
    again: a small Monte Carlo (`_kappa_c_deferred` says no) is computed here, in the same store;
    otherwise the result is provisional and κ_C is finished from the stored parts (its Monte Carlo in
    parts a Celery chord computes), or by the full computation when the state cannot tell."""
    ids = [pk for pk, _ in changes]
    if update.write is None:
        incremental.forget_changes(ids)
        # nothing changed, but a pending κ_C whose parts are done may be waiting for this recompute
        latest = current.summary_state(project)
        if latest is not None and latest[1]:
            finished = _finish_kappa_c(project, started)
            if finished is not None:
                return "stored" if finished == "stored provisional+final" else finished
        return "unchanged"
    previous = current.summary_parts(project)
    extras = {
        "annotators": update.extras["annotators"],
        "pair_labels": update.extras["pair_labels"],
        "progress": progress(project),
        "machine": update.extras["machine"],
        "kappa_c_baseline": baseline_summary(project),
    }
    with transaction.atomic():
        update.write()
        kappa_c = None
        if update.pending and not _kappa_c_deferred(update):
            # a small Monte Carlo (say, the pairs of annotators who have aligned a few pairs): its
            # parts are computed here, the others' reused, and κ_C is stored with the update
            kappa_c = kappa_c_section.finish(project, (update.digest, [KAPPA_C]), here=True)
            if kappa_c is not None and kappa_c.measures is None:
                kappa_c = None  # another plan is in flight: κ_C follows it
        fresh = dict(update.measures)
        if kappa_c is not None and kappa_c.measures is not None:
            kappa_c_section.store(kappa_c)
            fresh[KAPPA_C] = kappa_c.measures
        pending = [] if kappa_c is not None else list(update.pending)
        kept = [name for name in update.sections if name not in fresh]
        keys: dict[str, list[str]] = {name: sorted(part) for name, part in fresh.items()}
        measures: dict[str, Any] = {}
        for part in fresh.values():
            measures.update(part)
        due = report_due(project, bool(pending))
        values: dict[str, Any] | None = None
        if previous is not None and not due and all(name in previous[0] for name in kept):
            # the sections this update did not compute keep their stored keys and headline values:
            # their (large) measures are not read
            keys.update({name: previous[0][name] for name in kept})
            values = {k: v for k, v in previous[1].items() if any(k in keys[name] for name in kept)}
        else:
            for name, part in current.section_measures(project, kept).items():
                measures.update(part)
                keys[name] = sorted(part)
        keys = {name: keys.get(name, []) for name in update.sections}
        report = {"format": "paraphrase-agreement-report/1", "measures": dict(sorted(measures.items()))}
        _store(
            project,
            update.digest,
            report,
            update.sections,
            keys,
            pending,
            extras,
            started,
            kept_headline=values,
            due=due,
        )
        incremental.forget_changes(ids)
    if not pending:
        return "stored"
    # κ_C alone from the stored per-pair parts (its Monte Carlo in parts a Celery chord computes); the
    # full computation when the state cannot tell
    outcome = _finish_kappa_c(project, started) or _compute_and_store_all(project, started)
    if outcome.startswith(("stored provisional;", "waiting;")):  # the parts are still to compute
        return "stored provisional;" + outcome.split(";", 1)[1]
    return "stored provisional+final"


def _finish_kappa_c(project: Project, started: float) -> str | None:
    """Finish the current agreement's pending κ_C from the stored state (`kappa_c_section`): the κ_C
    section row and results equal to the current ones but for κ_C. None when only the full computation
    can; "waiting; …" while the workers compute its Monte Carlo's parts (the chord's callback runs the
    recompute that ends it). The current agreement's sections are read only when κ_C is finished."""
    finished = kappa_c_section.finish(project, current.summary_state(project))
    if finished is None:
        return None
    if finished.measures is None:
        return f"waiting; κ_C in {finished.total} parts ({finished.done} done)"
    latest = current.current(project)
    if latest is None:
        return None
    results = latest.results
    old_keys = set(results["section_keys"].get(KAPPA_C, ()))
    measures = {k: v for k, v in results["report"]["measures"].items() if k not in old_keys}
    measures.update(finished.measures)
    report = {**results["report"], "measures": dict(sorted(measures.items()))}
    keys = {**results["section_keys"], KAPPA_C: sorted(finished.measures)}
    extras = {k: v for k, v in results.items() if k not in _SNAPSHOT_PARTS}
    with transaction.atomic():
        _store(project, latest.fingerprint, report, results["sections"], keys, [], extras, started)
        kappa_c_section.store(finished)
    return "stored provisional+final"


#: What `_store` writes itself into a snapshot's results (the rest are the extras).
_SNAPSHOT_PARTS = ("report", "sections", "section_keys", "pending", "headline")


def _automatic_phrases(project: Project, doc: dict[str, Any]) -> dict[str, Any] | None:
    """The automatic tree phrase alignment of the pairs someone phrase-aligned (None without the phrase
    layer). It depends on the pairs' trees, which the document does not hold, so it enters the
    fingerprint."""
    phrase_rows = doc.get("phrase_alignments") if project.layer_phrase_alignment else None
    if phrase_rows is None:
        return None
    return automatic_phrase_alignments(
        project, {row["pair"] for rows in phrase_rows.values() for row in rows}
    )


def _outside_digest(project: Project, automatic: dict[str, Any] | None) -> str:
    """A digest of the inputs that are not in the document: registered systems, gold, the automatic
    tree phrase alignment ("" when there are none)."""
    systems = system_alignments(project) if project.layer_word_alignment else {}
    if not systems and not automatic:
        return ""
    gold = gold_alignments(project) if systems else {}
    return fingerprint([systems, gold, automatic])


def _machine_extras(
    project: Project, doc: dict[str, Any], totals: Any, automatic: dict[str, Any] | None
) -> dict[str, Any]:
    """Humans vs the automatic word alignment (summed from the per-pair counts) and vs the automatic
    tree phrase alignment, registered systems vs humans and gold (Cohn Table 5), the baseline κ_C used."""
    systems = system_alignments(project) if project.layer_word_alignment else {}
    gold = gold_alignments(project) if systems else {}
    machine: dict[str, Any] = {}
    if project.layer_word_alignment or automatic is not None:
        machine = machine_agreement(doc, systems, gold, automatic, aligner=False)
    if project.layer_word_alignment:
        tree = {row["annotator"]: row["tree_phrase"] for row in machine["aligner"] if "tree_phrase" in row}
        humans = sorted(set(totals.participants()["word_alignments"]) | set(tree))
        machine["aligner"] = [
            {**row, **({"tree_phrase": tree[row["annotator"]]} if row["annotator"] in tree else {})}
            for row in aligner_from_totals(totals.machine, humans)
        ]
    return {"machine": machine, "kappa_c_baseline": baseline_summary(project)}


def _compute_and_store_all(
    project: Project, started: float, full: bool = False, *, full_report: bool = False
) -> str:
    """The full computation; `full_report`: store its final full report whatever the cadence says."""
    doc = project_document(project)
    done = _done_source_ids(project)
    automatic = _automatic_phrases(project, doc)
    digest, shared_fp, section_fps, totals, write_state = incremental.full_state(
        project, doc, done, _outside_digest(project, automatic)
    )
    fingerprints = Fingerprints(digest, shared_fp, section_fps)
    latest = current.current(project)
    if full:
        forget_memos()
        forget_phenomena_states()
        incremental.forget_kept()
        latest = None
    if latest is not None and latest.fingerprint == digest and not latest.results.get("pending"):
        return "unchanged"
    machine = _machine_extras(project, doc, totals, automatic)
    previous = latest.results if latest is not None else None
    # Per-pair DO F1 depends only on the phenomena section: reuse it while that is unchanged.
    same_phenomena = (
        previous is not None
        and "phenomena" in doc
        and previous.get("sections", {}).get("phenomena") == fingerprints.sections.get("phenomena")
    )
    documents: dict[str, Any] = {}  # the document's sections as metrics types, converted once
    kappa_c_inputs = fingerprints.sections.get("kappa_c", "")
    # κ_C's Monte Carlo done in parts by the workers for exactly these inputs (kappa_c_chunks)
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
    # the explorer's per-pair values: stored on the pairs' state rows, not in the report
    pairs = pair_results(doc, done, current.pair_entries(project) if same_phenomena else None, tables=tables)
    extras = {
        "annotators": doc["annotators"],
        "pair_labels": pair_label_agreement(doc, report[0]["measures"]),
        "progress": progress(project),
        **machine,
    }
    with transaction.atomic():
        stored = _store(project, digest, *report, extras, started, full_report=full_report)
        write_state(_by_section(report), pairs)
    if not stored["pending"]:
        _hand_over_phenomena(project, doc, fingerprints, totals)
        return "stored"
    # the workers compute the parts; the chord's callback runs the recompute that combines them
    # (without a broker they have all run, here, by the time `start` returns)
    if "word_alignments" not in documents:
        documents["word_alignments"] = trusted_document(doc, sections=("word_alignments",))
    done_parts, total = kappa_c_chunks.start(
        project, documents["word_alignments"], kappa_c_inputs, fresh=full
    )
    chance = kappa_c_chunks.chance_results(project.pk, kappa_c_inputs)
    if chance is None:
        _hand_over_phenomena(project, doc, fingerprints, totals)
        return f"stored provisional; κ_C in {total} parts ({done_parts} done)"
    final = report_sections(
        doc, stored, fingerprints=fingerprints, documents=documents, kappa_c_chance=chance
    )
    with transaction.atomic():
        _store(project, digest, *final, extras, started, full_report=full_report)
        write_state(_by_section(final), pairs)
    _hand_over_phenomena(project, doc, fingerprints, totals)  # after the last write (it drops kept ones)
    return "stored provisional+final"


def _hand_over_phenomena(
    project: Project, doc: dict[str, Any], fingerprints: Fingerprints, totals: Any
) -> None:
    """The phenomena statistics of this computation go to the incremental updates that follow (taken
    from `results`' kept states, which build afresh next time: one owner updates them)."""
    if "phenomena" not in doc or _any_sense_mark(doc["phenomena"]):
        return
    agreement = phenomena_agreement(doc, fingerprints)
    forget_phenomena_states()
    incremental.keep(project.pk, agreement, totals)


def _by_section(
    report: tuple[dict[str, Any], dict[str, str], dict[str, list[str]], list[str]],
) -> dict[str, Any]:
    measures, keys = report[0]["measures"], report[2]
    return {name: {k: measures[k] for k in names if k in measures} for name, names in keys.items()}


def _store(
    project: Project,
    digest: str,
    report: dict[str, Any],
    sections: dict[str, str],
    section_keys: dict[str, list[str]],
    pending: list[str],
    extras: dict[str, Any],
    started: float,
    *,
    full_report: bool = False,
    kept_headline: dict[str, Any] | None = None,
    due: bool | None = None,
) -> dict[str, Any]:
    """Store one computation (its section rows are written by the caller, in the same transaction):
    the summary row and the headline row always, the full report when `report_due` (or `full_report`
    asks for it and κ_C is final). Returns the results (`AgreementSnapshot.results`' shape).

    `kept_headline`: an update that did not read the sections it left alone (`report` then holds only
    the sections it computed; it is not due) passes their headline values, unchanged, here. `due`:
    `report_due`, when the caller has asked already."""
    results = {
        "report": report,
        "sections": sections,
        "section_keys": section_keys,
        "pending": pending,
        **extras,
    }
    results["headline"] = headline(results)
    if kept_headline is not None:
        values = {**kept_headline, **results["headline"]}
        results["headline"] = {key: values[key] for key in _headline_order(values)}
    duration_ms = round(1000 * (time.perf_counter() - started))
    if due is None:
        due = report_due(project, bool(pending))
    snapshot = None
    if kept_headline is None and ((full_report and not pending) or due):
        snapshot = AgreementSnapshot.objects.create(
            project=project, fingerprint=digest, results=results, duration_ms=duration_ms
        )
    if snapshot is not None and not pending:  # the corpus statistics of these figures, once committed
        transaction.on_commit(lambda: send_statistics(project.pk))
    if snapshot is not None and taskqueue.runs_in_process():  # no beat without a broker: prune now
        retention.apply_retention(project.pk)
    row = AgreementHeadline.objects.create(  # the trend's row, kept when retention prunes the full report
        project=project,
        computed_at=snapshot.computed_at if snapshot is not None else timezone.now(),
        snapshot=snapshot,
        fingerprint=digest,
        values=results["headline"],
        pending=bool(pending),
        duration_ms=duration_ms,
    )
    current.store_summary(project, results, fingerprint=digest, headline=row)
    return results


def send_due_intervals() -> list[int]:
    """Send the intervals tasks that are due (`intervals.send_due`): the beat task
    `annotator.send_due_agreement_intervals`."""
    return send_due()


STATISTICS_TASK = "annotator.compute_statistics"


def ask_for_intervals(project_id: int, *, at_once: bool = False) -> str:
    """The lead's dashboard asks for the confidence intervals of the current figures (`intervals.ask`:
    its outcome) and, when their task is sent, for the corpus statistics of the same annotations, which
    without a broker a save's recompute leaves to it too (`send_statistics`)."""
    outcome = ask(project_id, at_once=at_once)
    if outcome == "sent":
        send_statistics(project_id, after_response=True)
    return outcome


def send_statistics(project_id: int, *, after_response: bool = False) -> None:
    """Send the task that computes the project's corpus statistics (`statistics.compute_statistics`);
    without a broker it runs now — except in the work a save left for after its response, whose thread
    serves the annotator's connection: then the lead's dashboard asks for them with the intervals
    (`intervals.ask`, `after_response`: after the response of the dashboard's request). A broker that
    cannot be reached is logged: the next stored report sends again."""
    if not after_response and taskqueue.runs_in_process() and taskqueue.in_request():
        return
    try:
        if after_response:
            taskqueue.enqueue(STATISTICS_TASK, project_id, after_response=True)
        else:
            taskqueue.enqueue(STATISTICS_TASK, project_id)
    except taskqueue.QueueUnavailable as exc:
        log.warning("statistics of project %s not sent: %s", project_id, exc)


def intervals_seed(doc: dict[str, Any]) -> int:
    """The seed of the project's intervals: the document's `options.mc_seed` (κ_C's Monte Carlo seed),
    so `python -m metrics report --ci --ci-seed <mc_seed>` on the exported document gives the same."""
    return int((doc.get("options") or {}).get("mc_seed", 0))


def compute_intervals(project_id: int, fingerprint: str | None = None) -> str:
    """Compute and store the 95 % confidence intervals of the project's current figures (every measure
    key that carries a number gets `<key>.ci95`, `metrics.report.report_confidence_intervals`, seeded by
    `intervals_seed`) as the section row `intervals` with the figures' fingerprint
    (`current.figures_fingerprint`). `fingerprint`: the figures the task was sent for
    (`intervals.send_intervals`; None: whatever figures are current).

    Returns "stored"; "unchanged" (stored already for these figures); "pending" (no figures yet, or
    κ_C is provisional: the computation that makes it final sends this task again); "moved" (the figures
    are no longer `fingerprint`'s, or the annotations changed since the figures: nothing is stored, the
    computation that moves them sends the task again); "deleted" (no such project)."""
    started = time.perf_counter()
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return "deleted"
    figures = current.figures_fingerprint(project)
    if figures is None:
        return "pending"
    if fingerprint is not None and figures != fingerprint:
        return "moved"
    if current.intervals_fingerprint(project) == figures:
        return "unchanged"
    with gc_paused():
        doc = project_document(project)
        now = current.current(project)
        if now is None or document_fingerprint(project, doc) != now.fingerprint:
            return "moved"
        measures = {k: v for k, v in now.results["report"]["measures"].items() if not k.endswith(".ci95")}
        intervals = report_confidence_intervals(trusted_document(doc), measures, seed=intervals_seed(doc))
    if current.figures_fingerprint(project) != figures:
        return "moved"  # a save or a computation while they were computed
    current.store_intervals(project, intervals, fingerprint=figures)
    log.info(
        "intervals of project %s: %d keys in %.1f s",
        project_id,
        len(intervals),
        time.perf_counter() - started,
    )
    return "stored"


def report_due(project: Project, pending: bool) -> bool:
    """Whether a computation's full report is stored by the cadence: when the project has none yet,
    when κ_C becomes final (the latest report is provisional, this one is not), or when the latest is
    AGREEMENT_REPORT_INTERVAL_SECONDS old (default 60). Reads the small headline rows, not the reports."""
    latest = (
        AgreementHeadline.objects.filter(project=project, snapshot__isnull=False)
        .order_by("-computed_at", "-id")
        .values_list("computed_at", "pending")
        .first()
    )
    if latest is None:
        return True
    at, latest_pending = latest
    if latest_pending and not pending:
        return True
    interval = dt.timedelta(seconds=settings.AGREEMENT_REPORT_INTERVAL_SECONDS)
    return timezone.now() - at >= interval


def _headline_order(values: dict[str, Any]) -> list[str]:
    """The keys of headline `values` in `headline`'s order."""
    return [key for key in (*HEADLINE_KEYS, "pair_labels.fleiss") if key in values]


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
    return work > kappa_c_chunks.small_work()


def document_fingerprint(project: Project, doc: dict[str, Any]) -> str:
    """The fingerprint a snapshot of the project's document `doc` has (`incremental.snapshot_fingerprint`)."""
    outside = _outside_digest(project, _automatic_phrases(project, doc))
    return incremental.snapshot_fingerprint(project, doc, _done_source_ids(project), outside)


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
    """Per annotator, phase and kind of work (pairs / units): done, postponed, to do, time spent (s);
    read from the stored assignment tallies (`annotator.core.counts`), one small query."""
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for tally in counts.assignment_tallies(project):
        key = (tally["username"], tally["phase"], tally["kind"])
        row = rows.setdefault(
            key,
            {
                "annotator": key[0],
                "phase": key[1],
                "kind": key[2],
                "done": 0,
                "postponed": 0,
                "total": 0,
                "time_spent": 0,
            },
        )
        row["total"] += tally["n"]
        row["time_spent"] += tally["seconds"]
        if tally["status"] == Assignment.Status.DONE:
            row["done"] += tally["n"]
        elif tally["status"] == Assignment.Status.POSTPONED:
            row["postponed"] += tally["n"]
    return [
        {
            "annotator": row["annotator"],
            "phase": row["phase"],
            "kind": row["kind"],
            "done": row["done"],
            "postponed": row["postponed"],
            "todo": row["total"] - row["done"] - row["postponed"],
            "total": row["total"],
            "time_spent": row["time_spent"],
        }
        for _, row in sorted(rows.items(), key=lambda item: (item[0][0], item[0][1], item[0][2] == "units"))
    ]
