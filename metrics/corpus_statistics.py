"""Corpus statistics the papers print: the ``statistics`` section of the report (opt-in).

:func:`corpus_statistics` returns one table per paper table it mirrors, each naming it under
``"mirrors"`` (docs/measures.md#statistics explains every figure):

- ``vila_table3`` — Vila et al. 2015, Table 3: pairs, phenomena, phenomena per pair and per word
  over the pairs that carry phenomena, for the corpus and by annotator;
- ``vila_table4`` — Vila et al. 2015, Table 4: relative frequency and average scope length of each
  type by annotator, with Pearson's r between annotators;
- ``etpc_types_by_sense`` — ETPC (Kovatchev et al.): per-type counts per sense-preserving layer;
- ``spade_table1`` — Arase & Tsujii 2018 (SPADE), Table 1 with a column per split: sentence pairs,
  tokens, types, phrases, phrase alignments in the union and in the intersection of the annotators,
  and the agreement rate;
- ``cohn_fig4`` — Cohn, Callison-Burch & Lapata 2008, Fig. 4: π̂, π̂0 and κ_C binned by the length
  of the shorter sentence.

All but ``cohn_fig4`` are counts over the document (linear in its size). ``cohn_fig4`` runs κ_C's
Monte Carlo once more (J samples per item and annotator pair, as ``kappa_c``); this is why the
section is opt-in (``build_report(doc, statistics=True)``, ``python -m metrics report --statistics``).
A table whose section is absent from the document is omitted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from metrics.alignment import mean_defined
from metrics.chance import item_concordances
from metrics.types import Document, Pair, Phenomenon, PhraseAlignment

__all__ = [
    "DEFAULT_BIN_WIDTH",
    "corpus_statistics",
    "corpus_type_frequencies",
    "pearson_between_corpora",
    "pearson_r",
    "length_bins",
]

#: Width (in tokens) of the shorter-sentence length bins of ``cohn_fig4``.
DEFAULT_BIN_WIDTH = 5
Table = dict[str, Any]


def pearson_r(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's correlation ``r = Σ(x−x̄)(y−ȳ) / sqrt(Σ(x−x̄)²·Σ(y−ȳ)²)``.

    Range [−1, 1]; ``None`` (undefined) with fewer than two points or when either variable is
    constant (a zero denominator).

    >>> pearson_r([1, 2, 3], [2, 4, 7])
    0.9933992677987828
    >>> pearson_r([1, 1], [2, 3]) is None
    True
    """
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length ({len(x)} vs {len(y)})")
    if len(x) < 2:
        return None
    x_bar, y_bar = math.fsum(x) / len(x), math.fsum(y) / len(y)
    s_xy = math.fsum((u - x_bar) * (v - y_bar) for u, v in zip(x, y, strict=True))
    s_xx = math.fsum((u - x_bar) ** 2 for u in x)
    s_yy = math.fsum((v - y_bar) ** 2 for v in y)
    if s_xx == 0 or s_yy == 0:
        return None
    return s_xy / math.sqrt(s_xx * s_yy)


def length_bins(length: int, width: int) -> tuple[int, int]:
    """The bin ``[lo, hi]`` (inclusive) of a sentence length: ``1–width``, ``width+1–2·width`` …

    >>> length_bins(5, 5), length_bins(6, 5), length_bins(0, 5)
    ((1, 5), (6, 10), (0, 0))
    """
    if length <= 0:
        return (0, 0)
    lo = (length - 1) // width * width + 1
    return (lo, lo + width - 1)


def corpus_statistics(doc: Document, *, bin_width: int = DEFAULT_BIN_WIDTH) -> dict[str, Table]:
    """The statistics tables of ``doc`` (module doc); tables of absent sections are omitted.

    Example — Table 3 of a one-pair document (3 + 2 tokens) where B marks two phenomena:

    >>> from metrics.document import parse_document
    >>> doc = parse_document({"format": "paraphrase-agreement/1", "annotators": ["B", "C"],
    ...     "tagset": {"types": [{"name": "SA"}]},
    ...     "pairs": [{"id": "p1", "tokens1": ["a", "b", "c"], "tokens2": ["d", "e"]}],
    ...     "phenomena": {"B": [{"pair": "p1", "type": "SA", "s1": [0], "s2": [0]},
    ...                         {"pair": "p1", "type": "SA", "s1": [1, 2], "s2": [1]}], "C": []}})
    >>> corpus_statistics(doc)["vila_table3"]["by_annotator"]["B"]
    {'pairs': 1, 'pairs_with_phenomena': 1, 'phenomena': 2, 'phenomena_per_pair': 2.0, 'words': 5, 'phenomena_per_word': 0.4}
    """
    if isinstance(bin_width, bool) or not isinstance(bin_width, int) or bin_width < 1:
        raise ValueError(f"bin_width must be a positive integer, got {bin_width!r}")
    tables: dict[str, Table] = {}
    if doc.phenomena is not None:
        annotators = doc.section_annotators(doc.phenomena)  # type: ignore[arg-type]
        tables["vila_table3"] = vila_table3(doc, annotators)
        tables["vila_table4"] = vila_table4(doc, annotators)
        tables["etpc_types_by_sense"] = etpc_types_by_sense(doc, annotators)
    if doc.phrase_alignments is not None:
        tables["spade_table1"] = spade_table1(doc)
    if doc.word_alignments is not None:
        tables["cohn_fig4"] = cohn_fig4(doc, bin_width=bin_width)
    return tables


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def _type_names(doc: Document) -> tuple[str, ...]:
    return doc.tagset.names if doc.tagset is not None else ()


def _words(pairs: Sequence[Pair]) -> int:
    return sum(len(p.tokens1) + len(p.tokens2) for p in pairs)


def _table3_row(n_pairs: int, carrying: Sequence[Pair], phenomena: float) -> dict[str, Any]:
    words = _words(carrying)
    return {
        "pairs": n_pairs,
        "pairs_with_phenomena": len(carrying),
        "phenomena": phenomena,
        "phenomena_per_pair": _ratio(phenomena, len(carrying)),
        "words": words,
        "phenomena_per_word": _ratio(phenomena, words),
    }


def vila_table3(doc: Document, annotators: Sequence[str]) -> Table:
    """Vila's Table 3 over the pairs that carry phenomena. Per annotator: ``pairs`` (of the document),
    ``pairs_with_phenomena`` (the annotator's), ``phenomena``, ``phenomena_per_pair =
    phenomena/pairs_with_phenomena``, ``words = Σ (|tokens1| + |tokens2|)`` over those pairs,
    ``phenomena_per_word = phenomena/words``. The ``corpus`` row: the pairs that carry a phenomenon of
    any annotator, ``phenomena`` = the mean number per annotator (with one annotator, that
    annotator's row); ``None`` for a zero denominator."""
    assert doc.phenomena is not None
    by_annotator = {}
    for a in annotators:
        xs = doc.phenomena[a]
        marked = {x.pair for x in xs}
        by_annotator[a] = _table3_row(len(doc.pairs), [p for p in doc.pairs if p.id in marked], len(xs))
    marked_any = {x.pair for a in annotators for x in doc.phenomena[a]}
    total = sum(len(doc.phenomena[a]) for a in annotators)
    corpus = _table3_row(
        len(doc.pairs),
        [p for p in doc.pairs if p.id in marked_any],
        total / len(annotators) if annotators else 0,
    )
    return {"mirrors": "Vila et al. 2015, Table 3", "corpus": corpus, "by_annotator": by_annotator}


def corpus_type_frequencies(table4: Table) -> dict[str, float]:
    """Relative frequency of each type in a corpus, all annotators' phenomena pooled, from a
    ``vila_table4`` table: ``count_t / Σ_t count_t`` (types nobody used are left out; empty when the
    corpus has no phenomenon)."""
    counts = {t: sum(cell["count"] for cell in row.values()) for t, row in table4["by_type"].items()}
    total = sum(counts.values())
    return {t: n / total for t, n in counts.items() if n} if total else {}


def pearson_between_corpora(f: dict[str, float], g: dict[str, float]) -> dict[str, Any]:
    """Pearson's r of two corpora's type frequencies (:func:`corpus_type_frequencies`) over the
    types either uses, a type unused in one corpus counting 0 there — as Vila et al. correlate their
    corpora (§5: 0.74, 0.63, 0.86). ``types`` = the number of types compared; ``r`` None with fewer
    than two types or a constant side.

    >>> pearson_between_corpora({"a": 0.5, "b": 0.5}, {"a": 0.75, "b": 0.25})["r"] is None
    True
    >>> round(pearson_between_corpora({"a": 0.6, "b": 0.3, "c": 0.1}, {"a": 0.5, "b": 0.4, "d": 0.1})["r"], 4)
    0.8997
    """
    types = sorted(set(f) | set(g))
    return {
        "r": pearson_r([f.get(t, 0.0) for t in types], [g.get(t, 0.0) for t in types]),
        "types": len(types),
    }


def _scope_length(x: Phenomenon) -> int:
    return len(x.s1) + len(x.s2)


def vila_table4(doc: Document, annotators: Sequence[str]) -> Table:
    """Per type and annotator: ``count``, ``relative_frequency = count/|phenomena of the annotator|``,
    ``avg_scope_length`` = mean of ``|s1| + |s2|`` over the type's phenomena; per annotator pair,
    Pearson's r of the relative frequencies (over the types either annotator used) and of the
    average scope lengths (over the types both used)."""
    assert doc.phenomena is not None
    lengths: dict[str, dict[str, list[int]]] = {a: {} for a in annotators}
    for a in annotators:  # one pass over each annotator's phenomena
        for x in doc.phenomena[a]:
            lengths[a].setdefault(x.type, []).append(_scope_length(x))
    by_type: dict[str, dict[str, dict[str, Any]]] = {}
    for name in _type_names(doc):
        by_type[name] = {}
        for a in annotators:
            mine = lengths[a].get(name, [])
            by_type[name][a] = {
                "count": len(mine),
                "relative_frequency": _ratio(len(mine), len(doc.phenomena[a])),
                "avg_scope_length": _ratio(sum(mine), len(mine)),
            }
    pearson: dict[str, dict[str, float | None]] = {}
    for a, b in doc.annotator_pairs(tuple(annotators)):
        used = [t for t, row in by_type.items() if row[a]["count"] or row[b]["count"]]
        both = [t for t in used if by_type[t][a]["count"] and by_type[t][b]["count"]]
        pearson[f"{a}|{b}"] = {
            "relative_frequency": pearson_r(
                [by_type[t][a]["relative_frequency"] or 0.0 for t in used],
                [by_type[t][b]["relative_frequency"] or 0.0 for t in used],
            ),
            "avg_scope_length": pearson_r(
                [by_type[t][a]["avg_scope_length"] for t in both],
                [by_type[t][b]["avg_scope_length"] for t in both],
            ),
        }
    return {"mirrors": "Vila et al. 2015, Table 4", "by_type": by_type, "pearson_by_pair": pearson}


def etpc_types_by_sense(doc: Document, annotators: Sequence[str]) -> Table:
    """Per type and annotator, the phenomena marked + (``plus``), − (``minus``) and not marked
    (``unmarked``); ``total`` sums each annotator's counts over types."""
    assert doc.phenomena is not None
    layer = {True: "plus", False: "minus", None: "unmarked"}
    by_type: dict[str, dict[str, dict[str, int]]] = {
        name: {a: {"plus": 0, "minus": 0, "unmarked": 0} for a in annotators} for name in _type_names(doc)
    }
    total = {a: {"plus": 0, "minus": 0, "unmarked": 0} for a in annotators}
    for a in annotators:
        for x in doc.phenomena[a]:
            by_type[x.type][a][layer[x.sense_preserving]] += 1
            total[a][layer[x.sense_preserving]] += 1
    return {"mirrors": "Kovatchev et al. (ETPC), types per layer", "by_type": by_type, "total": total}


def _is_null(x: PhraseAlignment) -> bool:
    return x.s1 is None or x.s2 is None


def _alignment_rows(sets: Sequence[set[PhraseAlignment]], annotators: Sequence[str]) -> Table:
    union = set().union(*sets) if sets else set()
    inter = set.intersection(*sets) if sets else set()
    out: Table = {}
    for kind, keep in (("all", None), ("phrase", False), ("null", True)):

        def count(xs: set[PhraseAlignment], keep: bool | None = keep) -> int:
            return sum(1 for x in xs if keep is None or _is_null(x) == keep)

        out[kind] = {
            "by_annotator": {a: count(s) for a, s in zip(annotators, sets, strict=True)},
            "union": count(union),
            "intersection": count(inter),
            "agreement_rate": _ratio(count(inter), count(union)),
        }
    return out


def _spade_column(
    pairs: Sequence[Pair], sets: Sequence[set[PhraseAlignment]], annotators: Sequence[str]
) -> Table:
    ids = {p.id for p in pairs}
    mine = [{x for x in s if x.pair in ids} for s in sets]
    spans = {(x.pair, side, span) for s in mine for x in s for side, span in ((1, x.s1), (2, x.s2)) if span}
    return {
        "pairs": len(pairs),
        "tokens": _words(pairs),
        "types": len({w for p in pairs for w in (*p.tokens1, *p.tokens2)}),
        "phrases": sum(1 for _, _, span in spans if len(span) > 1),
        **_alignment_rows(mine, annotators),
    }


def spade_table1(doc: Document) -> Table:
    """Arase & Tsujii's Table 1 with one column per split of the pairs (``Pair.split``; a ``total``
    column when there are several; one column ``all`` when no pair has a split). Each column:
    ``pairs``, ``tokens`` (both members), ``types`` (distinct word forms), ``phrases`` (distinct aligned
    spans of two or more tokens in the annotators' alignments: single tokens are not phrases), and the
    alignments of every annotator, of their ``union`` and their ``intersection`` (identity
    ``(pair, s1, s2)``) with ``agreement_rate = |intersection| / |union|``, for ``all`` alignments,
    ``phrase`` ones (both sides) and ``null`` ones (one side null). The whole corpus's alignment rows
    are also at the top level (``all``, ``phrase``, ``null``)."""
    assert doc.phrase_alignments is not None
    annotators = doc.section_annotators(doc.phrase_alignments)  # type: ignore[arg-type]
    sets = [set(doc.phrase_alignments[a]) for a in annotators]
    splits = list(dict.fromkeys(p.split or "no split" for p in doc.pairs))
    columns: Table = {}
    if any(p.split for p in doc.pairs):
        for name in splits:
            columns[name] = _spade_column(
                [p for p in doc.pairs if (p.split or "no split") == name], sets, annotators
            )
    if len(columns) != 1:
        columns["total" if columns else "all"] = _spade_column(doc.pairs, sets, annotators)
    out: Table = {"mirrors": "Arase & Tsujii 2018 (SPADE), Table 1", "annotators": list(annotators)}
    out.update(_alignment_rows(sets, annotators))
    out["columns"] = columns
    return out


def cohn_fig4(doc: Document, *, bin_width: int = DEFAULT_BIN_WIDTH) -> Table:
    """π̂, π̂0 and κ_C of every annotator pair on the items whose shorter member has a length in each
    bin (``1–w``, ``w+1–2w`` …; ``w = bin_width``); per bin ``value`` = mean over annotator pairs of
    the defined values. In a bin: ``π̂ = mean conc(A_i, B_i)``, ``π̂0`` = mean of the items' Monte
    Carlo chance concordances (the items' values of ``kappa_c``), ``κ_C = (π̂ − π̂0)/(1 − π̂0)``,
    ``None`` when ``π̂0 = 1`` or without initial alignments."""
    assert doc.word_alignments is not None
    annotators = doc.section_annotators(doc.word_alignments)  # type: ignore[arg-type]
    cells: dict[tuple[int, int], dict[str, dict[str, list[float]]]] = {}
    missing_initial: set[str] = set()
    for a, b in doc.annotator_pairs(annotators):
        key = f"{a}|{b}"
        items = item_concordances(doc, a, b)
        if items.pi_0 is None:
            missing_initial.add(key)
        for n, pair in enumerate(items.pairs):
            cell = cells.setdefault(length_bins(min(len(pair.tokens1), len(pair.tokens2)), bin_width), {})
            parts = cell.setdefault(key, {"pi_hat": [], "pi0": []})
            parts["pi_hat"].append(items.pi_hat[n])
            if items.pi_0 is not None:
                parts["pi0"].append(items.pi_0[n])
    bins = []
    for (lo, hi), by_key in sorted(cells.items()):
        n_items, pi_hat, pi0, kappa = {}, {}, {}, {}
        for key, parts in by_key.items():
            n_items[key] = len(parts["pi_hat"])
            pi_hat[key] = math.fsum(parts["pi_hat"]) / n_items[key]
            pi0[key] = None if key in missing_initial else math.fsum(parts["pi0"]) / n_items[key]
            p0 = pi0[key]
            kappa[key] = None if p0 is None or p0 == 1.0 else (pi_hat[key] - p0) / (1.0 - p0)
        bins.append(
            {
                "shorter_length": [lo, hi],
                "n_items": n_items,
                "pi_hat": {"value": mean_defined(pi_hat.values()), "by_pair": pi_hat},
                "pi0": {"value": mean_defined(pi0.values()), "by_pair": pi0},
                "kappa_c": {"value": mean_defined(kappa.values()), "by_pair": kappa},
            }
        )
    return {"mirrors": "Cohn, Callison-Burch & Lapata 2008, Fig. 4", "bin_width": bin_width, "bins": bins}
