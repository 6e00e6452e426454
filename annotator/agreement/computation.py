"""Computing and storing a project's agreement (the body of the recompute task).

A computation reads the project's document (`annotator.agreement.document`) and computes the report
with the metrics library (`annotator.agreement.results`); a report section whose inputs have the
fingerprint of the current agreement's section is copied from it, the others are computed in full.
Nothing is kept in the process between computations. One computation per project at a time
(`scheduling.project_lock`); κ_C's Monte Carlo, when large, is computed by the workers in parts
(`kappa_c_chunks`: a Celery chord whose callback runs the recompute that finishes κ_C). The figures the
database keeps as sums (`annotator.agreement.sums`) do not wait for any computation: `current.current`
reads them as they are.

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

import dataclasses
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
from annotator.agreement import current, kappa_c_chunks, retention, scheduling
from annotator.agreement.document import automatic_phrase_alignments, project_document
from annotator.agreement.intervals import ask, send_due, send_intervals
from annotator.agreement.machine_agreement import machine_agreement
from annotator.agreement.results import (
    KAPPA_C,
    KEPT_SECTIONS,
    Fingerprints,
    document_fingerprints,
    fingerprint,
    kappa_c_pending_work,
    pair_label_agreement,
    report_sections,
    trusted_document,
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
    ParaphraseType,
    Project,
)
from metrics.phenomena import gc_paused
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
    """Compute and store the project's agreement from its document; returns what happened (for logs and
    tests).

    "stored", "stored provisional+final" (κ_C's parts were computed in this process), "stored
    provisional; κ_C in … parts (… done)" (the workers compute them; the chord's callback runs this
    again), "unchanged" (same fingerprint as the current agreement, κ_C final), "busy" (another
    computation holds the project: the task tries again), "deleted" (no such project).
    `full=True` reuses nothing from the current agreement and stores its full report even when the
    fingerprint is unchanged. Without a broker, a computation that finds a change waiting when it ends
    (a request it kept waiting saved meanwhile, and that request's own run found it busy) runs again.
    `redelivered`: the broker delivered this task again after its worker was lost; κ_C's plan is then
    sent again rather than waited for (`kappa_c_chunks.resending`).
    """
    if not Project.objects.filter(pk=project_id).exists():
        log.info("recompute of project %s skipped: the project was deleted", project_id)
        return "deleted"
    with kappa_c_chunks.resending(redelivered):
        outcome = _recompute_once(project_id, full)
    while outcome != "busy" and taskqueue.runs_in_process() and scheduling.is_queued(project_id):
        outcome = _recompute_once(project_id, False)
    if outcome.startswith("stored"):
        send_explorer_refresh(project_id)
    return outcome


EXPLORER_TASK = "annotator.refresh_explorer"


def send_explorer_refresh(project_id: int) -> None:
    """Send the refresh of the project's disagreement explorer rows (`annotator.leadtools.explorer_rows`)
    after a computation stored new figures: requests only read those rows. Without a broker it runs
    after the response of the request that saved (or now). A broker that cannot be reached is logged:
    the next computation sends again."""
    try:
        taskqueue.enqueue(EXPLORER_TASK, project_id, after_response=True)
    except taskqueue.QueueUnavailable as exc:
        log.warning("explorer refresh of project %s not sent: %s", project_id, exc)
    except Exception:  # in-process: the figures are stored; the explorer says its rows are behind
        if not taskqueue.runs_in_process():
            raise
        log.exception("in-process explorer refresh of project %s failed", project_id)


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


@dataclasses.dataclass
class _Inputs:
    """What one computation reads: the project's document, its fingerprints and its digest."""

    doc: dict[str, Any]
    done: dict[str, set[str]]
    fingerprints: Fingerprints
    automatic: dict[str, Any] | None

    @property
    def digest(self) -> str:
        return self.fingerprints.document


def _inputs(project: Project) -> _Inputs:
    """The project's document (`project_document`) and the fingerprint of everything its figures
    depend on: the document, who finished which pairs, the annotators, tagset and layers, and the
    inputs outside the document (registered systems, gold, the automatic tree phrase alignment)."""
    doc = project_document(project)
    done = _done_source_ids(project)
    automatic = _automatic_phrases(project, doc)
    fps = document_fingerprints(doc)
    digest = _digest(project, doc, fps.document, done, _outside_digest(project, automatic))
    return _Inputs(doc, done, Fingerprints(digest, fps.shared, fps.sections), automatic)


def _digest(
    project: Project, doc: dict[str, Any], document: str, done: dict[str, set[str]], outside: str
) -> str:
    """The fingerprint of the agreement of `doc` (whose own fingerprint is `document`)."""
    finished = {name: sorted(ids) for name, ids in sorted(done.items())}
    return fingerprint([_shared_key(project, list(doc["annotators"])), document, finished, outside])


def _shared_key(project: Project, names: list[str]) -> dict[str, Any]:
    """The project's annotators, tagset types (name, one-sided) and layers."""
    types: list[list[Any]] = []
    if project.tagset_id is not None:
        rows = ParaphraseType.objects.filter(tagset_id=project.tagset_id).order_by("position", "pk")
        types = [[n, s == ParaphraseType.ScopeSides.ONE] for n, s in rows.values_list("name", "scope_sides")]
    return {"annotators": names, "types": types, "layers": list(project.layers)}


def _compute_and_store(project: Project, started: float, full: bool = False) -> str:
    """Compute the report from the project's document and store it: the sections whose inputs did not
    change since the current agreement are copied from it (not with `full`), κ_C's Monte Carlo is
    planned in parts for the workers when it is large (`kappa_c_chunks`), and the report is stored
    provisional until its parts are done. With the inputs of the current agreement, whose κ_C is
    pending, nothing is stored until the parts are done ("waiting; …")."""
    with gc_paused():  # see project_document
        inputs = _inputs(project)
        latest = None if full else current.current(project)
        previous = latest.results if latest is not None else None
        kappa_c_inputs = inputs.fingerprints.sections.get(KAPPA_C, "")
        documents: dict[str, Any] = {}  # the document's sections as metrics types, converted once
        # κ_C's Monte Carlo done in parts by the workers for exactly these inputs (not reused by `full`)
        chance = (
            kappa_c_chunks.chance_results(project.pk, kappa_c_inputs) if kappa_c_inputs and not full else None
        )
        if latest is not None and latest.fingerprint == inputs.digest:
            if not latest.results.get("pending"):
                return "unchanged"
            if chance is None:
                done, total, chance = _plan_kappa_c(project, inputs, documents, fresh=False)
                if chance is None:
                    return f"waiting; κ_C in {total} parts ({done} done)"
        defer = chance is None and _kappa_c_is_expensive(inputs, previous, documents)
        report = report_sections(
            inputs.doc,
            previous,
            defer_kappa_c=defer,
            fingerprints=inputs.fingerprints,
            documents=documents,
            kappa_c_chance=chance,
            kept=KEPT_SECTIONS,
        )
        extras = _extras(project, inputs, report[0]["measures"])
        stored = _store_computation(project, inputs.digest, report, extras, started, full_report=full)
        if not stored["pending"]:
            return "stored"
        # the workers compute the parts; the chord's callback runs the recompute that combines them
        # (without a broker they have all run, here, by the time `start` returns)
        done, total, chance = _plan_kappa_c(project, inputs, documents, fresh=full)
        if chance is None:
            return f"stored provisional; κ_C in {total} parts ({done} done)"
        final = report_sections(
            inputs.doc,
            stored,
            fingerprints=inputs.fingerprints,
            documents=documents,
            kappa_c_chance=chance,
            kept=KEPT_SECTIONS,
        )
        _store_computation(project, inputs.digest, final, extras, started, full_report=full)
        return "stored provisional+final"


def _plan_kappa_c(
    project: Project, inputs: _Inputs, documents: dict[str, Any], *, fresh: bool
) -> tuple[int, int, kappa_c_chunks.Chance | None]:
    """Plan κ_C's Monte Carlo in parts and send the chord of those still to compute (a plan of the same
    inputs in flight is left to its chord, `kappa_c_chunks.start`): (parts done, parts, the combined
    results when every part is done — without a broker the parts have run here)."""
    if "word_alignments" not in documents:
        documents["word_alignments"] = trusted_document(inputs.doc, sections=("word_alignments",))
    kappa_c_inputs = inputs.fingerprints.sections[KAPPA_C]
    done, total = kappa_c_chunks.start(project, documents["word_alignments"], kappa_c_inputs, fresh=fresh)
    return done, total, kappa_c_chunks.chance_results(project.pk, kappa_c_inputs)


def _extras(project: Project, inputs: _Inputs, measures: dict[str, Any]) -> dict[str, Any]:
    """What the summary row holds beside the report: annotators, pair-label summary, progress, the
    machine agreement (`_machine_extras`) and the κ_C baseline."""
    return {
        "annotators": inputs.doc["annotators"],
        "pair_labels": pair_label_agreement(inputs.doc, measures),
        "progress": progress(project),
        **_machine_extras(project, inputs.doc, inputs.automatic),
    }


def _store_computation(
    project: Project,
    digest: str,
    report: tuple[dict[str, Any], dict[str, str], dict[str, list[str]], list[str]],
    extras: dict[str, Any],
    started: float,
    *,
    full_report: bool,
) -> dict[str, Any]:
    """Store one computation in one transaction: the report sections that changed (`_write_sections`),
    the summary and headline rows and, by the cadence, the full report (`_store`)."""
    with transaction.atomic():
        _write_sections(project, report[1], _by_section(report), pending=report[3])
        return _store(project, digest, *report, extras, started, full_report=full_report)


def _write_sections(
    project: Project,
    fingerprints: dict[str, str],
    measures_by_section: dict[str, dict[str, Any]],
    *,
    pending: list[str],
) -> None:
    """Rewrite the project's section rows whose fingerprint changed (a section of unchanged inputs keeps
    its row untouched) and delete the rows of sections the report no longer has. A `pending` section
    (κ_C while its parts are computed) is stored under its fingerprint marked "pending:", so that the
    final one replaces it."""
    kept = dict(
        AgreementSection.objects.filter(project=project)
        .exclude(name__in=current.NOT_REPORT)
        .values_list("name", "fingerprint")
    )
    AgreementSection.objects.filter(project=project, name__in=set(kept) - set(measures_by_section)).delete()
    for name, measures in measures_by_section.items():
        digest = fingerprints.get(name) or fingerprint([name, measures])
        if name in pending:
            digest = f"pending:{digest}"
        if kept.get(name) != digest:
            AgreementSection.objects.update_or_create(
                project=project, name=name, defaults={"fingerprint": digest, "measures": measures}
            )


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
    project: Project, doc: dict[str, Any], automatic: dict[str, Any] | None
) -> dict[str, Any]:
    """Registered systems vs humans and gold (Cohn Table 5), the humans vs the automatic tree phrase
    alignment, and the baseline κ_C used. The humans' word and phrase-pair scores against the automatic
    word alignment are read from the sums the database keeps (`current.current`)."""
    systems = system_alignments(project) if project.layer_word_alignment else {}
    gold = gold_alignments(project) if systems else {}
    machine: dict[str, Any] = {}
    if project.layer_word_alignment or automatic is not None:
        machine = machine_agreement(doc, systems, gold, automatic, aligner=False)
    return {"machine": machine, "kappa_c_baseline": baseline_summary(project)}


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
) -> dict[str, Any]:
    """Store one computation (its section rows are written by the caller, in the same transaction):
    the summary row and the headline row always, the full report when `report_due` (or `full_report`
    asks for it and κ_C is final). Returns the results (`AgreementSnapshot.results`' shape)."""
    results = {
        "report": report,
        "sections": sections,
        "section_keys": section_keys,
        "pending": pending,
        **extras,
    }
    shown = current.with_kept_sums(project.pk, results)  # the report's kept sections are the sums'
    results["headline"] = shown["headline"] = headline(shown)
    duration_ms = round(1000 * (time.perf_counter() - started))
    snapshot = None
    if (full_report and not pending) or report_due(project, bool(pending)):
        snapshot = AgreementSnapshot.objects.create(
            project=project,
            fingerprint=digest,
            results=shown,
            duration_ms=duration_ms,
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


def headline(results: dict[str, Any]) -> dict[str, float | None]:
    """The few measures the trend chart follows (small, so the chart never loads whole reports)."""
    measures = results["report"]["measures"]
    out = {key: measures[key]["value"] for key in HEADLINE_KEYS if key in measures}
    if results.get("pair_labels"):
        out["pair_labels.fleiss"] = results["pair_labels"]["fleiss"]["value"]
    return out


def _kappa_c_is_expensive(
    inputs: _Inputs, previous: dict[str, Any] | None, documents: dict[str, Any]
) -> bool:
    """Whether the κ_C Monte Carlo still to run (none when the current agreement's κ_C has the same
    inputs) exceeds AGREEMENT_KAPPA_C_DEFER_WORK items × samples."""
    work = kappa_c_pending_work(inputs.doc, inputs.fingerprints, previous, documents)
    return work > kappa_c_chunks.small_work()


def document_fingerprint(project: Project, doc: dict[str, Any]) -> str:
    """The fingerprint the agreement of the project's document `doc` is stored under (`_inputs`)."""
    outside = _outside_digest(project, _automatic_phrases(project, doc))
    return _digest(project, doc, document_fingerprints(doc).document, _done_source_ids(project), outside)


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
