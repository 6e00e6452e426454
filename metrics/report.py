"""The agreement report of an interchange document (docs/measures.md#report; spec §10).

:func:`build_report` returns ``{"format": "paraphrase-agreement-report/1", "measures": {key: entry}}``
with every key of every section present in the document. Values are plain Python (``float``,
``int``, ``str``, ``None``, lists and dicts) and JSON-safe: an undefined value is ``None`` and NaN or
infinity never appears (docs/measures.md#conventions, spec §0: a non-finite number — e.g. κ_C = −∞ when π̂0 = 1 — is undefined
and emitted as ``None``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from metrics.alignment import alignment_report, mean_defined
from metrics.chance import kappa_c_report
from metrics.corpus_statistics import DEFAULT_BIN_WIDTH, corpus_statistics
from metrics.intervals import SectionSpec, alignment_resampler, phenomena_resampler, report_intervals
from metrics.kappa import codes, cohen_kappa_pairs, fleiss_kappa, krippendorff_alpha_from_counts, rating_table
from metrics.layers import sense_layer_report
from metrics.pair_labels import pair_label_report
from metrics.phenomena import PhenomenaAgreement, gc_paused
from metrics.reeval import after_revisions, reevaluation_sets
from metrics.spade import spade_report
from metrics.types import SCALES, Document, Evaluations, scale_label

__all__ = [
    "REPORT_FORMAT",
    "build_report",
    "phenomena_report",
    "evaluation_report",
    "after_revisions",
    "report_sections",
    "report_confidence_intervals",
]

REPORT_FORMAT = "paraphrase-agreement-report/1"
Entries = dict[str, dict[str, Any]]


def build_report(
    doc: Document,
    *,
    ci: bool = False,
    ci_resamples: int = 1000,
    ci_seed: int = 0,
    statistics: bool = False,
    bin_width: int = DEFAULT_BIN_WIDTH,
) -> dict[str, Any]:
    """All measures of ``doc`` as the §10 report; ``ci`` adds a 95 % interval ``<key>.ci95`` for every
    measure (:mod:`metrics.intervals`, docs/measures.md#intervals; ``ci_seed`` seeds the resampling).

    ``statistics`` adds the section ``"statistics"`` beside ``"measures"``: the corpus tables of
    :func:`metrics.corpus_statistics.corpus_statistics` (``bin_width`` for Cohn et al.'s Fig. 4;
    opt-in because that figure repeats κ_C's Monte Carlo; docs/measures.md#statistics).

    Sections absent from the document produce no keys. Word alignments add the ``alignment.*`` and
    ``kappa_c*`` keys (:mod:`metrics.alignment`, :mod:`metrics.chance`), phrase alignments the
    ``spade.*`` keys (:mod:`metrics.spade`).

    Every key is explained in docs/measures.md (section "Report keys", docs/measures.md#report).

    Example (Vila Fig. 3, pair 1: B marks 6 phenomena, C 8, so agr_ph = 0.75):

    >>> from metrics.document import parse_document
    >>> doc = parse_document({
    ...     "format": "paraphrase-agreement/1", "annotators": ["B", "C"],
    ...     "tagset": {"types": [{"name": "SA"}]},
    ...     "pairs": [{"id": "p1", "tokens1": ["w"] * 8, "tokens2": ["v"] * 8}],
    ...     "phenomena": {r: [{"pair": "p1", "type": "SA", "s1": [i], "s2": [i]} for i in range(n)]
    ...                   for r, n in (("B", 6), ("C", 8))}})
    >>> build_report(doc)["measures"]["iapta.n.ph"]
    {'value': 0.75, 'by_pair': {'B|C': 0.75}}
    """
    if not isinstance(doc, Document):
        raise ValueError(f"doc must be a metrics.types.Document, got {type(doc).__name__}")
    with gc_paused():
        measures = _measures(doc, ci=ci, ci_resamples=ci_resamples, ci_seed=ci_seed)
        tables = corpus_statistics(doc, bin_width=bin_width) if statistics else None
    report = {"format": REPORT_FORMAT, "measures": _json_safe(dict(sorted(measures.items())), "measures")}
    if tables is not None:
        report["statistics"] = _json_safe(tables, "statistics")
    return report


def _measures(doc: Document, *, ci: bool, ci_resamples: int, ci_seed: int) -> Entries:
    measures: Entries = {}
    if doc.phenomena is not None:
        measures.update(phenomena_report(doc))
    if doc.word_alignments is not None:
        measures.update(alignment_report(doc))
        measures.update(kappa_c_report(doc))
    if doc.phrase_alignments is not None or doc.system_phrase_alignments is not None:
        measures.update(spade_report(doc))
    if doc.evaluations is not None:
        measures.update(
            evaluation_report(
                doc.evaluations, seed=doc.options.reeval_seed, fraction=doc.options.reeval_fraction
            )
        )
    if doc.pair_labels is not None:
        measures.update(pair_label_report(doc))
    if ci:
        measures.update(
            report_intervals(doc, measures, report_sections(doc), n_resamples=ci_resamples, seed=ci_seed)
        )
    return measures


def report_confidence_intervals(
    doc: Document, measures: Entries, *, seed: int = 0, n_resamples: int = 1000
) -> Entries:
    """The ``<key>.ci95`` entries of every measure in ``measures`` (the report of ``doc``, whole or
    assembled section by section): what ``build_report(doc, ci=True, ci_seed=seed)`` adds, JSON-safe
    (docs/measures.md#intervals)."""
    intervals = report_intervals(doc, measures, report_sections(doc), n_resamples=n_resamples, seed=seed)
    return _json_safe(intervals, "measures")  # type: ignore[no-any-return]


def report_sections(doc: Document) -> list[SectionSpec]:
    """The document's sections as (section → report entries, units, resampling from kept per-unit
    statistics or None) for the intervals' resampling: pairs for phenomena, alignments and pair
    labels; judged items for the two-step evaluation (κ_C's own keys are left to its analytic
    interval)."""
    sections: list[SectionSpec] = []
    if doc.phenomena is not None:
        sections.append((phenomena_report, "pairs", phenomena_resampler))
    if doc.word_alignments is not None:
        sections.append((alignment_report, "pairs", alignment_resampler))
    if doc.phrase_alignments is not None or doc.system_phrase_alignments is not None:
        sections.append((spade_report, "pairs", None))
    if doc.pair_labels is not None:
        sections.append((pair_label_report, "pairs", None))
    if doc.evaluations is not None:
        sections.append((_evaluation_section, "items", None))
    return sections


def _evaluation_section(doc: Document) -> Entries:
    assert doc.evaluations is not None
    return evaluation_report(
        doc.evaluations, seed=doc.options.reeval_seed, fraction=doc.options.reeval_fraction
    )


def phenomena_report(doc: Document) -> Entries:
    """The ``iapta.*`` keys (N-, TPO-, DO-measures and multi-annotator TPO; docs/measures.md#n,
    #tpo, #do, #tpo-multi),
    with the per-layer ``iapta.sense.*`` keys when phenomena are marked sense-preserving or not
    (:mod:`metrics.layers`, docs/measures.md#sense-layers)."""
    if doc.phenomena is None:
        return {}
    state = PhenomenaAgreement(
        doc.phenomena, annotators=doc.annotators, tagset=doc.tagset, pairs=[p.id for p in doc.pairs]
    )
    return {**state.report(), **sense_layer_report(doc)}


def evaluation_report(evaluations: Evaluations, *, seed: int = 0, fraction: float = 0.1) -> Entries:
    """Fleiss' κ, Cohen's κ, Krippendorff's α on G5/M6/G2/M2, before and after revisions, and the
    re-evaluation sets ``reeval.G`` / ``reeval.M`` (docs/measures.md#fleiss, #cohen, #krippendorff,
    #reeval; spec §7)."""
    raters = evaluations.raters
    entries: Entries = {}
    for suffix, judgements in (("", evaluations.ratings), (".after", after_revisions(evaluations))):
        for scale in SCALES:
            labelled = [(j, scale_label(j, scale)) for j in judgements]
            rated = [(j.item, j.rater, lab) for j, lab in labelled if lab is not None]
            table = _item_table(rated)
            fleiss = fleiss_kappa(table)
            entries[f"fleiss{suffix}.{scale}"] = {"value": fleiss.kappa, "n_items": fleiss.n_items}
            alpha_n = int((table.sum(axis=1) >= 2).sum()) if table.size else 0
            entries[f"krippendorff{suffix}.{scale}"] = {
                "value": krippendorff_alpha_from_counts(table) if table.size else None,
                "n_items": alpha_n,
            }
            entries[f"cohen{suffix}.{scale}"] = _cohen_entry(rated, raters)
    for viewpoint in ("G", "M"):
        sets = reevaluation_sets(
            evaluations.ratings, viewpoint=viewpoint, seed=seed, fraction=fraction, raters=raters
        )  # type: ignore[arg-type]
        entries[f"reeval.{viewpoint}"] = {"by_rater": {r: s.as_dict() for r, s in sets.items()}}
    return entries


def _item_table(rated: list[tuple[str, str, str]]) -> np.ndarray[Any, np.dtype[np.int64]]:
    if not rated:
        return np.zeros((0, 0), dtype=np.int64)
    table, _, _ = rating_table([i for i, _, _ in rated], [lab for _, _, lab in rated])
    return table


def _cohen_entry(rated: list[tuple[str, str, str]], raters: tuple[str, ...]) -> dict[str, Any]:
    by_pair: dict[str, float | None] = {}
    n_items: dict[str, int] = {}
    if rated:
        item_codes, items = codes([i for i, _, _ in rated])
        label_codes, _ = codes([lab for _, _, lab in rated])
        column = {r: c for c, r in enumerate(raters)}
        matrix = np.full((len(items), len(raters)), -1, dtype=np.int64)
        matrix[item_codes, [column[r] for _, r, _ in rated]] = label_codes
        pairs = cohen_kappa_pairs(matrix)
    for c1 in range(len(raters)):
        for c2 in range(c1 + 1, len(raters)):
            key = f"{raters[c1]}|{raters[c2]}"
            by_pair[key], n_items[key] = pairs[c1, c2] if rated else (None, 0)
    return {"value": mean_defined(list(by_pair.values())), "by_pair": by_pair, "n_items": n_items}


def _json_safe(value: Any, where: str) -> Any:
    """Plain-Python copy of ``value``; numpy scalars converted; NaN/Inf become ``None`` (docs/measures.md#conventions)."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v, f"{where}[{n}]") for n, v in enumerate(value)]
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        if not math.isfinite(value):
            return None
        return float(value)
    raise ValueError(f"{where}: value of type {type(value).__name__} is not JSON-serialisable")
