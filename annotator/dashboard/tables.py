"""The lead's agreement dashboard as plain data: stored snapshot results → the tables the templates draw.

Nothing here computes agreement; every number comes from the current agreement
(`annotator.agreement.current`, in `AgreementSnapshot.results`' shape). Layouts follow the papers the numbers come from:

- Vila et al. 2015, Table 5: N-, TPO- and DO-measures per annotator pair, DO F1 as the headline.
- Kovatchev et al. (ETPC), Table 5.4: multi-annotator TPO (avg, union, gold), overall and per
  sense-preserving layer (ETPC(+), ETPC(−), both).
- Cohn et al. 2008, Tables 3–4: word and phrase precision / recall / F1, sure and possible, κ_C.
- Arase & Tsujii (SPADE), Table 2: ALIR / ALIP per annotator, with three or more annotators.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from annotator.agreement.results import KAPPA_C
from annotator.dashboard import charts
from annotator.models import AgreementHeadline, AgreementState

Measures = Mapping[str, Any]


@dataclass
class Row:
    """One measure across annotator pairs: `cells[k]` belongs to `pairs[k]`; `mean` over pairs."""

    label: str
    key: str
    cells: list[float | None]
    mean: float | None
    ci: list[float] | None = None
    cell_cis: list[list[float] | None] = field(default_factory=list)
    headline: bool = False
    note: str = ""

    @property
    def cells_with_ci(self) -> list[tuple[float | None, list[float] | None]]:
        """(value, its 95 % interval or None) per annotator pair."""
        cis = self.cell_cis or [None] * len(self.cells)
        return list(zip(self.cells, cis, strict=True))


def annotator_pairs(names: Sequence[str]) -> list[str]:
    return [f"{a}|{b}" for n, a in enumerate(names) for b in names[n + 1 :]]


def _row(
    measures: Measures, key: str, label: str, pairs: Sequence[str], *, headline: bool = False, note: str = ""
) -> Row | None:
    entry = measures.get(key)
    if entry is None:
        return None
    by_pair = entry.get("by_pair", {})
    ci = measures.get(f"{key}.ci95") or {}
    return Row(
        label=label,
        key=key,
        cells=[by_pair.get(p) for p in pairs],
        mean=entry.get("value"),
        ci=ci.get("value"),
        cell_cis=[(ci.get("by_pair") or {}).get(p) for p in pairs],
        headline=headline,
        note=note,
    )


def _rows(
    measures: Measures, spec: Sequence[tuple[str, str]], pairs: Sequence[str], headline: str = ""
) -> list[Row]:
    rows = [_row(measures, key, label, pairs, headline=key == headline) for key, label in spec]
    return [r for r in rows if r is not None]


# Vila et al. Table 5: agr^t = typewise, agr^p = pairwise, agr^{p,t} = pairwise then typewise.
N_MEASURES = [
    ("iapta.n.w", "agr_w"),
    ("iapta.n.w.typewise", "agr_w^t"),
    ("iapta.n.w.pairwise", "agr_w^p"),
    ("iapta.n.w.pairwise_typewise", "agr_w^p,t"),
    ("iapta.n.ph", "agr_ph"),
    ("iapta.n.ph.typewise", "agr_ph^t"),
    ("iapta.n.ph.pairwise", "agr_ph^p"),
    ("iapta.n.ph.pairwise_typewise", "agr_ph^p,t"),
]
TPO_MEASURES = [("iapta.tpo.partial.f1", "TPO partial"), ("iapta.tpo.total.f1", "TPO total")]
DO_MEASURES = [
    ("iapta.do.f1", "DO F1"),
    ("iapta.do.f1.typewise", "DO F1^t"),
    ("iapta.do.f1.pairwise", "DO F1^p"),
    ("iapta.do.f1.pairwise_typewise", "DO F1^p,t"),
]


def phenomena_tables(measures: Measures, names: Sequence[str]) -> dict[str, Any] | None:
    """Vila Table 5 groups, ETPC Table 5.4 and the per-type breakdown (lowest DO F1 first)."""
    if "iapta.do.f1" not in measures:
        return None
    pairs = annotator_pairs(names)
    groups = [
        ("N-measures", _rows(measures, N_MEASURES, pairs)),
        ("TPO-measures", _rows(measures, TPO_MEASURES, pairs)),
        ("DO-measures", _rows(measures, DO_MEASURES, pairs, headline="iapta.do.f1")),
    ]
    multi = []
    for crit in ("partial", "total"):
        avg = (measures.get(f"iapta.tpo.{crit}.f1") or {}).get("value")
        union = (measures.get(f"iapta.tpo.{crit}.union") or {}).get("value")
        gold = (measures.get(f"iapta.tpo.{crit}.gold") or {}).get("value")
        cis = {
            part: (measures.get(f"iapta.tpo.{crit}.{key}.ci95") or {}).get("value")
            for part, key in (("avg", "f1"), ("union", "union"), ("gold", "gold"))
        }
        multi.append({"criterion": crit, "avg": avg, "union": union, "gold": gold, "ci": cis})
    counts = (measures.get("iapta.phenomena.count") or {}).get("by_annotator", {})
    return {
        "pairs": pairs,
        "groups": [(title, rows) for title, rows in groups if rows],
        "multi": multi if len(names) >= 3 else None,
        "sense_layers": sense_layer_rows(measures),
        "by_type": by_type_rows(measures, pairs),
        "counts": [(name, counts.get(name, 0)) for name in names],
    }


#: ETPC's sense-preserving layers as Table 5.4 names them (report prefix `iapta.sense.<layer>.`).
SENSE_LAYERS = [("plus", "ETPC(+)"), ("minus", "ETPC(−)"), ("both", "ETPC(+/−)")]


def sense_layer_rows(measures: Measures) -> list[dict[str, Any]] | None:
    """ETPC Table 5.4 per layer: multi-annotator TPO (avg, union, gold) for the partial and total
    criteria, DO F1 and the number of phenomena; None when no phenomenon is marked (no such keys)."""
    if not any(key.startswith("iapta.sense.") for key in measures):
        return None
    rows = []
    for layer, label in SENSE_LAYERS:
        prefix = f"iapta.sense.{layer}."
        counts = (measures.get(prefix + "phenomena.count") or {}).get("by_annotator", {})
        for crit in ("partial", "total"):
            rows.append(
                {
                    "layer": label,
                    "first": crit == "partial",
                    "criterion": crit,
                    "avg": (measures.get(f"{prefix}tpo.{crit}.f1") or {}).get("value"),
                    "union": (measures.get(f"{prefix}tpo.{crit}.union") or {}).get("value"),
                    "gold": (measures.get(f"{prefix}tpo.{crit}.gold") or {}).get("value"),
                    "do_f1": (measures.get(prefix + "do.f1") or {}).get("value"),
                    "phenomena": sum(counts.values()),
                }
            )
    return rows


def by_type_rows(measures: Measures, pairs: Sequence[str]) -> list[dict[str, Any]]:
    """Per type: DO F1 and agr_ph per annotator pair and their mean, lowest mean DO F1 first."""
    do = (measures.get("iapta.do.f1.by_type") or {}).get("by_pair", {})
    ph = (measures.get("iapta.n.ph.by_type") or {}).get("by_pair", {})
    types = list(dict.fromkeys(t for p in pairs for t in (do.get(p) or {})))
    rows = []
    for name in types:
        cells = [(do.get(p) or {}).get(name) for p in pairs]
        defined = [v for v in cells if v is not None]
        ph_defined = [v for p in pairs if (v := (ph.get(p) or {}).get(name)) is not None]
        rows.append(
            {
                "type": name,
                "cells": cells,
                "mean": sum(defined) / len(defined) if defined else None,
                "agr_ph": sum(ph_defined) / len(ph_defined) if ph_defined else None,
            }
        )
    rows.sort(key=lambda r: (r["mean"] is None, r["mean"] if r["mean"] is not None else 0.0, r["type"]))
    return rows


WORD_TIERS = [
    ("alignment.words", "Sure vs possible (Och & Ney)"),
    ("alignment.words.sure", "Sure only"),
    ("alignment.words.possible", "Possible (S ∪ P)"),
]
PHRASE_TIERS = [("alignment.phrases", "Possible (S ∪ P)"), ("alignment.phrases.sure", "Sure only")]


def _prf_rows(
    measures: Measures, tiers: Sequence[tuple[str, str]], pairs: Sequence[str]
) -> list[dict[str, Any]]:
    """Per tier: (value, 95 % interval or None) of P, R and F1 for each annotator pair (`by_pair`) and
    of their means (`mean`)."""
    rows = []
    for prefix, label in tiers:
        if f"{prefix}.f1" not in measures:
            continue
        parts = ("precision", "recall", "f1")
        entries = [measures.get(f"{prefix}.{part}") or {} for part in parts]
        cis = [measures.get(f"{prefix}.{part}.ci95") or {} for part in parts]
        rows.append(
            {
                "label": label,
                "key": prefix,
                "by_pair": [
                    [
                        (e.get("by_pair", {}).get(p), _part(c, "by_pair", p))
                        for e, c in zip(entries, cis, strict=True)
                    ]
                    for p in pairs
                ],
                "mean": [(e.get("value"), c.get("value")) for e, c in zip(entries, cis, strict=True)],
            }
        )
    return rows


def alignment_tables(
    measures: Measures, names: Sequence[str], pending: Sequence[str]
) -> dict[str, Any] | None:
    """Cohn et al. Tables 3–4 (per annotator pair) and SPADE Table 2 (per annotator)."""
    if "alignment.words.f1" not in measures and "spade.alir" not in measures:
        return None
    pairs = annotator_pairs(names)
    kappa = []
    for p in pairs:
        kappa.append(
            {
                "pair": p,
                "kappa_c": (measures.get("kappa_c") or {}).get("by_pair", {}).get(p),
                "pi_hat": (measures.get("kappa_c.pi_hat") or {}).get("by_pair", {}).get(p),
                "pi0": (measures.get("kappa_c.pi0") or {}).get("by_pair", {}).get(p),
                "n_items": (measures.get("kappa_c.n_items") or {}).get("by_pair", {}).get(p),
                "reason": (measures.get("kappa_c.reason") or {}).get("by_pair", {}).get(p),
                "ci": ((measures.get("kappa_c.ci95") or {}).get("by_pair") or {}).get(p),
            }
        )
    spade = None
    alir = measures.get("spade.alir") or {}
    if alir.get("value") is not None:
        alip = measures.get("spade.alip") or {}
        alir_ci = measures.get("spade.alir.ci95") or {}
        alip_ci = measures.get("spade.alip.ci95") or {}
        spade = {
            "rows": [
                (
                    name,
                    (alir.get("by_annotator", {}).get(name), _part(alir_ci, "by_annotator", name)),
                    ((alip.get("by_annotator") or {}).get(name), _part(alip_ci, "by_annotator", name)),
                )
                for name in names
                if name in alir.get("by_annotator", {})
            ],
            "alir": (alir.get("value"), alir_ci.get("value")),
            "alip": (alip.get("value"), alip_ci.get("value")),
        }
    return {
        "pairs": pairs,
        "words": _prf_rows(measures, WORD_TIERS, pairs),
        "phrases": _prf_rows(measures, PHRASE_TIERS, pairs),
        "kappa": kappa if "kappa_c" in measures else [],
        "kappa_mean": (measures.get("kappa_c") or {}).get("value"),
        "kappa_mean_ci": (measures.get("kappa_c.ci95") or {}).get("value"),
        "kappa_pending": "kappa_c" in pending,
        "spade": spade,
    }


def _part(ci: Mapping[str, Any], part: str, name: str) -> Any:
    """The interval of one annotator (pair) in a `<key>.ci95` entry, or None."""
    return (ci.get(part) or {}).get(name)


def label_tables(results: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any] | None:
    """Cohen's κ per annotator pair and Fleiss' κ of the pair labels, each with its 95 % interval when
    the current figures carry one (`pair_labels.cohen.ci95`, `pair_labels.fleiss.ci95`)."""
    labels = results.get("pair_labels")
    if not labels:
        return None
    pairs = annotator_pairs(names)
    cohen = labels["cohen"]
    measures = (results.get("report") or {}).get("measures") or {}
    cohen_ci = measures.get("pair_labels.cohen.ci95") or {}
    return {
        "rows": [
            (p, cohen["by_pair"].get(p), cohen["n_items"].get(p), _part(cohen_ci, "by_pair", p))
            for p in pairs
        ],
        "cohen_mean": cohen["value"],
        "cohen_mean_ci": cohen_ci.get("value"),
        "fleiss_ci": (measures.get("pair_labels.fleiss.ci95") or {}).get("value"),
        "fleiss": labels["fleiss"],
        "counts": [(name, labels["counts"].get(name)) for name in names],
        "disagreeing_pairs": labels.get("disagreeing_pairs", 0),
    }


EVALUATION_SCALES = ("G5", "M6", "G2", "M2")


def evaluation_rows(measures: Measures) -> list[dict[str, Any]]:
    rows = []
    for scale in EVALUATION_SCALES:
        if f"fleiss.{scale}" not in measures:
            continue
        rows.append(
            {
                "scale": scale,
                "fleiss": measures[f"fleiss.{scale}"],
                "fleiss_after": measures.get(f"fleiss.after.{scale}") or {},
                "cohen": (measures.get(f"cohen.{scale}") or {}).get("value"),
                "ci": (measures.get(f"fleiss.{scale}.ci95") or {}).get("value"),
                "after_ci": (measures.get(f"fleiss.after.{scale}.ci95") or {}).get("value"),
                "cohen_ci": (measures.get(f"cohen.{scale}.ci95") or {}).get("value"),
            }
        )
    return rows


HEATMAPS = [
    ("iapta.do.f1", "DO F1 (phenomena)", 0.0),
    ("alignment.words.f1", "Word alignment F1", 0.0),
    ("kappa_c", "κ_C (alignment)", -1.0),
]


def heatmaps(results: Mapping[str, Any], names: Sequence[str]) -> list[dict[str, Any]]:
    """Pairwise agreement tables for the headline measures present in the snapshot."""
    measures = results["report"]["measures"]
    out = []
    for key, label, low in HEATMAPS:
        if key in measures and len(names) >= 2:
            rows = charts.heatmap(names, measures[key].get("by_pair", {}), label=label, low=low)
            out.append({"label": label, "rows": rows, "legend": charts.legend(low, 1.0), "measure": key})
    labels = results.get("pair_labels")
    if labels and len(names) >= 2:
        label = "Pair label Cohen κ"
        rows = charts.heatmap(names, labels["cohen"]["by_pair"], label=label, low=-1.0)
        out.append({"label": label, "rows": rows, "legend": charts.legend(-1.0, 1.0), "measure": "cohen"})
    return out


TREND_SERIES = [
    ("iapta.do.f1", "DO F1"),
    ("iapta.tpo.partial.f1", "TPO partial"),
    ("alignment.words.f1", "Word F1"),
    ("kappa_c", "κ_C"),
    ("pair_labels.fleiss", "Label Fleiss κ"),
    ("fleiss.G2", "Fleiss G2"),
    ("fleiss.M2", "Fleiss M2"),
]
TREND_LIMIT = 200


def trend(project_id: int) -> Any:
    """Inline SVG of the headline measures over the last computations (one query of the small
    `AgreementHeadline` rows, which outlive the full reports retention prunes)."""
    rows = list(
        AgreementHeadline.objects.filter(project_id=project_id)
        .order_by("-computed_at", "-id")
        .values_list("computed_at", "values")[:TREND_LIMIT]
    )
    rows.reverse()
    series = []
    for key, name in TREND_SERIES:
        points: list[tuple[datetime, float | None]] = [(at, (h or {}).get(key)) for at, h in rows]
        if any(v is not None for _, v in points):
            series.append(charts.Series(name, points))
    return charts.trend_svg(series, title="Headline agreement over snapshots")


def status_rows(project_id: int) -> tuple[AgreementState | None, dict[str, Any] | None]:
    """The project's AgreementState and its latest computation (`AgreementHeadline` row): id,
    computed_at, duration_ms and pending sections (κ_C, the only section ever deferred) — what the
    status line shows (the dashboard polls it every second)."""
    state = AgreementState.objects.filter(project_id=project_id).first()
    computation = (
        AgreementHeadline.objects.filter(project_id=project_id)
        .order_by("-computed_at", "-id")
        .only("id", "computed_at", "duration_ms", "pending")
        .first()
    )
    if computation is None:
        return state, None
    latest = {
        "id": computation.id,
        "computed_at": computation.computed_at,
        "duration_ms": computation.duration_ms,
        "pending": [KAPPA_C] if computation.pending else [],
    }
    return state, latest


def status(state: AgreementState | None, latest: dict[str, Any] | None) -> dict[str, Any]:
    """What the status line says: last snapshot time, recomputing…, behind, last error."""
    pending = (latest or {}).get("pending") or []
    return {
        "latest": latest,
        "recomputing": bool(state and state.is_behind) or bool(pending),
        "pending": pending,
        "behind": bool(state and state.enqueue_failed),
        "error": state.last_error if state else "",
    }


def system_spade_rows(measures: Measures) -> list[tuple[str, float | None, float | None]]:
    """(system, ALIR, ALIP) of each registered system's phrase alignments against the annotators."""
    alir = (measures.get("spade.system.alir") or {}).get("by_system", {})
    alip = (measures.get("spade.system.alip") or {}).get("by_system", {})
    return [(name, alir.get(name), alip.get(name)) for name in sorted(alir)]
