"""95 % confidence intervals for every measure of the report (docs/measures.md#intervals).

:func:`report_intervals` returns ``<key>.ci95`` entries for every measure key of ``measures`` that
carries a number (``value``, ``by_pair``, ``by_annotator``, ``by_ordered_pair``, ``by_system``), by
one of three methods, named in the entry's ``method``:

- ``"bootstrap"`` — the fast percentile bootstrap of :mod:`metrics.bootstrap` (DO F1, TPO partial F1,
  word-alignment F1, Fleiss' κ): ``n_resamples`` resamples from per-unit sufficient statistics;
- ``"bootstrap-units"`` — every other measure: the document's units (pairs, or judged items for the
  two-step evaluation) are drawn with replacement, the measure is taken on the resampled document,
  and the interval is the 2.5th–97.5th percentile of the defined resampled values;
  ``min(n_resamples, UNIT_RESAMPLES)`` resamples. The phenomena and word-alignment sections are
  resampled from their kept per-pair statistics (the pair tables of :mod:`metrics.phenomena`, the
  link counts of :func:`metrics.alignment.alignment_counts_by_pair`), in time linear in pairs ×
  resamples; the other sections are recomputed on each resampled document;
- ``"delta-mc"`` — κ_C: ``κ_C ± 1.96·SE`` with ``SE² = SE²_items + SE²_MC``: the sampling error over
  the items by the delta method on ``κ_C = (π̂ − π̂0)/(1 − π̂0)``
  (``∂κ/∂π̂ = 1/(1 − π̂0)``, ``∂κ/∂π̂0 = (π̂ − 1)/(1 − π̂0)²``, per-item influence from each item's
  observed and chance concordance), and the Monte Carlo error of π̂0 (``pi0_se``); the interval of
  the mean over annotator pairs sums the pairs' influences per item. Clipped to ``κ ≤ 1``.

Every resampling uses a generator seeded by ``seed`` and the key, so an interval does not depend on
which other measures the document has. An interval with no defined value is ``None``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from metrics.alignment import (
    _MEASURES as ALIGNMENT_MEASURES,
)
from metrics.alignment import (
    AlignmentCounts,
    alignment_counts_by_pair,
    alignment_report_from_counts,
    section_annotators,
)
from metrics.bootstrap import confidence_intervals, percentile_interval
from metrics.chance import item_concordances
from metrics.layers import LAYERS, has_sense_marks, layer_phenomena, layer_tagset
from metrics.phenomena import PhenomenaAgreement
from metrics.types import Document, Evaluations, Pair

__all__ = ["UNIT_RESAMPLES", "alignment_resampler", "phenomena_resampler", "report_intervals"]

UNIT_RESAMPLES = 200
Z_95 = 1.959963984540054
NOT_MEASURES = (".n_items", ".reason", ".edit_model", ".pi0_se", ".count", ".by_type")
PARTS = ("by_pair", "by_annotator", "by_ordered_pair", "by_system")
Entries = dict[str, dict[str, Any]]
Section = Callable[[Document], Entries]
IntArray = npt.NDArray[np.int64]
#: A section prepared for resampling: drawn unit indices (document order, with repeats) → the
#: section's entries on the document made of those units.
Resampled = Callable[[IntArray], Entries]
SectionSpec = tuple[Section, str, Callable[[Document], Resampled] | None]


def report_intervals(
    doc: Document,
    measures: Entries,
    sections: Sequence[SectionSpec],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> Entries:
    """``<key>.ci95`` for every measure of ``measures`` (module doc). ``sections``: the report's
    section functions (document → entries) with their units, ``"pairs"`` or ``"items"``
    (:func:`metrics.report.report_sections`), each with the factory of its resampling from kept
    per-unit statistics, or None to recompute the section on every resample."""
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    out = {
        k: {**v, "method": "bootstrap"}
        for k, v in confidence_intervals(doc, measures, n_resamples=n_resamples, seed=seed).items()
    }
    out.update(_kappa_c_intervals(doc, measures))
    wanted = [k for k, entry in measures.items() if _is_measure(k, entry) and f"{k}.ci95" not in out]
    for section, units, resampler in sections:
        if resampler is not None:  # the section itself is the resample that draws every unit once
            resample = resampler(doc)
            base = resample(np.arange(len(_unit_ids(doc, units)), dtype=np.int64))
        else:
            resample, base = _recomputed(doc, section, units), section(doc)
        keys = [k for k in wanted if k in base]
        if keys:
            n = min(n_resamples, UNIT_RESAMPLES)
            out.update(_unit_bootstrap(doc, resample, units, {k: base[k] for k in keys}, n=n, seed=seed))
    return out


def _is_measure(key: str, entry: dict[str, Any]) -> bool:
    if key.endswith(NOT_MEASURES) or key.startswith("reeval.") or key.endswith(".ci95"):
        return False
    return any(isinstance(v, float) for v in _leaves(entry).values())


def _leaves(entry: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """(part, name) → number of an entry: ("value", "") and each by_pair/by_annotator/… member."""
    out: dict[tuple[str, str], Any] = {}
    if "value" in entry and not isinstance(entry["value"], dict | list):
        out["value", ""] = entry["value"]
    for part in PARTS:
        for name, v in (entry.get(part) or {}).items():
            if v is None or isinstance(v, int | float) and not isinstance(v, bool):
                out[part, name] = v
    return out


def _rng(seed: int, key: str) -> np.random.Generator:
    digest = int.from_bytes(hashlib.sha256(f"{seed}\x1f{key}".encode()).digest()[:8], "little")
    return np.random.Generator(np.random.PCG64(digest))


def _unit_ids(doc: Document, units: str) -> list[str]:
    return [p.id for p in doc.pairs] if units == "pairs" else _items(doc.evaluations)


def _recomputed(doc: Document, section: Section, units: str) -> Resampled:
    """The section recomputed on each resampled document."""
    ids = _unit_ids(doc, units)
    return lambda drawn: section(_resampled(doc, [ids[i] for i in drawn.tolist()], units))


def phenomena_resampler(doc: Document) -> Resampled:
    """The ``iapta.*`` entries (with the sense layers' ``iapta.sense.*``) of resampled pairs, from the
    pair tables built once (:meth:`metrics.phenomena.PhenomenaAgreement.resampled`): equal to
    :func:`metrics.report.phenomena_report` of the resampled document."""
    assert doc.phenomena is not None
    pairs = [p.id for p in doc.pairs]
    states = [
        ("", PhenomenaAgreement(doc.phenomena, annotators=doc.annotators, tagset=doc.tagset, pairs=pairs))
    ]
    if has_sense_marks(doc.phenomena):
        for layer in LAYERS:
            state = PhenomenaAgreement(
                layer_phenomena(doc.phenomena, layer),
                annotators=doc.annotators,
                tagset=layer_tagset(doc.tagset, layer),
                pairs=pairs,
            )
            states.append((f"sense.{layer}.", state))

    def report(drawn: IntArray) -> Entries:
        out: Entries = {}
        for prefix, state in states:
            for key, entry in state.resampled(drawn).report().items():
                out[f"iapta.{prefix}{key.removeprefix('iapta.')}"] = entry
        return out

    return report


def alignment_resampler(doc: Document) -> Resampled:
    """The ``alignment.*`` entries of resampled pairs, from each pair's link counts taken once
    (:func:`metrics.alignment.alignment_counts_by_pair`) and summed with the draws' multiplicities:
    equal to :func:`metrics.alignment.alignment_report` of the resampled document."""
    assert doc.word_alignments is not None
    annotators = section_annotators(doc, doc.word_alignments)
    combos = [(a, b, name) for a, b in doc.annotator_pairs(annotators) for name in ALIGNMENT_MEASURES]
    column = {combo: c for c, combo in enumerate(combos)}
    counts = np.zeros((len(doc.pairs), len(combos), 4), dtype=np.int64)
    position = {p.id: i for i, p in enumerate(doc.pairs)}
    for pid, by_annotators in alignment_counts_by_pair(doc).items():
        for (a, b), by_name in by_annotators.items():
            for name, c in by_name.items():
                counts[position[pid], column[a, b, name]] = (
                    c.precision_hits,
                    c.n_test,
                    c.recall_hits,
                    c.n_reference,
                )

    def report(drawn: IntArray) -> Entries:
        sums = np.tensordot(np.bincount(drawn, minlength=len(doc.pairs)), counts, axes=1).tolist()
        totals: dict[tuple[str, str], dict[str, AlignmentCounts]] = {}
        for (a, b, name), row in zip(combos, sums, strict=True):
            totals.setdefault((a, b), {})[name] = AlignmentCounts(*row)
        return alignment_report_from_counts(totals, annotators)

    return report


def _unit_bootstrap(
    doc: Document, resample: Resampled, units: str, base: Entries, *, n: int, seed: int
) -> Entries:
    """Percentile intervals of the `base` entries' numbers over `n` resamples of the units."""
    keys = sorted(base)  # the seed must not depend on the order the report was assembled in
    rng = _rng(seed, ",".join(keys))
    n_units = len(_unit_ids(doc, units))
    samples: dict[str, dict[tuple[str, str], list[float]]] = {k: defaultdict(list) for k in keys}
    if n_units:
        for _ in range(n):
            report = resample(rng.integers(0, n_units, size=n_units))
            for k in keys:
                for leaf, v in _leaves(report.get(k, {})).items():
                    samples[k][leaf].append(math.nan if v is None else float(v))
    out: Entries = {}
    for k in keys:
        entry: dict[str, Any] = {"method": "bootstrap-units"}
        for part, name in _leaves(base[k]):
            interval = percentile_interval(np.array(samples[k].get((part, name), []), dtype=np.float64))
            if part == "value":
                entry["value"] = interval
            else:
                entry.setdefault(part, {})[name] = interval
        out[f"{k}.ci95"] = entry
    return out


def _items(evaluations: Evaluations | None) -> list[str]:
    assert evaluations is not None
    return sorted({j.item for j in evaluations.ratings})


def _resampled(doc: Document, drawn: list[str], units: str) -> Document:
    """The document with the drawn units, each draw a unit of its own (id ``<id>\\x1f<k>``)."""
    copies: dict[str, list[str]] = defaultdict(list)
    for k, old in enumerate(drawn):
        copies[old].append(f"{old}\x1f{k}")
    if units == "items":
        ev = doc.evaluations
        assert ev is not None

        def judgements(js: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(dataclasses.replace(j, item=new) for j in js for new in copies.get(j.item, ()))

        return dataclasses.replace(
            doc, evaluations=Evaluations(ev.raters, judgements(ev.ratings), judgements(ev.revisions))
        )
    by_id = doc.pair_by_id
    pairs = tuple(dataclasses.replace(by_id[old], id=f"{old}\x1f{k}") for k, old in enumerate(drawn))

    def rows(section: dict[str, tuple[Any, ...]] | None) -> dict[str, tuple[Any, ...]] | None:
        if section is None:
            return None
        return {
            a: tuple(dataclasses.replace(x, pair=new) for x in xs for new in copies.get(x.pair, ()))
            for a, xs in section.items()
        }

    def by_pair(section: dict[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
        if section is None:
            return None
        return {
            a: {new: v for old, v in m.items() for new in copies.get(old, ())} for a, m in section.items()
        }

    return dataclasses.replace(
        doc,
        pairs=pairs,
        phenomena=rows(doc.phenomena),
        word_alignments=by_pair(doc.word_alignments),
        phrase_alignments=rows(doc.phrase_alignments),
        system_phrase_alignments=rows(doc.system_phrase_alignments),
        pair_labels=by_pair(doc.pair_labels),
    )


@dataclass
class _Pooled:
    """Influence-function variance of a mean over annotator pairs: per-item influences summed over
    the pairs, plus each pair's Monte Carlo variance."""

    by_pair: dict[str, list[float] | None] = field(default_factory=dict)
    influence: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    values: list[float] = field(default_factory=list)
    mc_var: float = 0.0

    def add(
        self, key: str, value: float | None, items: tuple[Pair, ...], psi: list[float], var_mc: float
    ) -> None:
        if value is None:
            self.by_pair[key] = None
            return
        self.by_pair[key] = _normal_interval(value, sum(v * v for v in psi) + var_mc)
        self.values.append(value)
        for pair, v in zip(items, psi, strict=True):
            self.influence[pair.id] += v
        self.mc_var += var_mc

    def entry(self, *, with_pairs: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"method": "delta-mc", "value": None}
        if self.values:
            m = len(self.values)
            var = (sum(v * v for v in self.influence.values()) + self.mc_var) / (m * m)
            out["value"] = _normal_interval(sum(self.values) / m, var)
        if with_pairs:
            out["by_pair"] = self.by_pair
        return out


def _kappa_c_intervals(doc: Document, measures: Entries) -> Entries:
    """κ_C, π̂ and π̂0 by the delta method with the Monte Carlo error (module doc)."""
    if doc.word_alignments is None or "kappa_c" not in measures:
        return {}
    annotators = doc.section_annotators(doc.word_alignments)  # type: ignore[arg-type]
    se_mc = (measures.get("kappa_c.pi0_se") or {}).get("by_pair") or {}
    pooled = {"kappa_c": _Pooled(), "kappa_c.pi_hat": _Pooled(), "kappa_c.pi0": _Pooled()}
    for a, b in doc.annotator_pairs(annotators):
        key = f"{a}|{b}"
        items = item_concordances(doc, a, b)
        se = se_mc.get(key) or 0.0
        n = len(items.pi_hat)
        if not n:
            for p in pooled.values():
                p.add(key, None, (), [], 0.0)
            continue
        pi_hat = sum(items.pi_hat) / n
        pooled["kappa_c.pi_hat"].add(key, pi_hat, items.pairs, [(x - pi_hat) / n for x in items.pi_hat], 0.0)
        if items.pi_0 is not None:
            pi_0 = sum(items.pi_0) / n
            pooled["kappa_c.pi0"].add(key, pi_0, items.pairs, [(y - pi_0) / n for y in items.pi_0], se * se)
        else:
            pooled["kappa_c.pi0"].add(key, None, (), [], 0.0)
        psi, var_mc, kappa = _kappa_c_influence(items.pi_hat, items.pi_0, se)
        pooled["kappa_c"].add(key, kappa, items.pairs, psi, var_mc)
    return {f"{name}.ci95": p.entry(with_pairs=len(annotators) >= 2) for name, p in pooled.items()}


def _kappa_c_influence(
    a: tuple[float, ...], b: tuple[float, ...] | None, se_mc: float | None
) -> tuple[list[float], float, float | None]:
    """Per-item influence on κ_C (divided by n), the Monte Carlo variance of κ_C, and κ_C."""
    n = len(a)
    if b is None or n == 0:
        return [], 0.0, None
    pi_hat, pi_0 = sum(a) / n, sum(b) / n
    if 1.0 - pi_0 <= 1e-12:
        return [], 0.0, None
    d_hat = 1.0 / (1.0 - pi_0)
    d_0 = (pi_hat - 1.0) / (1.0 - pi_0) ** 2
    psi = [(d_hat * (x - pi_hat) + d_0 * (y - pi_0)) / n for x, y in zip(a, b, strict=True)]
    return psi, (d_0 * (se_mc or 0.0)) ** 2, (pi_hat - pi_0) / (1.0 - pi_0)


def _normal_interval(value: float, var: float) -> list[float]:
    """``value ± 1.96·sqrt(var)``, the upper end at most 1 (κ_C, π̂ and π̂0 are at most 1)."""
    half = Z_95 * math.sqrt(max(var, 0.0))
    return [value - half, min(1.0, value + half)]
