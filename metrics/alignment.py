"""Word- and phrase-level alignment agreement: precision, recall, F1
(docs/measures.md#word-alignment, #phrase-alignment; spec §5.1, §5.3).

Annotator ``a`` is the test, ``b`` the reference; counts are summed over the pairs both annotated
before dividing (micro-average). Identical links / phrase pairs (same token(s) on both sides) are
excluded, as in Cohn, Callison-Burch & Lapata 2008 (CL 34(4), §4).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from metrics.phrases import (
    IDENTICAL_MATCHES,
    PhrasePair,
    atomic_spans,
    is_extracted,
    is_identical_phrase_pair,
    link_bounds,
    validate_links,
)
from metrics.types import Document, Link, Pair, WordAlignment

__all__ = [
    "AlignmentLink",
    "AlignmentScores",
    "AlignmentCounts",
    "TIERS",
    "harmonic_mean",
    "mean_defined",
    "section_annotators",
    "as_word_alignment",
    "word_alignment_counts",
    "word_alignment_scores",
    "phrase_alignment_counts",
    "phrase_alignment_scores",
    "non_identical_atomic_pairs",
    "non_identical_atomic_pairs_many",
    "alignment_report",
    "alignment_pair_counts",
    "alignment_counts_by_pair",
    "alignment_report_from_counts",
]

#: Word-level tiers: ``generous`` (S vs P, Och & Ney), ``sure`` (S vs S), ``possible`` (P vs P).
TIERS = ("generous", "sure", "possible")


@dataclass(frozen=True, slots=True)
class AlignmentLink:
    """An alignment link between token ``i`` of member 1 and token ``j`` of member 2."""

    i: int
    j: int
    sure: bool = True


class AlignmentScores(NamedTuple):
    """Precision, recall and their harmonic mean; ``None`` where undefined (docs/measures.md#conventions)."""

    precision: float | None
    recall: float | None
    f1: float | None


def harmonic_mean(x: float | None, y: float | None) -> float | None:
    """``HM(x, y) = 2xy / (x + y)``; ``0`` when ``x + y = 0``; ``None`` if either is ``None``
    (docs/measures.md#conventions)."""
    if x is None or y is None:
        return None
    if x + y == 0:
        return 0.0
    return 2 * x * y / (x + y)


def mean_defined(values: Iterable[float | None]) -> float | None:
    """Mean of the defined (non-``None``) values; ``None`` when there is none (docs/measures.md#conventions)."""
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def section_annotators(doc: Document, section: Mapping[str, object] | None) -> tuple[str, ...]:
    """The declared annotators that appear in ``section``, in ``doc.annotators`` order
    (docs/measures.md#document)."""
    return () if section is None else tuple(a for a in doc.annotators if a in section)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


@dataclass(frozen=True, slots=True)
class AlignmentCounts:
    """Summable counts behind precision and recall of test ``a`` against reference ``b``.

    ``precision = precision_hits / n_test``, ``recall = recall_hits / n_reference``.
    """

    precision_hits: int = 0
    n_test: int = 0
    recall_hits: int = 0
    n_reference: int = 0

    def __add__(self, other: AlignmentCounts) -> AlignmentCounts:
        return AlignmentCounts(
            self.precision_hits + other.precision_hits,
            self.n_test + other.n_test,
            self.recall_hits + other.recall_hits,
            self.n_reference + other.n_reference,
        )

    def scores(self) -> AlignmentScores:
        """Precision, recall (``None`` on a zero denominator) and ``F1 = HM(P, R)``."""
        p = _ratio(self.precision_hits, self.n_test)
        r = _ratio(self.recall_hits, self.n_reference)
        return AlignmentScores(p, r, harmonic_mean(p, r))


# --------------------------------------------------------------------------- word level


def as_word_alignment(x: WordAlignment | Iterable[AlignmentLink]) -> WordAlignment:
    """A :class:`~metrics.types.WordAlignment` from itself or from :class:`AlignmentLink` objects."""
    if isinstance(x, WordAlignment):
        return x
    sure: set[Link] = set()
    possible: set[Link] = set()
    for link in x:
        if not isinstance(link, AlignmentLink):
            raise ValueError(f"expected a WordAlignment or AlignmentLink objects, got {link!r}")
        (sure if link.sure else possible).add((link.i, link.j))
    return WordAlignment(frozenset(sure), frozenset(possible - sure))


def _check_match(identical_match: str) -> None:
    if identical_match not in IDENTICAL_MATCHES:
        raise ValueError(f'identical_match must be "exact" or "casefold", got {identical_match!r}')


def _same(t1: str, t2: str, identical_match: str) -> bool:
    return t1 == t2 if identical_match == "exact" else t1.casefold() == t2.casefold()


def _drop_identical(
    links: frozenset[Link], tokens1: Sequence[str], tokens2: Sequence[str], identical_match: str
) -> frozenset[Link]:
    return frozenset(lk for lk in links if not _same(tokens1[lk[0]], tokens2[lk[1]], identical_match))


def _tier_sets(w: WordAlignment, tier: str) -> tuple[frozenset[Link], frozenset[Link]]:
    """(links counted as the test side, links a test link may match) of one alignment."""
    if tier == "generous":
        return w.S, w.P
    if tier == "sure":
        return w.S, w.S
    if tier == "possible":
        return w.P, w.P
    raise ValueError(f"tier must be one of {', '.join(TIERS)}, got {tier!r}")


def word_alignment_counts(
    a: WordAlignment | Iterable[AlignmentLink],
    b: WordAlignment | Iterable[AlignmentLink],
    tokens1: Sequence[str],
    tokens2: Sequence[str],
    *,
    tier: str = "generous",
    identical_match: str = "exact",
) -> AlignmentCounts:
    """Counts of :func:`word_alignment_scores` for one pair; sum them over pairs to micro-average."""
    _check_match(identical_match)
    wa, wb = as_word_alignment(a), as_word_alignment(b)
    n, m = len(tokens1), len(tokens2)
    sides = []
    for name, w in (("a", wa), ("b", wb)):
        validate_links(w.P, n, m, where=f"word alignment {name}")
        own, matchable = _tier_sets(w, tier)
        sides.append(
            (
                _drop_identical(own, tokens1, tokens2, identical_match),
                _drop_identical(matchable, tokens1, tokens2, identical_match),
            )
        )
    (s_a, p_a), (s_b, p_b) = sides
    return AlignmentCounts(len(s_a & p_b), len(s_a), len(p_a & s_b), len(s_b))


def word_alignment_scores(
    a: WordAlignment | Iterable[AlignmentLink],
    b: WordAlignment | Iterable[AlignmentLink],
    tokens1: Sequence[str],
    tokens2: Sequence[str],
    *,
    tier: str = "generous",
    identical_match: str = "exact",
) -> AlignmentScores:
    """Word-alignment precision, recall and F1 of test ``a`` against reference ``b``
    (docs/measures.md#word-alignment).

    With ``S'``, ``P'`` the sure and sure-or-possible links minus identical links (a link ``(i, j)``
    is identical iff ``tokens1[i] == tokens2[j]``, or equal after ``casefold`` with
    ``identical_match="casefold"``), the primary (``tier="generous"``, Och & Ney 2003) measure is::

        Precision = |S'_a ∩ P'_b| / |S'_a|      Recall = |P'_a ∩ S'_b| / |S'_b|
        F1 = HM(Precision, Recall) = 2PR / (P + R)          (Fraser & Marcu 2007, α = 0.5)

    ``tier="sure"`` compares ``S'`` with ``S'``, ``tier="possible"`` ``P'`` with ``P'``.
    All values lie in [0, 1]; a zero denominator gives ``None`` (and then F1 is ``None``); F1 is 0
    when P + R = 0. Swapping ``a`` and ``b`` swaps P and R; F1 is symmetric.
    For several pairs, sum :func:`word_alignment_counts` and call ``.scores()``.

    Parameters
    ----------
    a, b : WordAlignment or iterable of AlignmentLink
        Test and reference alignments of one pair.
    tokens1, tokens2 : sequence of str
        The pair's tokenized members.

    References
    ----------
    Cohn, Callison-Burch & Lapata 2008, CL 34(4), §4.1; Och & Ney 2003, CL 29(1);
    Fraser & Marcu 2007, CL 33(3).

    Examples
    --------
    The counts of Cohn et al.'s Fig. 2: 4 non-identical sure links of ``a``, all sure-or-possible in
    ``b``; 5 sure links of ``b``, 4 of them in ``a``:

    >>> t1 = "They discussed the issue of emissions .".split()
    >>> t2 = "They discussed the problem concerning gas output .".split()
    >>> same = [(0, 0), (1, 1), (2, 2), (6, 7)]
    >>> a = WordAlignment(frozenset(same + [(3, 3), (4, 4), (5, 5), (5, 6)]), frozenset({(2, 3)}))
    >>> b = WordAlignment(frozenset(same + [(3, 3), (4, 4), (5, 5), (2, 3), (4, 5)]), frozenset({(5, 6)}))
    >>> p, r, f1 = word_alignment_scores(a, b, t1, t2)
    >>> p, r, round(f1, 3)
    (1.0, 0.8, 0.889)
    """
    counts = word_alignment_counts(a, b, tokens1, tokens2, tier=tier, identical_match=identical_match)
    return counts.scores()


# --------------------------------------------------------------------------- phrase level


def non_identical_atomic_pairs(
    links: Iterable[Link], tokens1: Sequence[str], tokens2: Sequence[str], *, identical_match: str = "exact"
) -> set[PhrasePair]:
    """Atomic phrase pairs of ``links`` minus identical ones (atomicity decided first;
    docs/measures.md#phrase-extraction)."""
    _check_match(identical_match)
    links = validate_links(links, len(tokens1), len(tokens2))
    return non_identical_atomic_pairs_many(
        [(links, len(tokens1), len(tokens2))], [(tokens1, tokens2)], identical_match=identical_match
    )[0]


def non_identical_atomic_pairs_many(
    items: Sequence[tuple[frozenset[Link], int, int]],
    tokens: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    identical_match: str = "exact",
    chunk: int = 512,
) -> list[set[PhrasePair]]:
    """:func:`non_identical_atomic_pairs` of many ``(links, n, m)`` items at once (batched in numpy).

    The links must already be valid (see :func:`metrics.phrases.validate_links`); ``tokens[k]`` are
    the members of item ``k``.
    """
    out: list[set[PhrasePair]] = [set() for _ in items]
    order = sorted(range(len(items)), key=lambda k: (items[k][1], items[k][2]))
    for start in range(0, len(order), chunk):
        block = order[start : start + chunk]
        n = max(items[k][1] for k in block)
        m = max(items[k][2] for k in block)
        x = np.zeros((len(block), n, m), dtype=bool)
        for row, k in enumerate(block):
            if items[k][0]:
                i, j = zip(*items[k][0], strict=True)
                x[row, list(i), list(j)] = True
        lo, hi, j1, j2 = (a.tolist() for a in atomic_spans(x))
        for row, k in enumerate(block):
            t1, t2 = tokens[k]
            found = {
                PhrasePair(*q) for q in zip(lo[row], hi[row], j1[row], j2[row], strict=True) if q[0] >= 0
            }
            out[k] = {
                q for q in found if not is_identical_phrase_pair(q, t1, t2, identical_match=identical_match)
            }
    return out


@dataclass(frozen=True, slots=True)
class _PhraseSide:
    """One annotator's phrase-level view of one pair: non-identical atomic pairs and link bounds."""

    atomic: set[PhrasePair]
    bounds: tuple[list[int], list[int], list[int], list[int]]


def _phrase_counts(a: _PhraseSide, b: _PhraseSide) -> AlignmentCounts:
    # atom(a) ∩ all(b): a's atomic pairs that b's links also extract (identity depends on spans only)
    return AlignmentCounts(
        sum(is_extracted(q, b.bounds) for q in a.atomic),
        len(a.atomic),
        sum(is_extracted(q, a.bounds) for q in b.atomic),
        len(b.atomic),
    )


def phrase_alignment_counts(
    a_links: Iterable[Link],
    b_links: Iterable[Link],
    tokens1: Sequence[str],
    tokens2: Sequence[str],
    *,
    identical_match: str = "exact",
) -> AlignmentCounts:
    """Counts of :func:`phrase_alignment_scores` for one pair; sum them over pairs."""
    _check_match(identical_match)
    n, m = len(tokens1), len(tokens2)
    la = validate_links(a_links, n, m, where="a_links")
    lb = validate_links(b_links, n, m, where="b_links")
    atom_a, atom_b = non_identical_atomic_pairs_many(
        [(la, n, m), (lb, n, m)], [(tokens1, tokens2)] * 2, identical_match=identical_match
    )
    return _phrase_counts(
        _PhraseSide(atom_a, link_bounds(la, n, m)), _PhraseSide(atom_b, link_bounds(lb, n, m))
    )


def phrase_alignment_scores(
    a_links: Iterable[Link],
    b_links: Iterable[Link],
    tokens1: Sequence[str],
    tokens2: Sequence[str],
    *,
    identical_match: str = "exact",
) -> AlignmentScores:
    """Phrase-level precision, recall and F1 of test ``a`` against reference ``b``
    (docs/measures.md#phrase-alignment).

    With ``atom(x)`` / ``all(x)`` the non-identical atomic / all phrase pairs extracted from x's
    links (docs/measures.md#phrase-extraction; pass the sure links for the S level, sure ∪ possible for the P level)::

        Precision = |atom(a) ∩ all(b)| / |atom(a)|      Recall = |all(a) ∩ atom(b)| / |atom(b)|
        F1 = HM(Precision, Recall)

    Values in [0, 1]; a zero denominator gives ``None``; F1 is 0 when P + R = 0. Swapping ``a`` and
    ``b`` swaps P and R. For several pairs, sum :func:`phrase_alignment_counts` and ``.scores()``.

    References
    ----------
    Cohn, Callison-Burch & Lapata 2008, CL 34(4), §4.2 (|A_atom| = 7, precision 5/7, recall 4/8 in
    their figure, whose data the text does not give).

    Examples
    --------
    Cohn et al.'s extraction example; ``b`` also links "an"–"a":

    >>> t1, t2 = "and reached an agreement".split(), "and arrived at a deal".split()
    >>> a = {(0, 0), (1, 1), (1, 2), (3, 4)}
    >>> p, r, f1 = phrase_alignment_scores(a, a | {(2, 3)}, t1, t2)
    >>> p, round(r, 4), round(f1, 4)
    (1.0, 0.6667, 0.8)
    """
    return phrase_alignment_counts(
        a_links, b_links, tokens1, tokens2, identical_match=identical_match
    ).scores()


# --------------------------------------------------------------------------- document report


@dataclass(frozen=True, slots=True)
class _Prepared:
    """One annotator's pair, ready for comparison: non-identical S', P' and phrase views."""

    S: frozenset[Link]  # noqa: N815 - the paper's symbol
    P: frozenset[Link]  # noqa: N815 - the paper's symbol
    phrases: _PhraseSide
    phrases_sure: _PhraseSide


def _prepare(
    doc: Document, annotators: tuple[str, ...], identical_match: str
) -> dict[str, dict[str, _Prepared]]:
    wa = doc.word_alignments or {}
    jobs: list[tuple[str, Pair, WordAlignment]] = [
        (r, pair, wa[r][pair.id]) for pair in doc.pairs for r in annotators if pair.id in wa[r]
    ]
    items, tokens = [], []
    for _, pair, w in jobs:
        n, m = len(pair.tokens1), len(pair.tokens2)
        items += [(w.P, n, m), (w.S, n, m)]
        tokens += [(pair.tokens1, pair.tokens2)] * 2
    atomic = non_identical_atomic_pairs_many(items, tokens, identical_match=identical_match)
    out: dict[str, dict[str, _Prepared]] = {r: {} for r in annotators}
    for k, (r, pair, w) in enumerate(jobs):
        n, m = len(pair.tokens1), len(pair.tokens2)
        out[r][pair.id] = _Prepared(
            _drop_identical(w.S, pair.tokens1, pair.tokens2, identical_match),
            _drop_identical(w.P, pair.tokens1, pair.tokens2, identical_match),
            _PhraseSide(atomic[2 * k], link_bounds(w.P, n, m)),
            _PhraseSide(atomic[2 * k + 1], link_bounds(w.S, n, m)),
        )
    return out


def _pair_counts(a: _Prepared, b: _Prepared) -> dict[str, AlignmentCounts]:
    return {
        "alignment.words": AlignmentCounts(len(a.S & b.P), len(a.S), len(a.P & b.S), len(b.S)),
        "alignment.words.sure": AlignmentCounts(len(a.S & b.S), len(a.S), len(a.S & b.S), len(b.S)),
        "alignment.words.possible": AlignmentCounts(len(a.P & b.P), len(a.P), len(a.P & b.P), len(b.P)),
        "alignment.phrases": _phrase_counts(a.phrases, b.phrases),
        "alignment.phrases.sure": _phrase_counts(a.phrases_sure, b.phrases_sure),
    }


_MEASURES = (
    "alignment.words",
    "alignment.words.sure",
    "alignment.words.possible",
    "alignment.phrases",
    "alignment.phrases.sure",
)


def alignment_report(doc: Document) -> dict[str, dict[str, Any]]:
    """The ``alignment.*`` measures of a document
    (docs/measures.md#word-alignment, #phrase-alignment, #report).

    For every annotator pair ``a|b`` (``a`` before ``b`` in ``doc.annotators``; ``a`` is the test,
    ``b`` the reference) counts are summed over the pairs both annotated. Keys
    ``alignment.{words,words.sure,words.possible,phrases,phrases.sure}.{precision,recall,f1}``,
    each ``{"value": mean over annotator pairs skipping None, "by_pair": {"a|b": ...}}``;
    ``by_pair`` is omitted with fewer than two annotators. No keys without word alignments.
    """
    if doc.word_alignments is None:
        return {}
    annotators = section_annotators(doc, doc.word_alignments)
    match = doc.options.identical_match
    _check_match(match)
    prepared = _prepare(doc, annotators, match)
    totals: dict[tuple[str, str], dict[str, AlignmentCounts]] = {}
    for a, b in doc.annotator_pairs(annotators):
        total = {name: AlignmentCounts() for name in _MEASURES}
        for pid, pa in prepared[a].items():
            pb = prepared[b].get(pid)
            if pb is not None:
                total = {name: total[name] + c for name, c in _pair_counts(pa, pb).items()}
        totals[a, b] = total
    return alignment_report_from_counts(totals, annotators)


def alignment_pair_counts(
    pair: Pair,
    alignments: Mapping[str, WordAlignment],
    *,
    identical_match: str = "exact",
    only: str | None = None,
) -> dict[tuple[str, str], dict[str, AlignmentCounts]]:
    """The counts one document pair adds to each annotator pair's totals in :func:`alignment_report`.

    ``alignments``: annotator → their alignment of ``pair``, in document annotator order (only the
    annotators who aligned it). Keys ``(a, b)`` with ``a`` before ``b`` in that order; the values summed
    over the pairs both aligned are the ``totals`` of :func:`alignment_report_from_counts`. ``only``:
    just the annotator pairs that include that annotator (the others' counts are not computed).
    """
    _check_match(identical_match)
    names = tuple(alignments)
    doc = Document(
        annotators=names, pairs=(pair,), word_alignments={r: {pair.id: alignments[r]} for r in names}
    )
    prepared = _prepare(doc, names, identical_match)
    return {
        (a, b): _pair_counts(prepared[a][pair.id], prepared[b][pair.id])
        for a, b in doc.annotator_pairs(names)
        if only is None or only in (a, b)
    }


def alignment_counts_by_pair(doc: Document) -> dict[str, dict[tuple[str, str], dict[str, AlignmentCounts]]]:
    """:func:`alignment_pair_counts` of every document pair aligned by ≥ 2 annotators, prepared in one
    batch: pair id → ``(a, b)`` → counts (the terms :func:`alignment_report` sums)."""
    if doc.word_alignments is None:
        return {}
    annotators = section_annotators(doc, doc.word_alignments)
    match = doc.options.identical_match
    _check_match(match)
    prepared = _prepare(doc, annotators, match)
    out: dict[str, dict[tuple[str, str], dict[str, AlignmentCounts]]] = {}
    for pair in doc.pairs:
        here = [r for r in annotators if pair.id in prepared[r]]
        for n, a in enumerate(here):
            for b in here[n + 1 :]:
                counts = _pair_counts(prepared[a][pair.id], prepared[b][pair.id])
                out.setdefault(pair.id, {})[a, b] = counts
    return out


def alignment_report_from_counts(
    totals: Mapping[tuple[str, str], Mapping[str, AlignmentCounts]], annotators: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """The ``alignment.*`` report keys from each annotator pair's summed counts (see
    :func:`alignment_report`): ``totals[a, b]`` for every ``a`` before ``b`` in ``annotators``."""
    by_pair: dict[str, dict[str, AlignmentScores]] = {name: {} for name in _MEASURES}
    for i, a in enumerate(annotators):
        for b in annotators[i + 1 :]:
            total = totals.get((a, b)) or {}
            for name in _MEASURES:
                by_pair[name][f"{a}|{b}"] = total.get(name, AlignmentCounts()).scores()
    report: dict[str, dict[str, Any]] = {}
    for name in _MEASURES:
        for field in AlignmentScores._fields:
            values = {key: getattr(s, field) for key, s in by_pair[name].items()}
            entry: dict[str, Any] = {"value": mean_defined(values.values())}
            if len(annotators) >= 2:
                entry["by_pair"] = values
            report[f"{name}.{field}"] = entry
    return report
