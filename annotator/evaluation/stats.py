"""What leads see of the two-step evaluation, besides the κ values of the metrics library.

- Precision per candidate source (the layout of Fujita's Table 4): for each lexicon or system, the
  share of its items whose *majority* binary label is OK, for grammaticality (G2), meaning (M2) and
  both. An item's majority is OK when strictly more than half of its labels are OK (a tie is not OK;
  **Alt:** ties counted as OK). "Both" counts an item when its G majority and its M majority are both
  OK (**Alt:** the majority of per-rater "G and M both OK" — differs only when raters split
  differently on the two viewpoints). Items without labels count in `n_items` but in no denominator;
  a share over no item is `None` (undefined), never 0.
- Progress per rater.
- `lead_summary_context` turns a snapshot's `results["measures"]` (spec §10 keys `fleiss.G5`,
  `fleiss.after.G5`, `cohen.G2` with `by_pair`, …) plus the rows above into plain lists for the
  `evaluation/_lead_summary.html` partial (Fujita's Table 3 layout, a Cohen κ heatmap by rater pair,
  Table 4, progress).

`precision_by_source` is pure (plain dicts in, rows out); the `project_*` and `rater_progress`
functions load its inputs from the database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotator.agreement.document import project_annotators
from annotator.core import counts
from annotator.models import Assignment, EvaluationItem, Judgement
from metrics.types import G2_OK, M2_OK

SCALES = (
    ("G5", "Grammaticality, 5 labels"),
    ("M6", "Meaning, 6 labels"),
    ("G2", "Grammaticality, OK / NG"),
    ("M2", "Meaning, OK / NG"),
)
ALL_SOURCES = "All sources"
NO_SOURCE = "(no source given)"

Labels = Sequence[tuple[str | None, str | None]]  # one (G, M) per rater


@dataclass(frozen=True)
class PrecisionRow:
    source: str
    n_items: int
    g: float | None
    m: float | None
    both: float | None
    n_g: int
    n_m: int
    n_both: int


def majority_ok(labels: Sequence[str | None], ok: frozenset[str]) -> bool | None:
    """True when strictly more than half of the given labels are in `ok`; None without labels."""
    present = [label for label in labels if label is not None]
    if not present:
        return None
    return 2 * sum(label in ok for label in present) > len(present)


def _share(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def precision_row(source: str, items: list[str], labels: Mapping[str, Labels]) -> PrecisionRow:
    g_ok, m_ok, both_ok = [], [], []
    for item in items:
        pairs = labels.get(item, ())
        g = majority_ok([p[0] for p in pairs], G2_OK)
        m = majority_ok([p[1] for p in pairs], M2_OK)
        if g is not None:
            g_ok.append(g)
        if m is not None:
            m_ok.append(m)
        if g is not None and m is not None:
            both_ok.append(g and m)
    return PrecisionRow(
        source, len(items), _share(g_ok), _share(m_ok), _share(both_ok), len(g_ok), len(m_ok), len(both_ok)
    )


def precision_by_source(sources: Mapping[str, str], labels: Mapping[str, Labels]) -> list[PrecisionRow]:
    """Precision of each candidate source (Fujita's Table 4), sources in name order, then all together.

    `sources`: item → candidate source (every item once); `labels`: item → the raters' (G5, M6)
    labels, either of which may be None (not judged). Labels of items not in `sources` are an error.

    >>> rows = precision_by_source({"a": "lex", "b": "lex"},
    ...                            {"a": [("Perfect", "Equivalent")] * 2, "b": [("Irredeemable", "Equivalent")] * 2})
    >>> (rows[0].source, rows[0].g, rows[0].m, rows[0].both)
    ('lex', 0.5, 1.0, 0.5)
    """
    unknown = sorted(set(labels) - set(sources))
    if unknown:
        raise ValueError(f"labels given for items without a candidate source: {', '.join(unknown[:5])}")
    by_source: dict[str, list[str]] = defaultdict(list)
    for item, source in sources.items():
        by_source[source or NO_SOURCE].append(item)
    rows = [precision_row(source, by_source[source], labels) for source in sorted(by_source)]
    if len(rows) > 1:
        rows.append(precision_row(ALL_SOURCES, list(sources), labels))
    return rows


# ---- loading from the database ------------------------------------------------------------------------


def project_labels(project: Any) -> tuple[dict[str, str], dict[str, Labels], dict[str, Labels] | None]:
    """Item → source, and item → raters' (G, M) labels before and (if any revision) after re-evaluation."""

    sources = {
        str(pk): source
        for pk, source in EvaluationItem.objects.filter(unit__project=project).values_list(
            "pk", "candidate_source"
        )
    }
    raters = [user_id for user_id, _ in project_annotators(project)]
    rows = Judgement.objects.filter(item__unit__project=project, rater_id__in=raters).values_list(
        "item_id", "rater_id", "step", "phase", "label"
    )
    initial: dict[tuple[str, int], dict[str, str]] = defaultdict(dict)
    revised: dict[tuple[str, int], dict[str, str]] = defaultdict(dict)
    for item_id, rater_id, step, phase, label in rows:
        target = initial if phase == Judgement.Phase.INITIAL else revised
        target[str(item_id), rater_id]["G" if step == Judgement.Step.GRAMMATICALITY else "M"] = label

    def per_item(table: Mapping[tuple[str, int], dict[str, str]]) -> dict[str, Labels]:
        out: dict[str, list[tuple[str | None, str | None]]] = defaultdict(list)
        for (item, _), gm in table.items():
            out[item].append((gm.get("G"), gm.get("M")))
        return dict(out)

    after = None
    if any(key in initial for key in revised):
        after = per_item({key: {**gm, **revised.get(key, {})} for key, gm in initial.items()})
    return sources, per_item(initial), after


def project_precision(project: Any) -> dict[str, list[PrecisionRow] | None]:
    sources, before, after = project_labels(project)
    return {
        "before": precision_by_source(sources, before) if sources else [],
        "after": precision_by_source(sources, after) if after is not None else None,
    }


@dataclass(frozen=True)
class ProgressRow:
    rater: str
    units: int
    grammaticality_done: int
    finalized: int
    postponed: int
    reevaluation: int
    reevaluation_done: int

    @property
    def percent(self) -> int:
        return round(100 * self.finalized / self.units) if self.units else 0


def rater_progress(project: Any) -> list[ProgressRow]:
    """Per rater: units, step 1 submitted, finalized, postponed; re-evaluation units and finished ones
    (from the stored assignment tallies: one small query, whatever the number of units)."""
    Step, Status = Assignment.Step, Assignment.Status
    tallies = counts.assignment_tallies(project, kind="units")
    raters = sorted({t["username"] for t in tallies})
    first = {rater: [t for t in tallies if t["username"] == rater and t["round"] == 0] for rater in raters}
    again = {rater: [t for t in tallies if t["username"] == rater and t["round"] > 0] for rater in raters}
    return [
        ProgressRow(
            rater=rater,
            units=counts.total(first[rater]),
            grammaticality_done=counts.total(first[rater], step=(Step.MEANING, Step.FINALIZED)),
            finalized=counts.total(first[rater], step=Step.FINALIZED),
            postponed=counts.total(first[rater], status=Status.POSTPONED),
            reevaluation=counts.total(again[rater]),
            reevaluation_done=counts.total(again[rater], status=Status.DONE),
        )
        for rater in raters
    ]


# ---- the lead summary partial ------------------------------------------------------------------------


def snapshot_measures(results: Mapping[str, Any] | None) -> dict[str, Any]:
    """The spec §10 `measures` of a snapshot's results (stored under `report`, or at the top level)."""
    results = results or {}
    return dict(results.get("measures") or (results.get("report") or {}).get("measures") or {})


def kappa_band(value: float | None) -> str:
    """CSS class of a κ value: Landis & Koch's (1977, p. 165) bands, for colour only (the number is
    always shown): < 0.00 poor, 0.00–0.20 slight, 0.21–0.40 fair, 0.41–0.60 moderate, 0.61–0.80
    substantial, 0.81–1.00 almost perfect. The bands are of two-decimal values, so the value is read
    to two decimals (0.806 → 0.81, almost perfect; 0.804 → 0.80, substantial).

    >>> [kappa_band(v) for v in (-0.01, 0.0, 0.2, 0.21, 0.4, 0.6, 0.8, 0.81)]
    ['k-poor', 'k-slight', 'k-slight', 'k-fair', 'k-fair', 'k-moderate', 'k-substantial', 'k-almost']
    """
    if value is None:
        return "k-none"
    read = round(value, 2)
    if read < 0:
        return "k-poor"
    for upper, name in ((0.2, "k-slight"), (0.4, "k-fair"), (0.6, "k-moderate"), (0.8, "k-substantial")):
        if read <= upper:
            return name
    return "k-almost"


def _value(measures: Mapping[str, Any], key: str) -> tuple[float | None, Any]:
    entry = measures.get(key) or {}
    return entry.get("value"), entry.get("n_items")


def _fleiss_rows(measures: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Fleiss' κ per scale, before and after re-evaluation, with their 95 % intervals."""
    rows = []
    for scale, title in SCALES:
        before, n_before = _value(measures, f"fleiss.{scale}")
        after, n_after = _value(measures, f"fleiss.after.{scale}")
        rows.append(
            {
                "scale": scale,
                "title": title,
                "before": before,
                "after": after,
                "n_before": n_before,
                "n_after": n_after,
                "band_before": kappa_band(before),
                "band_after": kappa_band(after),
                "ci_before": (measures.get(f"fleiss.{scale}.ci95") or {}).get("value"),
                "ci_after": (measures.get(f"fleiss.after.{scale}.ci95") or {}).get("value"),
            }
        )
    return rows


def _cohen_cell(
    measures: Mapping[str, Any], key: str, scale: str, when: str, pair: str | None
) -> dict[str, Any]:
    """One cell of the Cohen's κ table: a rater pair's value (`pair`) or the mean over pairs (None)."""
    entry = measures.get(f"{key}.{scale}") or {}
    ci = measures.get(f"{key}.{scale}.ci95") or {}
    if pair is None:
        value, n, interval = entry.get("value"), None, ci.get("value")
    else:
        value = entry.get("by_pair", {}).get(pair)
        n = (entry.get("n_items") or {}).get(pair) if isinstance(entry.get("n_items"), dict) else None
        interval = (ci.get("by_pair") or {}).get(pair)
    return {"scale": scale, "when": when, "value": value, "n": n, "band": kappa_band(value), "ci": interval}


def lead_summary_context(
    measures: Mapping[str, Any] | None,
    precision: Mapping[str, Any] | None = None,
    progress: Sequence[ProgressRow] = (),
) -> dict[str, Any]:
    """Context of `evaluation/_lead_summary.html` from a snapshot's `results["measures"]` and our rows."""
    measures = measures or {}
    when_keys = (("cohen", "before"), ("cohen.after", "after"))
    pairs: list[str] = []
    for scale, _ in SCALES:
        for key, _when in when_keys:
            for pair in (measures.get(f"{key}.{scale}") or {}).get("by_pair", {}):
                if pair not in pairs:
                    pairs.append(pair)
    cohen = [
        {
            "pair": pair,
            "raters": pair.split("|"),
            "cells": [_cohen_cell(measures, k, scale, w, pair) for scale, _ in SCALES for k, w in when_keys],
        }
        for pair in pairs
    ]
    return {
        "has_measures": any(key.startswith(("fleiss.", "cohen.")) for key in measures),
        "fleiss_rows": _fleiss_rows(measures),
        "scales": [scale for scale, _ in SCALES],
        "cohen_rows": cohen,
        "cohen_means": [
            _cohen_cell(measures, k, scale, w, None) for scale, _ in SCALES for k, w in when_keys
        ],
        "precision": precision or {"before": [], "after": None},
        "progress": list(progress),
    }
