"""Bootstrap 95 % confidence intervals for the headline measures (opt-in: ``--ci``).

Percentile bootstrap (Efron & Tibshirani 1993, ch. 13): the units are resampled with replacement
``n_resamples`` times (default :data:`DEFAULT_RESAMPLES` = 1000), the measure is recomputed on each
resample from per-unit sufficient statistics (one matrix product, no re-annotation), and the
interval is the 2.5th and 97.5th percentile of the defined resampled values. Units: the document's
pairs for ``iapta.do.f1``, ``iapta.tpo.partial.f1`` and ``alignment.words.f1``; the judged items for
``fleiss.*``. Every key gets a fresh ``Generator(PCG64(seed))``, so an interval does not depend on
which other sections the document has. Emitted as ``<key>.ci95 = {"value": [lo, hi], "by_pair":
{"a|b": [lo, hi]}}``; an interval with no defined resample is ``None``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from metrics.iapta import _D_XY, _D_YX, _N_X, _N_Y, _P_XY, _P_YX, _do_f1_vec, _hm_vec, _ratio
from metrics.kappa import rating_table
from metrics.phenomena import PhenomenaAgreement
from metrics.reeval import after_revisions
from metrics.types import SCALES, Document, scale_label

__all__ = ["DEFAULT_RESAMPLES", "percentile_interval", "confidence_intervals", "word_link_counts"]

DEFAULT_RESAMPLES = 1000
_CHUNK = 200  # resamples per matrix product (bounds memory for large documents)
FloatArray = npt.NDArray[np.float64]
Interval = list[float] | None


def percentile_interval(samples: FloatArray) -> Interval:
    """``[2.5th, 97.5th]`` percentile of the non-NaN ``samples``; ``None`` if there is none."""
    ok = samples[~np.isnan(samples)]
    if not len(ok):
        return None
    lo, hi = np.percentile(ok, [2.5, 97.5])
    return [float(lo), float(hi)]


def _resampled_sums(stats: FloatArray, *, n_resamples: int, seed: int) -> FloatArray:
    """``(n_resamples, fields)`` sums of ``stats`` rows over resamples of its rows with replacement."""
    rng = np.random.Generator(np.random.PCG64(seed))
    n = stats.shape[0]
    out = np.empty((n_resamples, stats.shape[1]))
    for start in range(0, n_resamples, _CHUNK):
        size = min(_CHUNK, n_resamples - start)
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(np.float64)
        out[start : start + size] = weights @ stats
    return out


def confidence_intervals(
    doc: Document, measures: dict[str, Any], *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """``<key>.ci95`` entries for the headline measures present in ``measures`` (see module doc)."""
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    out: dict[str, dict[str, Any]] = {}
    if doc.phenomena is not None and doc.pairs and "iapta.do.f1" in measures:
        out.update(_iapta_intervals(doc, n_resamples=n_resamples, seed=seed))
    if doc.word_alignments is not None and doc.pairs and "alignment.words.f1" in measures:
        out.update(_word_intervals(doc, n_resamples=n_resamples, seed=seed))
    if doc.evaluations is not None:
        out.update(_fleiss_intervals(doc, measures, n_resamples=n_resamples, seed=seed))
    return out


def _pairwise_entry(by_pair: dict[str, FloatArray]) -> dict[str, Any]:
    """Intervals per annotator pair and of the mean over pairs (resample by resample)."""
    entry: dict[str, Any] = {"by_pair": {k: percentile_interval(v) for k, v in by_pair.items()}}
    if by_pair:
        stacked = np.stack(list(by_pair.values()))
        ok = ~np.isnan(stacked)
        mean = _ratio(np.where(ok, stacked, 0.0).sum(axis=0), ok.sum(axis=0).astype(np.float64))
        entry["value"] = percentile_interval(mean)
    else:
        entry["value"] = None
    return entry


def _iapta_intervals(doc: Document, *, n_resamples: int, seed: int) -> dict[str, dict[str, Any]]:
    assert doc.phenomena is not None
    state = PhenomenaAgreement(
        doc.phenomena, annotators=doc.annotators, tagset=doc.tagset, pairs=[p.id for p in doc.pairs]
    )
    do: dict[str, FloatArray] = {}
    tpo: dict[str, FloatArray] = {}
    for (a, b), tables in state.tables.items():
        s = _resampled_sums(tables.dense(tables.per_pair), n_resamples=n_resamples, seed=seed)
        do[f"{a}|{b}"] = _do_f1_vec(s[:, _N_X], s[:, _N_Y], s[:, _D_XY], s[:, _D_YX])
        tpo[f"{a}|{b}"] = _ratio(s[:, _P_XY] + s[:, _P_YX], s[:, _N_X] + s[:, _N_Y])
    return {"iapta.do.f1.ci95": _pairwise_entry(do), "iapta.tpo.partial.f1.ci95": _pairwise_entry(tpo)}


def word_link_counts(doc: Document, a: str, b: str) -> FloatArray:
    """Per pair ``(|S'_a ∩ P'_b|, |S'_a|, |P'_a ∩ S'_b|, |S'_b|)`` over pairs annotated by both
    (docs/measures.md#word-alignment).

    ``S'``/``P'`` exclude identical links (``tokens1[i] = tokens2[j]``, exact or casefold per
    ``options.identical_match``); pairs not annotated by both are rows of zeros.
    """
    assert doc.word_alignments is not None
    wa, wb = doc.word_alignments.get(a, {}), doc.word_alignments.get(b, {})
    fold = doc.options.identical_match == "casefold"
    counts = np.zeros((len(doc.pairs), 4))
    for p, pair in enumerate(doc.pairs):
        if pair.id not in wa or pair.id not in wb:
            continue
        t1 = [t.casefold() for t in pair.tokens1] if fold else pair.tokens1
        t2 = [t.casefold() for t in pair.tokens2] if fold else pair.tokens2

        def keep(links: frozenset[tuple[int, int]], t1: Any = t1, t2: Any = t2) -> set[tuple[int, int]]:
            return {(i, j) for i, j in links if t1[i] != t2[j]}

        s_a, p_a = keep(wa[pair.id].S), keep(wa[pair.id].P)
        s_b, p_b = keep(wb[pair.id].S), keep(wb[pair.id].P)
        counts[p] = (len(s_a & p_b), len(s_a), len(p_a & s_b), len(s_b))
    return counts


def _word_intervals(doc: Document, *, n_resamples: int, seed: int) -> dict[str, dict[str, Any]]:
    annotators = doc.section_annotators(doc.word_alignments)  # type: ignore[arg-type]
    f1: dict[str, FloatArray] = {}
    for a, b in doc.annotator_pairs(annotators):
        s = _resampled_sums(word_link_counts(doc, a, b), n_resamples=n_resamples, seed=seed)
        f1[f"{a}|{b}"] = _hm_vec(_ratio(s[:, 0], s[:, 1]), _ratio(s[:, 2], s[:, 3]))
    return {"alignment.words.f1.ci95": _pairwise_entry(f1)}


def _fleiss_intervals(
    doc: Document, measures: dict[str, Any], *, n_resamples: int, seed: int
) -> dict[str, dict[str, Any]]:
    assert doc.evaluations is not None
    out: dict[str, dict[str, Any]] = {}
    for suffix, judgements in (("", doc.evaluations.ratings), (".after", after_revisions(doc.evaluations))):
        for scale in SCALES:
            key = f"fleiss{suffix}.{scale}"
            if key not in measures:
                continue
            rated = [(j.item, lab) for j in judgements if (lab := scale_label(j, scale)) is not None]
            out[f"{key}.ci95"] = {"value": _fleiss_interval(rated, n_resamples=n_resamples, seed=seed)}
    return out


def _fleiss_interval(rated: list[tuple[str, str]], *, n_resamples: int, seed: int) -> Interval:
    if not rated:
        return None
    table, _, _ = rating_table([i for i, _ in rated], [lab for _, lab in rated])
    n_ij = table[table.sum(axis=1) >= 2].astype(np.float64)
    if not len(n_ij):
        return None
    n_i = n_ij.sum(axis=1)
    P_i = (n_ij * (n_ij - 1)).sum(axis=1) / (n_i * (n_i - 1))  # noqa: N806 - Fleiss' symbol
    stats = np.column_stack([np.ones(len(n_i)), P_i, n_i, n_ij])
    s = _resampled_sums(stats, n_resamples=n_resamples, seed=seed)
    P_bar = s[:, 1] / s[:, 0]  # noqa: N806
    p_j = s[:, 3:] / s[:, 2:3]
    P_e = (p_j * p_j).sum(axis=1)  # noqa: N806
    kappa = np.where(1 - P_e <= 1e-12, np.nan, (P_bar - P_e) / np.where(1 - P_e <= 1e-12, 1.0, 1 - P_e))
    return percentile_interval(kappa)
