"""The project's current agreement as stored piece by piece: report sections, summary, kept sums.

`current(project)` is "the agreement now" every reader shows (dashboard, API, exports): the report
assembled from the section rows (`AgreementSection`, one per report section, rewritten only when the
section changes) and the summary row every computation rewrites (`SUMMARY`: pending sections,
annotators, pair-label summary, machine agreement, progress, κ_C baseline, headline, time). Full reports
(`AgreementSnapshot`) are stored at a bounded cadence (`annotator.agreement.computation`), so the latest
of them may be older than the current agreement; readers never need one.

The pair-label figures (Cohen's and Fleiss' κ, disagreeing pairs, label counts), the word alignment
P/R/F1, the humans against the automatic alignment and the IAPTA phenomena measures (N, TPO, DO and
their variants) are not taken from the stored sections but read from the sums the database keeps
(`annotator.agreement.sums`, `annotator.agreement.pair_parts`, `annotator.agreement.phenomena_parts`),
so they include every committed save.

The 95 % confidence intervals (`<key>.ci95`) are the section row `intervals` (`INTERVALS`), computed by
their own task (`computation.compute_intervals`) and stored with the fingerprint of the figures they
belong to (`figures_fingerprint`: the computation's fingerprint and the digest of the kept sums, so it
covers every figure `current` shows); `current` adds them to the measures only when that fingerprint is
the current figures' and κ_C is final: intervals of other figures are not shown.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from collections.abc import Mapping
from typing import Any

import annotator.agreement.sums as sums
from annotator.agreement.results import INTERVALS, pair_label_summary
from annotator.models import (
    AgreementHeadline,
    AgreementSection,
    AgreementSnapshot,
    Project,
)

#: The section row every computation rewrites with what the report sections do not hold (`Current`).
SUMMARY = "summary"
#: Section rows that are not report sections (`INTERVALS`: the confidence intervals of the figures of
#: one fingerprint).
NOT_REPORT = (SUMMARY, INTERVALS)
REPORT_FORMAT = "paraphrase-agreement-report/1"


@dataclasses.dataclass(frozen=True)
class Current:
    """The project's agreement as of its latest computation, in the shape of a stored report.

    `results` has `AgreementSnapshot.results`' keys (report, sections, section_keys, pending, annotators,
    pair_labels, progress, machine, kappa_c_baseline, headline); `computation` is the id of the
    computation's `AgreementHeadline` row, `report` the id of the full report stored of this very state
    (None while the cadence has not stored one, `annotator.agreement.computation`).
    """

    results: dict[str, Any]
    fingerprint: str
    computed_at: dt.datetime
    duration_ms: int
    computation: int | None
    report: int | None
    #: The fingerprint of the figures shown (`figures_fingerprint`; "" for an old stored report).
    figures: str = ""
    #: "current" (the `<key>.ci95` entries shown were computed from these very figures' inputs) or
    #: "updating" (the figures have no intervals of their own yet: none are shown).
    intervals: str = "updating"


def store_summary(
    project: Project, results: Mapping[str, Any], *, fingerprint: str, headline: AgreementHeadline
) -> None:
    """Rewrite the project's summary row: `results` without the report's measures (they are on the
    section rows; of the pair-label summary only the label counts, its κ values are the section's) and
    the computation's time, duration and headline row."""
    summary = {key: value for key, value in results.items() if key != "report"}
    if results.get("pair_labels") is not None:  # κ values are the pair_labels section's: not copied
        summary["pair_labels"] = {"counts": results["pair_labels"]["counts"]}
    summary["computation"] = {
        "id": headline.pk,
        "computed_at": headline.computed_at.isoformat(),
        "duration_ms": headline.duration_ms,
        "report": headline.snapshot_id,
    }
    AgreementSection.objects.update_or_create(
        project=project, name=SUMMARY, defaults={"fingerprint": fingerprint, "measures": summary}
    )


def summary_state(project: Project | int) -> tuple[str, list[str]] | None:
    """(fingerprint, pending sections) of the project's current agreement, from the summary row alone
    (not the report's sections, which `current` assembles); None before the first computation."""
    project_id = project if isinstance(project, int) else project.pk
    row = (
        AgreementSection.objects.filter(project_id=project_id, name=SUMMARY)
        .values_list("fingerprint", "measures")
        .first()
    )
    if row is None:
        latest = _latest_report(project_id)
        return None if latest is None else (latest.fingerprint, list(latest.results.get("pending") or []))
    return row[0], list(row[1].get("pending") or [])


def current(project: Project | int) -> Current | None:
    """The project's current agreement assembled from its section rows (one row per report section and
    the summary row); a project computed before the summary row existed answers its latest full report.
    None before the first computation."""
    project_id = project if isinstance(project, int) else project.pk
    rows: dict[str, Any] = {}
    digests: dict[str, str] = {}
    for name, stored, digest in AgreementSection.objects.filter(project_id=project_id).values_list(
        "name", "measures", "fingerprint"
    ):
        rows[name] = stored
        digests[name] = digest
    fingerprint = digests.get(SUMMARY, "")
    summary = rows.pop(SUMMARY, None)
    if summary is None:
        return _latest_report(project_id)
    measures: dict[str, Any] = {}
    keys: dict[str, list[str]] = summary.get("section_keys") or {}
    for name in keys:
        section = rows.get(name) or {}
        measures.update({key: section[key] for key in keys[name] if key in section})
    meta = summary["computation"]
    results = {key: value for key, value in summary.items() if key != "computation"}
    results["report"] = {"format": REPORT_FORMAT, "measures": dict(sorted(measures.items()))}
    kept = _with_kept_sums(project_id, results, measures, keys)
    intervals = rows.get(INTERVALS)
    shown = _figures_fingerprint(fingerprint, kept)
    own = intervals is not None and digests[INTERVALS] == shown and not results.get("pending")
    if intervals is not None and own:
        measures.update(intervals)  # computed for exactly these figures
        results["report"]["measures"] = dict(sorted(measures.items()))
    return Current(
        figures=shown,
        intervals="current" if own else "updating",
        results=results,
        fingerprint=fingerprint,
        computed_at=dt.datetime.fromisoformat(meta["computed_at"]),
        duration_ms=int(meta["duration_ms"]),
        computation=meta["id"],
        report=meta.get("report"),
    )


def with_kept_sums(project_id: int, results: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a computation's `results` with the figures of the sums the database keeps as they are
    now (`_with_kept_sums`): what a stored full report holds, as `current` shows it."""
    out = {**results, "report": {**results["report"], "measures": dict(results["report"]["measures"])}}
    _with_kept_sums(project_id, out, out["report"]["measures"], out.get("section_keys") or {})
    return out


def _with_kept_sums(
    project_id: int, results: dict[str, Any], measures: dict[str, Any], sections: Mapping[str, Any]
) -> str:
    """Put the figures of the sums the database keeps (as they are now: every committed save) in
    `results` and its report's `measures`: pair labels, word alignments, phenomena (the IAPTA keys
    but the sense layers', `iapta.sense.*`) and phrase alignments (SPADE's ALIR and ALIP) when the
    project's report has the section, and the humans against the automatic alignment. Returns the
    sums' digest."""
    kept = sums.kept_figures(project_id)
    if results.get("pair_labels") is not None:
        measures.update(kept["pair_labels"]["measures"])
        results["pair_labels"] = pair_label_summary(measures, kept["pair_labels"]["counts"])
    if "word_alignments" in sections:
        measures.update(kept["alignment"])
    if "phenomena" in sections:
        measures.update(kept["phenomena"]())
    if "phrase_alignments" in sections:
        measures.update(kept["phrases"])
    machine = results.get("machine") or {}
    if "aligner" in machine:
        tree = {row["annotator"]: row["tree_phrase"] for row in machine["aligner"] if "tree_phrase" in row}
        results["machine"] = {
            **machine,
            "aligner": [
                {**row, **({"tree_phrase": tree[row["annotator"]]} if row["annotator"] in tree else {})}
                for row in kept["aligner"](tree)
            ],
        }
    results["report"]["measures"] = dict(sorted(measures.items()))
    return str(kept["digest"])


def _figures_fingerprint(digest: str, kept_digest: str) -> str:
    return hashlib.sha256(f"{digest}|{kept_digest}".encode()).hexdigest()


def figures_fingerprint(project: Project | int) -> str | None:
    """The fingerprint of the figures `current` shows now: the current agreement's fingerprint and the
    digest of the sums the database keeps (`sums.kept_digest`), which the pair-label, word-alignment,
    phenomena and phrase-alignment figures are read from. None before the first computation and while κ_C is pending (the figures are
    not final)."""
    project_id = project if isinstance(project, int) else project.pk
    state = summary_state(project_id)
    if state is None or state[1]:
        return None
    return _figures_fingerprint(state[0], sums.kept_digest(project_id))


def latest_computation_at(project: Project | int) -> dt.datetime | None:
    """When the project's latest computation stored its figures (its headline row: every computation
    that stores writes one); None before the first."""
    project_id = project if isinstance(project, int) else project.pk
    return (
        AgreementHeadline.objects.filter(project_id=project_id)
        .order_by("-computed_at", "-id")
        .values_list("computed_at", flat=True)
        .first()
    )


def _latest_report(project_id: int) -> Current | None:
    snapshot = (
        AgreementSnapshot.objects.filter(project_id=project_id, scope="project")
        .order_by("-computed_at", "-id")
        .first()
    )
    if snapshot is None:
        return None
    return Current(
        results=snapshot.results,
        fingerprint=snapshot.fingerprint,
        computed_at=snapshot.computed_at,
        duration_ms=snapshot.duration_ms,
        computation=None,
        report=snapshot.pk,
    )


def current_report(project: Project) -> AgreementSnapshot | None:
    """The full report of the current agreement, stored now when the cadence has not stored one of this
    state (pinning "the current report", a re-annotation round's "before"); None before the first
    computation."""
    now = current(project)
    if now is None:
        return None
    if now.report is not None:
        stored = AgreementSnapshot.objects.filter(pk=now.report, project=project).first()
        if stored is not None:
            return stored
    snapshot = AgreementSnapshot.objects.create(
        project=project, fingerprint=now.fingerprint, results=now.results, duration_ms=now.duration_ms
    )
    note_report(project, snapshot.pk)
    return snapshot


def note_report(project: Project | int, snapshot_id: int) -> None:
    """Record on the summary row (and the computation's headline row) that full report `snapshot_id`
    holds the current agreement."""
    project_id = project if isinstance(project, int) else project.pk
    row = AgreementSection.objects.filter(project_id=project_id, name=SUMMARY).first()
    if row is None:
        return
    AgreementHeadline.objects.filter(pk=row.measures["computation"]["id"], snapshot__isnull=True).update(
        snapshot_id=snapshot_id
    )
    row.measures = {**row.measures, "computation": {**row.measures["computation"], "report": snapshot_id}}
    row.save(update_fields=["measures", "updated_at"])


def store_intervals(project: Project, intervals: Mapping[str, Any], *, fingerprint: str) -> None:
    """Rewrite the project's `intervals` row: the `<key>.ci95` entries of the figures whose fingerprint
    (`figures_fingerprint`) is `fingerprint`."""
    AgreementSection.objects.update_or_create(
        project=project, name=INTERVALS, defaults={"fingerprint": fingerprint, "measures": dict(intervals)}
    )


def intervals_fingerprint(project: Project | int) -> str | None:
    """The fingerprint of the figures the stored intervals belong to; None when none are stored."""
    project_id = project if isinstance(project, int) else project.pk
    return (
        AgreementSection.objects.filter(project_id=project_id, name=INTERVALS)
        .values_list("fingerprint", flat=True)
        .first()
    )


def fingerprint(project: Project | int) -> str | None:
    """The fingerprint of the current agreement's inputs (one small column read); None before the first
    computation."""
    project_id = project if isinstance(project, int) else project.pk
    digest = (
        AgreementSection.objects.filter(project_id=project_id, name=SUMMARY)
        .values_list("fingerprint", flat=True)
        .first()
    )
    if digest is not None:
        return digest
    return (
        AgreementSnapshot.objects.filter(project_id=project_id, scope="project")
        .order_by("-computed_at", "-id")
        .values_list("fingerprint", flat=True)
        .first()
    )
