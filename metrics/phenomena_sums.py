"""The ``iapta.*`` measures as sums over pairs: what one pair adds, and the report from the totals.

Matching is within a pair and a token position includes its pair, so every N-, TPO- and DO-measure of
:mod:`metrics.iapta` and :mod:`metrics.multi` (docs/measures.md#n, #tpo, #do, #tpo-multi, #phenomena-sums) is a function
of totals over the pairs. :func:`pair_part` gives one pair's additive part as integer cells
``(measure, annotators, key) → value``; summed over a document's pairs, :func:`report_from_sums` turns
them into the report's ``iapta.*`` keys, equal to :func:`metrics.report.phenomena_report` of the whole
document (bit for bit). The cells (``a``, ``b``: annotators; ``a|b`` in the order the part was given
them; ``t``: a type's key):

- per annotator: ``phenomena.started`` (1 when the annotator has phenomena on the pair or finished it:
  who takes part), ``phenomena.pairs`` (1 with phenomena on the pair), ``phenomena.words`` (distinct
  scope positions of the pair), ``phenomena.count`` / ``phenomena.type_words`` with key ``t`` (phenomena
  of type t, their distinct scope positions); for TPO (union, gold): ``phenomena.matched``,
  ``phenomena.to_gold``, ``phenomena.from_gold`` with key the criterion;
- per pair: ``phenomena.gold`` (|G|: distinct (type, s1, s2) marked identically by ≥ 2 annotators);
- per annotator pair with phenomena on the pair by both: ``phenomena.both`` (1), ``phenomena.match``
  with key ``t:partial_xy`` … ``t:total_yx`` (TPO counts), ``phenomena.overlap`` with key
  ``t:do_xy@k`` / ``t:do_yx@k`` (Σ max overlapping) and ``phenomena.pairwise`` with key ``c@k`` (the
  pair's value of column c of :attr:`metrics.iapta.PairTables.pair_values`; columns 2 and 5, DO F1,
  also as ``2r`` / ``5r`` computed with b first, as the report's order may be).

Float values (Σ max overlapping, the per-pair values) are kept exactly: a float is an integer multiple
of 2⁻¹⁰⁷⁴ (`metrics.iapta`'s exact sums), written as limbs ``@k`` of :data:`LIMB_BITS` bits (value =
Σ limb_k · 2^(k·LIMB_BITS) · 2⁻¹⁰⁷⁴; a float of 53 bits takes at most three). Limbs are added without
carry, so a total is an integer sum of integers (exact in any order, in the database too) for up to
2^(63 − LIMB_BITS) pairs, and the report rounds each total once, as the from-scratch computation's
exact sums do. A pair where only one of two annotators has phenomena adds 0 to every per-pair value of
the two and one to the pairs where it is defined, so those pairs need no cell of the annotator pair:
the count of defined pairs is ``pairs(a) + pairs(b) − both(a|b)``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from metrics.iapta import (
    CELL_FIELDS,
    PairTables,
    _derived_rows,
    _exact_int,
    _Sums,
    aggregate_many,
    index_phenomena,
    pair_row,
    pair_words,
)
from metrics.multi import MultiTables, aggregate_multi, multi_row
from metrics.phenomena import multi_entries, pair_entries
from metrics.types import Phenomenon, Tagset

__all__ = [
    "LIMB_BITS",
    "MEASURES",
    "PAIR_MEASURES",
    "pair_part",
    "report_from_sums",
    "summed",
]

Cell = tuple[str, str, str]  # measure, annotators, key

STARTED = "phenomena.started"
PAIRS = "phenomena.pairs"
WORDS = "phenomena.words"
COUNT = "phenomena.count"
TYPE_WORDS = "phenomena.type_words"
MATCHED = "phenomena.matched"
TO_GOLD = "phenomena.to_gold"
FROM_GOLD = "phenomena.from_gold"
GOLD = "phenomena.gold"
BOTH = "phenomena.both"
MATCH = "phenomena.match"
OVERLAP = "phenomena.overlap"
PAIRWISE = "phenomena.pairwise"
#: Every measure of the cells.
MEASURES = (
    STARTED, PAIRS, WORDS, COUNT, TYPE_WORDS, MATCHED, TO_GOLD, FROM_GOLD, GOLD, BOTH, MATCH, OVERLAP, PAIRWISE,
)  # fmt: skip

#: The measures of annotator pairs' cells.
PAIR_MEASURES = (BOTH, MATCH, OVERLAP, PAIRWISE)

LIMB_BITS = 40
_LIMB_MASK = (1 << LIMB_BITS) - 1
_MATCH_FIELDS = ("partial_xy", "partial_yx", "total_xy", "total_yx")
_MATCH_COLUMNS = tuple(CELL_FIELDS.index(f) for f in _MATCH_FIELDS)
_DO_COLUMNS = (CELL_FIELDS.index("do_xy"), CELL_FIELDS.index("do_yx"))
_SWAPPED = (1, 0, 3, 2, 5, 4, 7, 6, 9, 8)  # CELL_FIELDS with X and Y exchanged
_CRITERIA = ("partial", "total")
_ORIENTED = (2, 5)  # pair_values columns whose float value depends on which annotator is X (DO F1)


def _limbs(x: float) -> list[tuple[int, int]]:
    """(limb index, limb) of the non-zero limbs of float ``x`` ≥ 0 as an exact multiple of 2⁻¹⁰⁷⁴."""
    if not x >= 0:
        raise ValueError(f"a kept value must be a non-negative number, got {x!r}")
    n = _exact_int(x) if x else 0
    out: list[tuple[int, int]] = []
    k = 0
    while n:
        if n & _LIMB_MASK:
            out.append((k, n & _LIMB_MASK))
        n >>= LIMB_BITS
        k += 1
    return out


def _put_float(out: dict[Cell, int], measure: str, annotators: str, key: str, x: float) -> None:
    for k, limb in _limbs(x):
        out[(measure, annotators, f"{key}@{k}")] = limb


def pair_part(
    phenomena: Mapping[str, Sequence[Phenomenon]],
    *,
    tagset: Tagset,
    done: Collection[str] = (),
    type_keys: Mapping[str, str] | None = None,
    only: str | None = None,
) -> dict[Cell, int]:
    """One pair's additive part (non-zero cells; see the module docstring).

    ``phenomena``: annotator → their phenomena of the pair, in the document's order (an annotator pair's
    cells are keyed ``a|b`` in this mapping's order); ``done``: annotators who finished the pair;
    ``type_keys``: type name → its key in the cells (default: the name); ``only``: the cells of
    annotator pairs (:data:`PAIR_MEASURES`) only for those ``only`` is in (after a change of that
    annotator's phenomena the others are as they were)."""
    type_index = {t.name: i for i, t in enumerate(tagset.types)}
    keys = [type_keys[t.name] if type_keys is not None else t.name for t in tagset.types]
    indexes = {a: index_phenomena(list(xs), type_index) for a, xs in phenomena.items() if xs}
    cells = {a: next(iter(ix.values())) for a, ix in indexes.items()}
    out: dict[Cell, int] = {}
    for a in dict.fromkeys([*phenomena, *done]):
        if a in cells or a in done:
            out[(STARTED, a, "")] = 1
    for a, by_type in cells.items():
        out[(PAIRS, a, "")] = 1
        out[(WORDS, a, "")] = pair_words(by_type)
        for t, cell in by_type.items():
            out[(COUNT, a, keys[t])] = len(cell.recs)
            out[(TYPE_WORDS, a, keys[t])] = cell.w
    names = list(cells)
    pairs = [(a, b) for n, a in enumerate(names) for b in names[n + 1 :] if only is None or only in (a, b)]
    _pairs_of_annotators(out, pairs, cells, keys)
    _multi_cells(out, names, [cells[a] for a in names])
    return {cell: v for cell, v in out.items() if v}


def _pairs_of_annotators(
    out: dict[Cell, int],
    pairs: Sequence[tuple[str, str]],
    cells: Mapping[str, Mapping[int, Any]],
    keys: Sequence[str],
) -> None:
    """The cells of annotator pairs ``pairs`` (both with phenomena on the pair); their per-pair values
    derived in one batch (`_derived_rows` derives each row alone), each also with b first."""
    if not pairs:
        return
    tables = np.zeros((2 * len(pairs), len(keys), len(CELL_FIELDS)))
    words = np.zeros((2 * len(pairs), 2))
    for n, (a, b) in enumerate(pairs):
        ab = f"{a}|{b}"
        types, rows, (w_a, w_b) = pair_row(cells[a], cells[b])
        out[(BOTH, ab, "")] = 1
        tables[2 * n, types] = rows
        tables[2 * n + 1] = tables[2 * n][:, list(_SWAPPED)]
        words[2 * n], words[2 * n + 1] = (w_a, w_b), (w_b, w_a)
        for t, row in zip(types, rows, strict=True):
            for name, column in zip(_MATCH_FIELDS, _MATCH_COLUMNS, strict=True):
                out[(MATCH, ab, f"{keys[t]}:{name}")] = int(row[column])
            for name, column in zip(("do_xy", "do_yx"), _DO_COLUMNS, strict=True):
                _put_float(out, OVERLAP, ab, f"{keys[t]}:{name}", row[column])
    _, values = _derived_rows(tables, words)
    derived = values.tolist()
    for n, (a, b) in enumerate(pairs):
        ab = f"{a}|{b}"
        for c, v in enumerate(derived[2 * n]):
            _put_float(out, PAIRWISE, ab, str(c), v)
        for c in _ORIENTED:
            _put_float(out, PAIRWISE, ab, f"{c}r", derived[2 * n + 1][c])


def _multi_cells(out: dict[Cell, int], names: Sequence[str], cells: Sequence[Mapping[int, Any]]) -> None:
    """TPO (union, gold) statistics of the pair (`metrics.multi.multi_row` of the annotators with
    phenomena on it: the others add nothing to it)."""
    if len(names) < 2:
        return
    k = len(names)
    row = multi_row(list(cells))
    out[(GOLD, "", "")] = row[k]
    for ci, crit in enumerate(_CRITERIA):
        base = k + 1 + 3 * k * ci
        for r, a in enumerate(names):
            out[(MATCHED, a, crit)] = row[base + r]
            out[(TO_GOLD, a, crit)] = row[base + k + r]
            out[(FROM_GOLD, a, crit)] = row[base + 2 * k + r]


def summed(parts: Iterable[Mapping[Cell, int]]) -> dict[Cell, int]:
    """The totals of ``parts`` (cells at zero left out)."""
    out: dict[Cell, int] = {}
    for part in parts:
        for cell, n in part.items():
            out[cell] = out.get(cell, 0) + n
    return {cell: n for cell, n in out.items() if n}


# ---- the report from the totals ----------------------------------------------------------------------


class _Totals:
    """The totals read by annotator and annotator pair: ``one[(measure, a)][key]``,
    ``two[(measure, a, b)][key]`` (both orientations of an annotator pair are looked up), ``gold``."""

    def __init__(self, cells: Mapping[Cell, int]) -> None:
        self.one: dict[tuple[str, str], dict[str, int]] = {}
        self.two: dict[tuple[str, str, str], dict[str, int]] = {}
        self.gold = 0
        for (measure, annotators, key), n in cells.items():
            if measure == GOLD:
                self.gold += n
            elif "|" in annotators:
                a, _, b = annotators.partition("|")
                self.two.setdefault((measure, a, b), {})[key] = n
            else:
                self.one.setdefault((measure, annotators), {})[key] = n

    def of(self, measure: str, a: str, key: str = "") -> int:
        return self.one.get((measure, a), {}).get(key, 0)

    def pair(self, measure: str, a: str, b: str) -> tuple[dict[str, int], bool]:
        """The cells of ``measure`` of annotator pair (a, b) and whether they are kept as ``b|a``."""
        if (measure, a, b) in self.two:
            return self.two[(measure, a, b)], False
        return self.two.get((measure, b, a), {}), True


def _exact_totals(limbs: Mapping[str, int]) -> dict[str, int]:
    """Each value's exact total (a multiple of 2⁻¹⁰⁷⁴) from its limbs ``key@k``, in one pass over them."""
    totals: dict[str, int] = {}
    for name, n in limbs.items():
        key, _, k = name.rpartition("@")
        totals[key] = totals.get(key, 0) + (n << (int(k) * LIMB_BITS))
    return totals


def _tables(totals: _Totals, a: str, b: str, types: Sequence[tuple[str, str]]) -> PairTables:
    """A table without rows whose sums are the totals of annotator pair (a, b): what
    :func:`metrics.iapta.aggregate_many` reads of a table."""
    n_types = len(types)
    sums = np.zeros((n_types, len(CELL_FIELDS)))
    fractional = [[0, 0] for _ in range(n_types)]
    match, turned = totals.pair(MATCH, a, b)
    overlap = _exact_totals(totals.pair(OVERLAP, a, b)[0])
    for t, (key, _) in enumerate(types):
        sums[t, 0], sums[t, 1] = totals.of(COUNT, a, key), totals.of(COUNT, b, key)
        sums[t, 2], sums[t, 3] = totals.of(TYPE_WORDS, a, key), totals.of(TYPE_WORDS, b, key)
        for name, column in zip(_MATCH_FIELDS, _MATCH_COLUMNS, strict=True):
            sums[t, _SWAPPED[column] if turned else column] = match.get(f"{key}:{name}", 0)
        for k, name in enumerate(("do_xy", "do_yx")):
            fractional[t][1 - k if turned else k] = overlap.get(f"{key}:{name}", 0)
    pairwise = _exact_totals(totals.pair(PAIRWISE, a, b)[0])
    both = sum(totals.pair(BOTH, a, b)[0].values())
    defined = totals.of(PAIRS, a) + totals.of(PAIRS, b) - both
    columns = [str(c) for c in range(6)]
    if turned:
        columns = [f"{c}r" if int(c) in _ORIENTED else c for c in columns]
    kept = _Sums(
        cells=sums,
        fractional=fractional,
        words=np.array([totals.of(WORDS, a), totals.of(WORDS, b)], dtype=np.float64),
        pairwise=[pairwise.get(c, 0) for c in columns],
        defined=[defined] * 6,
    )
    for t in range(n_types):
        kept.round_type(t)
    return PairTables.of_sums(tuple(name for _, name in types), kept)


def report_from_sums(
    cells: Mapping[Cell, int], *, annotators: Sequence[str], types: Sequence[tuple[str, str]]
) -> dict[str, dict[str, Any]]:
    """The ``iapta.*`` report keys (N, TPO, DO with their variants, TPO union and gold, phenomena counts)
    from the totals of :func:`pair_part` over a document's pairs.

    ``annotators``: the document's annotators in its order (those with a ``phenomena.started`` total
    take part); ``types``: (key in the cells, name) of the tagset's types in its order."""
    totals = _Totals(cells)
    names = [a for a in annotators if totals.of(STARTED, a)]
    pairs = [(a, b) for n, a in enumerate(names) for b in names[n + 1 :]]
    measured = dict(zip(pairs, aggregate_many([_tables(totals, a, b, types) for a, b in pairs]), strict=True))
    counts = {a: sum(totals.one.get((COUNT, a), {}).values()) for a in names}
    entries: dict[str, dict[str, Any]] = {"iapta.phenomena.count": {"by_annotator": counts}}
    entries.update(pair_entries(measured))
    entries.update(_multi_entries(totals, names, counts))
    return dict(sorted(entries.items()))


def _multi_entries(
    totals: _Totals, names: Sequence[str], counts: Mapping[str, int]
) -> dict[str, dict[str, Any]]:
    """TPO (union, gold): `metrics.multi.aggregate_multi` of one row holding the totals."""
    k = len(names)
    multi = None
    if k >= 3:
        row = [counts[a] for a in names] + [totals.gold]
        for crit in _CRITERIA:
            for measure in (MATCHED, TO_GOLD, FROM_GOLD):
                row += [totals.of(measure, a, crit) for a in names]
        multi = aggregate_multi(MultiTables(tuple(names), ("",), np.array([row], dtype=np.int64)))
    return multi_entries(multi)
