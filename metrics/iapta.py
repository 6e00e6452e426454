"""IAPTA agreement on paraphrase phenomena: N-, TPO- and DO-measures (Vila et al. 2015, §4).

docs/measures.md#n, #tpo, #do (spec §2–4). Two annotators X (``a``) and Y (``b``) are compared through per-``(pair, type)`` *cells*:
only same-pair, same-type phenomena can match, so every measure is an aggregate of ten sufficient
statistics per cell (:data:`CELL_FIELDS`) plus the number of distinct scope tokens per pair. The
public functions compute those tables and aggregate them; :mod:`metrics.report` and
:mod:`metrics.phenomena` use the same two steps, so all paths give bit-identical numbers.

Undefined values (a ratio with denominator 0) are ``None``; means skip them and a mean of nothing
is ``None`` (docs/measures.md#conventions). Scopes are held as integer bitsets (bit ``i`` = token ``i``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from metrics.types import Phenomenon, Tagset, TypeDef

__all__ = [
    "CELL_FIELDS",
    "agr_n",
    "harmonic_mean",
    "overlapping",
    "partial_overlap",
    "total_overlap",
    "agr_ph",
    "agr_w",
    "agr_o",
    "tpo_scores",
    "TPOScores",
    "do_f1",
    "do_k",
    "by_type",
    "PhenomenaIndex",
    "PairTables",
    "PairMeasures",
    "index_phenomena",
    "pair_tables",
    "pair_row",
    "aggregate",
    "aggregate_many",
]

Criterion = Literal["partial", "total"]
Unit = Literal["ph", "w"]
FloatArray = npt.NDArray[np.float64]

#: Statistics of one (pair, type) cell, in column order of :attr:`PairTables.cells`.
CELL_FIELDS = (
    "n_x",  # phenomena of X
    "n_y",
    "w_x",  # distinct scope tokens of X (both members)
    "w_y",
    "partial_xy",  # X phenomena partially overlapping some Y phenomenon
    "partial_yx",
    "total_xy",  # X phenomena with identical scopes in Y
    "total_yx",
    "do_xy",  # Σ_x max_y overlapping(x, y)
    "do_yx",
)
_N_X, _N_Y, _W_X, _W_Y, _P_XY, _P_YX, _T_XY, _T_YX, _D_XY, _D_YX = range(10)

# A phenomenon as a tuple of bitsets: (s1, s2, projection, key1, key2, |s1|, |s2|, |key1|, |key2|).
_Rec = tuple[int, int, str | None, int, int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class _Cell:
    recs: tuple[_Rec, ...]
    w: int  # distinct scope tokens of the cell's phenomena


def _mask(indices: Iterable[int]) -> int:
    return sum(map(_ONE.__lshift__, indices)) if indices else 0  # distinct indices: sum = bitwise or


_ONE = 1


def _rec(x: Phenomenon) -> _Rec:
    s1, s2, key1, key2 = x.s1, x.s2, x.key1, x.key2
    try:
        m1 = sum(map(_ONE.__lshift__, s1)) if s1 else 0  # distinct indices: sum = bitwise or
        m2 = sum(map(_ONE.__lshift__, s2)) if s2 else 0
        k1 = sum(map(_ONE.__lshift__, key1)) if key1 else 0
        k2 = sum(map(_ONE.__lshift__, key2)) if key2 else 0
    except (TypeError, ValueError):
        raise ValueError(f"phenomenon {x!r}: token indices must be non-negative integers") from None
    return (m1, m2, x.projection, k1, k2, len(s1), len(s2), len(key1), len(key2))


# -- scalar building blocks -----------------------------------------------------------------------


def agr_n(n_x: float, n_y: float) -> float | None:
    """N-measure agreement of two counts: ``min(n_X, n_Y) / max(n_X, n_Y)``.

    Range [0, 1]; ``None`` if ``max = 0`` (nothing to compare). Vila et al. (2015) §4.1;
    docs/measures.md#n.

    >>> agr_n(6, 8)  # Vila Fig. 3, pair 1: B has 6 phenomena, C has 8 → agr_ph
    0.75
    >>> agr_n(8, 5)  # SYNTHETIC/ANALYTIC: B covers 6+2 tokens, C 3+2 → agr_w
    0.625
    """
    _check_count(n_x, "n_x")
    _check_count(n_y, "n_y")
    hi = max(n_x, n_y)
    return None if hi == 0 else float(min(n_x, n_y) / hi)


def harmonic_mean(x: float | None, y: float | None) -> float | None:
    """Unweighted harmonic mean ``HM(x, y) = 2xy/(x+y)``.

    0 when ``x + y = 0``; ``None`` if either is ``None``. docs/measures.md#conventions.

    >>> harmonic_mean(1.0, 0.8)
    0.888888888888889
    """
    if x is None or y is None:
        return None
    return 0.0 if x + y == 0 else 2 * x * y / (x + y)


def _check_count(n: float, name: str) -> None:
    if isinstance(n, bool) or not isinstance(n, int | float | np.integer | np.floating) or not n >= 0:
        raise ValueError(f"{name} must be a non-negative number, got {n!r}")


def _a(c1: int, c2: int) -> float:
    """DO factor ``a = 1/(members in which x has a scope)`` from x's scope sizes (spec 1.1)."""
    return 0.5 if c1 and c2 else 1.0


def _overlapping(x: _Rec, y: _Rec) -> float:
    x1, x2, xp, xk1, xk2, c1, c2, kc1, kc2 = x
    a = _a(c1, c2)
    cov1 = (x1 & y[0]).bit_count() / c1 if c1 else 0.0
    cov2 = (x2 & y[1]).bit_count() / c2 if c2 else 0.0
    p = 1.0 if xp == y[2] else 0.75
    j = 0.75 + 0.125 * ((xk1 & y[3]).bit_count() / kc1 if kc1 else 1.0)
    j += 0.125 * ((xk2 & y[4]).bit_count() / kc2 if kc2 else 1.0)
    return a * p * j * (cov1 + cov2)


def overlapping(x: Phenomenon, y: Phenomenon, *, one_sided: bool | None = None) -> float:
    """DO overlap of phenomenon ``x`` with ``y`` (asymmetric: coverage is relative to ``x``).

    ``overlapping(x, y) = a·p·j·(coverage(x.s1, y.s1, 0) + coverage(x.s2, y.s2, 0))`` for the same pair
    and type, else 0; ``coverage(u, v, d) = |u ∩ v|/|u|`` (``d`` if ``u = ∅``);
    ``a = 1/(number of members in which x has a scope)`` (spec 1.1: 1 for a one-sided x, 0.5 for a
    two-sided one); ``p = 1`` if the projections are equal (null = null) else 0.75;
    ``j = 0.75 + 0.125·coverage(x.key1, y.key1, 1) + 0.125·coverage(x.key2, y.key2, 1)``.
    Range [0, 1]. Vila et al. (2015) §4.3; docs/measures.md#do (spec §4).

    ``one_sided`` (the type's tagset flag) no longer changes the value; it is still checked: a
    one-sided type cannot have both scopes (``ValueError``).

    >>> B = Phenomenon("p1", "SYNTHETIC/ANALYTIC", frozenset(range(6)), frozenset({0, 1}), "local")
    >>> C = Phenomenon("p1", "SYNTHETIC/ANALYTIC", frozenset({1, 2, 3}), frozenset({0, 1}), "local")
    >>> overlapping(B, C), overlapping(C, B)  # Vila Fig. 3: coverages 0.5 and 1 → 0.75
    (0.75, 1.0)
    >>> N = Phenomenon("p2", "Negation switching", frozenset({3}), frozenset())
    >>> overlapping(N, N)  # a one-sided phenomenon of a two-sided type (spec 1.1; 0.5 under 1.0)
    1.0
    """
    _check_phenomena([x], "x")
    _check_phenomena([y], "y")
    if one_sided:
        for name, z in (("x", x), ("y", y)):
            if z.s1 and z.s2:
                raise ValueError(f"{name}: type {z.type!r} is one-sided but both scopes are non-empty")
    if x.pair != y.pair or x.type != y.type:
        return 0.0
    return _overlapping(_rec(x), _rec(y))


def partial_overlap(x: Phenomenon, y: Phenomenon) -> bool:
    """TPO partial overlap: same pair and type and ``x.s1 ∩ y.s1 ≠ ∅ ∨ x.s2 ∩ y.s2 ≠ ∅``
    (docs/measures.md#tpo)."""
    return x.pair == y.pair and x.type == y.type and bool(x.s1 & y.s1 or x.s2 & y.s2)


def total_overlap(x: Phenomenon, y: Phenomenon) -> bool:
    """TPO total overlap: same pair and type and identical scopes ``s1`` and ``s2`` (docs/measures.md#tpo)."""
    return x.pair == y.pair and x.type == y.type and x.s1 == y.s1 and x.s2 == y.s2


# -- per-cell statistics --------------------------------------------------------------------------


class PhenomenaIndex(dict[str, dict[int, _Cell]]):
    """One annotator's phenomena grouped by pair id, then by type index (see :func:`index_phenomena`).

    ``words[pair]`` caches :func:`pair_words` of the pair's cells.
    """

    words: dict[str, int]

    def set_pair(self, pair: str, cells: dict[int, _Cell] | None) -> None:
        """Replace (or, with no cells, remove) the cells of ``pair``."""
        if cells:
            self[pair] = cells
            self.words[pair] = pair_words(cells)
        else:
            self.pop(pair, None)
            self.words.pop(pair, None)


def index_phenomena(phenomena: Sequence[Phenomenon], type_index: Mapping[str, int]) -> PhenomenaIndex:
    """Group one annotator's phenomena by pair and type, as bitset records (validated first)."""
    _check_phenomena(phenomena, "phenomena")
    grouped: dict[str, dict[int, list[_Rec]]] = {}
    for n, x in enumerate(phenomena):
        t = type_index.get(x.type)
        if t is None:
            raise ValueError(f"phenomena[{n}].type: type {x.type!r} is not in the tagset")
        cells = grouped.get(x.pair)
        if cells is None:
            cells = grouped[x.pair] = {}
        recs = cells.get(t)
        if recs is None:
            cells[t] = [_rec(x)]
        else:
            recs.append(_rec(x))
    index = PhenomenaIndex()
    index.words = {}
    for pair, cells in grouped.items():
        index.set_pair(pair, {t: _cell(recs) for t, recs in cells.items()})
    return index


def _cell(recs: list[_Rec]) -> _Cell:
    if len(recs) == 1:
        r = recs[0]
        return _Cell((r,), r[5] + r[6])
    u1 = u2 = 0
    for r in recs:
        u1 |= r[0]
        u2 |= r[1]
    return _Cell(tuple(recs), u1.bit_count() + u2.bit_count())


def pair_words(cells: Mapping[int, _Cell] | None) -> int:
    """Distinct scope token positions of one annotator in one pair (overlaps across types count once)."""
    if not cells:
        return 0
    if len(cells) == 1:
        for cell in cells.values():
            return cell.w
    u1 = u2 = 0
    for cell in cells.values():
        for r in cell.recs:
            u1 |= r[0]
            u2 |= r[1]
    return u1.bit_count() + u2.bit_count()


def _cell_row(cx: _Cell | None, cy: _Cell | None) -> list[float]:
    """One row of :data:`CELL_FIELDS`: a single pass over the X × Y phenomena of the cell.

    Computes both directions of ``overlapping`` from the shared intersections, with the same
    arithmetic as :func:`_overlapping` (so results are bit-identical to the public function).
    """
    if cx is None or cy is None:
        if cx is not None:
            return [len(cx.recs), 0, cx.w, 0, 0, 0, 0, 0, 0.0, 0.0]
        assert cy is not None
        return [0, len(cy.recs), 0, cy.w, 0, 0, 0, 0, 0.0, 0.0]
    xs, ys = cx.recs, cy.recs
    ny = len(ys)
    best_y = [0.0] * ny
    hit_y = [False] * ny
    same_y = [False] * ny
    p_xy = t_xy = 0
    d_xy = 0.0
    for x1, x2, xp, xk1, xk2, cx1, cx2, kx1, kx2 in xs:
        a_x = 0.5 if cx1 and cx2 else 1.0  # spec 1.1: 1/(members in which x has a scope)
        best = 0.0
        hit = same = False
        for n, (y1, y2, yp, yk1, yk2, cy1, cy2, ky1, ky2) in enumerate(ys):
            i1 = (x1 & y1).bit_count()
            i2 = (x2 & y2).bit_count()
            if not (i1 or i2):
                continue  # no scope overlap: overlapping is 0 both ways, no TPO match
            hit = hit_y[n] = True
            if x1 == y1 and x2 == y2:
                same = same_y[n] = True
            p = 1.0 if xp == yp else 0.75
            if xk1 or yk1 or xk2 or yk2:
                ik1 = (xk1 & yk1).bit_count()
                ik2 = (xk2 & yk2).bit_count()
                j_xy = 0.75 + 0.125 * (ik1 / kx1 if kx1 else 1.0)
                j_xy += 0.125 * (ik2 / kx2 if kx2 else 1.0)
                j_yx = 0.75 + 0.125 * (ik1 / ky1 if ky1 else 1.0)
                j_yx += 0.125 * (ik2 / ky2 if ky2 else 1.0)
            else:
                j_xy = j_yx = 1.0
            o = a_x * p * j_xy * ((i1 / cx1 if cx1 else 0.0) + (i2 / cx2 if cx2 else 0.0))
            if o > best:
                best = o
            o = (
                (0.5 if cy1 and cy2 else 1.0)
                * p
                * j_yx
                * ((i1 / cy1 if cy1 else 0.0) + (i2 / cy2 if cy2 else 0.0))
            )
            if o > best_y[n]:
                best_y[n] = o
        d_xy += best
        p_xy += hit
        t_xy += same
    d_yx = 0.0
    for v in best_y:
        d_yx += v
    return [len(xs), ny, cx.w, cy.w, p_xy, sum(hit_y), t_xy, sum(same_y), d_xy, d_yx]


def pair_row(
    cells_x: Mapping[int, _Cell] | None,
    cells_y: Mapping[int, _Cell] | None,
    a_by_type: Sequence[float] | None = None,
) -> tuple[list[int], list[list[float]], tuple[int, int]]:
    """Cell statistics of one pair: (type indices, rows of :data:`CELL_FIELDS`, pair words of X and Y).

    ``a_by_type`` is accepted for callers written for spec 1.0 and ignored: since spec 1.1 the DO
    factor ``a`` follows each phenomenon's scopes (docs/measures.md#do).
    """
    cx, cy = cells_x or {}, cells_y or {}
    types = sorted(set(cx) | set(cy))
    rows = [_cell_row(cx.get(t), cy.get(t)) for t in types]
    return types, rows, (pair_words(cx), pair_words(cy))


@dataclass(slots=True)
class PairTables:
    """Sufficient statistics of one annotator pair, kept for the pairs where X or Y has phenomena.

    ``pairs`` are all pair ids (document order) and ``types`` the type names; ``positions[r]`` is the
    index in ``pairs`` of stored row ``r`` (ascending), and ``cells[r, t, :]`` (columns of
    :data:`CELL_FIELDS`) and ``words[r] = (w_X, w_Y)`` (distinct scope tokens) that pair's statistics.
    A pair neither annotator has phenomena on has no row: all its statistics are zero and every value
    of it is undefined, so leaving it out changes no sum or mean (sums over the rows add the same
    non-zero terms in the same order) while a table costs what the two annotators did, not the corpus.
    ``per_pair`` (cells summed over types) and ``pair_values`` (per row: agr_ph, agr_w, DO F1, and
    their means over the pair's types; NaN = undefined) are derived row by row (:meth:`refresh`), so
    that a changed pair costs one row, not a pass over the whole table; rows set by :meth:`set_row`
    are derived together when the values are next read, one pass for a batch of changed pairs.

    The sums over the rows that aggregation reads (per type, the pairs' words, the pairwise values) are
    exact sums rounded once (`exact_sum`), so that they do not depend on the order of the rows: a table
    that :meth:`set_row` has changed keeps them as exact integers (`_Sums`) and moves them by the rows
    it replaces, instead of a pass over all its rows, and they still equal those of a table built afresh.
    """

    pairs: tuple[str, ...]
    types: tuple[str, ...]
    cells: FloatArray
    words: FloatArray
    positions: npt.NDArray[np.int64]
    _per_pair: FloatArray = field(init=False, repr=False)
    _pair_values: FloatArray = field(init=False, repr=False)
    _stale: set[int] = field(init=False, repr=False)  # rows set since their derived values were
    _sums: _Sums | None = field(init=False, repr=False)  # kept once a row was set (see the docstring)

    def __post_init__(self) -> None:
        self._per_pair = np.zeros((len(self.positions), len(CELL_FIELDS)))
        self._pair_values = np.zeros((len(self.positions), 6))
        self._stale = set()
        self._sums = None
        self.refresh(slice(None))

    @classmethod
    def of_sums(cls, types: tuple[str, ...], sums: _Sums) -> PairTables:
        """A table without rows whose sums are ``sums``: what :func:`aggregate_many` reads of a table
        (``metrics.phenomena_sums`` builds one per annotator pair from kept totals), made without
        deriving the values of rows it does not have."""
        table = object.__new__(cls)
        table.pairs, table.types = (), types
        table.cells = np.zeros((0, len(types), len(CELL_FIELDS)))
        table.words = np.zeros((0, 2))
        table.positions = np.zeros(0, dtype=np.int64)
        table._per_pair = np.zeros((0, len(CELL_FIELDS)))
        table._pair_values = np.zeros((0, 6))
        table._stale = set()
        table._sums = sums
        return table

    def type_sums(self) -> FloatArray:
        """Per type, each of :data:`CELL_FIELDS` summed over the rows (types × fields; exact sums)."""
        if self._sums is not None:
            return self._sums.cells
        out: FloatArray = self.cells.sum(axis=0)  # integer counts: exact in any order
        for f in _FRACTIONAL:
            out[:, f] = [exact_sum(column) for column in self.cells[:, :, f].T.tolist()]
        return out

    def word_sums(self) -> FloatArray:
        """(w_X, w_Y) summed over the rows (integer counts: exact)."""
        return self._sums.words if self._sums is not None else self.words.sum(axis=0)

    def pairwise_means(self) -> list[float | None]:
        """Per column of ``pair_values``, the mean of its defined values (None when there is none), from
        their exact sum."""
        self._refresh_stale()
        if self._sums is not None:
            return [
                _exact_float(total) / n if n else None
                for total, n in zip(self._sums.pairwise, self._sums.defined, strict=True)
            ]
        out: list[float | None] = []
        for column in self._pair_values.T.tolist():
            defined = [v for v in column if v == v]  # NaN = undefined
            out.append(exact_sum(defined) / len(defined) if defined else None)
        return out

    def _kept_sums(self) -> _Sums:
        """The exact sums, made from the rows the first time a row is set."""
        if self._sums is None:
            self._refresh_stale()
            n_types, n_fractional = len(self.types), len(_FRACTIONAL)
            fractional, _ = _exact_column_sums(
                self.cells[:, :, list(_FRACTIONAL)].reshape(len(self.positions), n_types * n_fractional)
            )
            pairwise, defined = _exact_column_sums(self._pair_values)
            sums = _Sums(
                cells=self.cells.sum(axis=0),
                fractional=[fractional[t * n_fractional : (t + 1) * n_fractional] for t in range(n_types)],
                words=self.words.sum(axis=0),
                pairwise=pairwise,
                defined=defined,
            )
            for t in range(n_types):
                sums.round_type(t)
            self._sums = sums
        return self._sums

    @property
    def per_pair(self) -> FloatArray:
        """Per stored row, its cells summed over the types."""
        self._refresh_stale()
        return self._per_pair

    @property
    def pair_values(self) -> FloatArray:
        """Per stored row: agr_ph, agr_w, DO F1 and their means over the pair's types (NaN = undefined)."""
        self._refresh_stale()
        return self._pair_values

    def _refresh_stale(self) -> None:
        """Derive the rows set since the last read, all in one pass (a batch of changed pairs touches
        a table's rows one `set_row` at a time; per row the values are those of `refresh` alone)."""
        if self._stale:
            rows = np.array(sorted(self._stale), dtype=np.int64)
            self._stale = set()
            self.refresh(rows)

    def refresh(self, rows: slice | npt.NDArray[np.int64]) -> None:
        """Recompute ``per_pair`` and ``pair_values`` of ``rows`` from ``cells`` and ``words``."""
        self._store_derived(rows, *_derived_rows(self.cells[rows], self.words[rows]))

    def _store_derived(
        self, rows: slice | npt.NDArray[np.int64], per_pair: FloatArray, values: FloatArray
    ) -> None:
        if self._sums is not None:
            self._sums.move_values(self._pair_values[rows].tolist(), -1)
            self._sums.move_values(values.tolist(), 1)
        self._per_pair[rows], self._pair_values[rows] = per_pair, values

    def resampled(self, drawn: npt.NDArray[np.int64], pairs: Sequence[str]) -> PairTables:
        """The table of the document made of the pairs ``drawn`` (indices into ``self.pairs``, a pair
        drawn k times counting k times), named ``pairs``: the drawn pairs' rows, copied in the order
        drawn, so the result equals a table built afresh from that document (a bootstrap resample)
        at the cost of copying rows."""
        row_of = np.full(len(self.pairs), -1, dtype=np.int64)
        row_of[self.positions] = np.arange(len(self.positions))
        rows = row_of[drawn]
        kept = rows >= 0
        rows = rows[kept]
        out = object.__new__(PairTables)  # each row's derived values are copied, not derived again
        out.pairs, out.types = tuple(pairs), self.types
        out.cells, out.words = self.cells[rows], self.words[rows]
        out.positions = np.flatnonzero(kept).astype(np.int64)
        out._per_pair, out._pair_values = self.per_pair[rows], self.pair_values[rows]
        out._stale, out._sums = set(), None
        return out

    def row_of(self, p: int) -> int | None:
        """The stored row of pair index ``p``; None when neither annotator has phenomena on it."""
        r = int(np.searchsorted(self.positions, p))
        return r if r < len(self.positions) and self.positions[r] == p else None

    def set_row(self, p: int, row: tuple[list[int], list[list[float]], tuple[int, int]]) -> None:
        """Replace the statistics of pair index ``p`` (the output of :func:`pair_row`); its derived
        values follow when they are next read."""
        types, values, words = row
        r = int(np.searchsorted(self.positions, p))
        stored = r < len(self.positions) and self.positions[r] == p
        empty = not types and not any(words)  # neither annotator has phenomena on the pair: no row
        if stored != (not empty):  # a row comes or goes: the stale row numbers shift
            self._refresh_stale()
        sums = self._kept_sums()
        if stored:
            sums.move_row(self.cells[r], self.words[r], -1)
        if empty:
            if stored:
                sums.move_values([self._pair_values[r].tolist()], -1)
                self.positions = np.delete(self.positions, r)
                self.cells = np.delete(self.cells, r, axis=0)
                self.words = np.delete(self.words, r, axis=0)
                self._per_pair = np.delete(self._per_pair, r, axis=0)
                self._pair_values = np.delete(self._pair_values, r, axis=0)
            return
        if not stored:
            self.positions = np.insert(self.positions, r, p)
            self.cells = np.insert(self.cells, r, 0.0, axis=0)
            self.words = np.insert(self.words, r, 0.0, axis=0)
            self._per_pair = np.insert(self._per_pair, r, 0.0, axis=0)
            self._pair_values = np.insert(self._pair_values, r, 0.0, axis=0)
            sums.move_values([[0.0] * 6], 1)  # the new row's values, until it is derived
        self.cells[r] = 0.0
        if types:
            self.cells[r, types] = values
        self.words[r] = words
        sums.move_row(self.cells[r], self.words[r], 1)
        self._stale.add(r)

    def dense(self, values: FloatArray, fill: float = 0.0) -> FloatArray:
        """``values`` (one entry per stored row, e.g. ``per_pair``) spread over all pairs, ``fill``
        for the pairs without a row."""
        out = np.full((len(self.pairs), *values.shape[1:]), fill)
        out[self.positions] = values
        return out


#: The cell fields whose values are not integers (DO's Σ overlapping); the others are counts.
_FRACTIONAL = (_D_XY, _D_YX)
_EXACT_BITS = 1074  # every finite float is an integer multiple of 2**-1074
_EXACT_ONE = 1 << _EXACT_BITS


def _exact_int(x: float) -> int:
    """``x`` as an exact integer multiple of 2**-1074."""
    n, d = x.as_integer_ratio()
    return n << (_EXACT_BITS + 1 - d.bit_length())


def _exact_float(total: int) -> float:
    """The float nearest to ``total`` × 2**-1074 (int / int is correctly rounded, as `math.fsum` is)."""
    return total / _EXACT_ONE


def _exact_column_sums(a: FloatArray) -> tuple[list[int], list[int]]:
    """Per column of ``a``: the exact sum of its defined (non-NaN) values as an integer multiple of
    2**-1074 (`_exact_int` of each, added), and how many there are; vectorised: every value is
    M·2**E with an integer |M| < 2**53 (`np.frexp`), M is split in two halves of < 2**27 whose sums
    per (column, E) stay below 2**53 (exact in float64) for up to 2**26 values, then shifted into place."""
    ok = ~np.isnan(a)
    defined = ok.sum(axis=0).tolist()
    columns = np.nonzero(ok)[1]
    values = a[ok]
    keep = values != 0
    columns, values = columns[keep], values[keep]
    totals = [0] * a.shape[1]
    if not len(values):
        return totals, defined
    if len(values) >= 1 << 26:
        raise ValueError("too many values for one exact sum")
    m, e = np.frexp(values)
    mantissa = (m * 2.0**53).astype(np.int64)  # values = mantissa · 2**(e − 53), exactly
    high = mantissa >> 26
    low = mantissa - (high << 26)
    exponent = e.astype(np.int64) - 53
    shift = int(exponent.min())
    keys, where = np.unique(columns * 4096 + (exponent - shift), return_inverse=True)
    high_sums = np.bincount(where, weights=high.astype(np.float64)).tolist()
    low_sums = np.bincount(where, weights=low.astype(np.float64)).tolist()
    for key, h, lo in zip(keys.tolist(), high_sums, low_sums, strict=True):
        column, offset = divmod(key, 4096)
        total = (int(h) << 26) + int(lo)
        place = offset + shift + _EXACT_BITS
        totals[column] += total << place if place >= 0 else total >> -place
    return totals, defined


def exact_sum(values: Iterable[float]) -> float:
    """The sum of ``values`` rounded once (`math.fsum`): the same whatever the order of the values, so a
    sum kept up to date by adding and removing values equals the sum taken afresh."""
    return math.fsum(values)


@dataclass(slots=True)
class _Sums:
    """A changed table's sums over its rows: ``cells`` (types × fields; counts exact as floats, the
    fractional fields rounded from ``fractional``, exact integers (`_exact_int`) per type), ``words``, and
    per ``pair_values`` column the exact sum of its defined values and how many there are."""

    cells: FloatArray
    fractional: list[list[int]]
    words: FloatArray
    pairwise: list[int]
    defined: list[int]

    def round_type(self, t: int) -> None:
        for k, f in enumerate(_FRACTIONAL):
            self.cells[t, f] = _exact_float(self.fractional[t][k])

    def move_row(self, cells: FloatArray, words: FloatArray, sign: int) -> None:
        """Add (sign 1) or take out (−1) one row's cells and words."""
        types = np.flatnonzero(cells.any(axis=1))
        self.cells[types] += sign * cells[types]  # the counts; the fractional fields are rounded below
        for t, row in zip(types.tolist(), cells[types][:, list(_FRACTIONAL)].tolist(), strict=True):
            for k, x in enumerate(row):
                self.fractional[t][k] += sign * _exact_int(x)
            self.round_type(t)
        self.words += sign * words

    def move_values(self, rows: list[list[float]], sign: int) -> None:
        """Add or take out rows of ``pair_values`` (NaN = undefined: not counted)."""
        for row in rows:
            for c, v in enumerate(row):
                if v == v:
                    self.pairwise[c] += sign * _exact_int(v)
                    self.defined[c] += sign


def _derived_rows(c: FloatArray, words: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(``per_pair``, ``pair_values``) of the rows ``c`` (rows × types × fields) and ``words`` (rows × 2):
    row by row, so a row's values do not depend on the other rows it is derived with."""
    per_pair = c.sum(axis=1)
    present = (c[:, :, _N_X] + c[:, :, _N_Y]) > 0
    values = np.empty((len(c), 6))
    values[:, 0] = _agr_n_vec(per_pair[:, _N_X], per_pair[:, _N_Y])
    values[:, 1] = _agr_n_vec(words[:, 0], words[:, 1])
    values[:, 2] = _do_f1_vec(per_pair[:, _N_X], per_pair[:, _N_Y], per_pair[:, _D_XY], per_pair[:, _D_YX])
    values[:, 3] = _row_means(_agr_n_vec(c[:, :, _N_X], c[:, :, _N_Y]), present)
    values[:, 4] = _row_means(_agr_n_vec(c[:, :, _W_X], c[:, :, _W_Y]), present)
    values[:, 5] = _row_means(
        _do_f1_vec(c[:, :, _N_X], c[:, :, _N_Y], c[:, :, _D_XY], c[:, :, _D_YX]), present
    )
    return per_pair, values


def refresh_stale_many(tables: Sequence[PairTables]) -> None:
    """Derive the rows set since their last read in all of ``tables`` (over the same types) in one pass:
    each row's values are those :meth:`PairTables.refresh` gives it alone (`_derived_rows`), while a batch
    of changes by several annotators, which leaves a stale row in hundreds of small tables, costs numpy's
    per-call overhead once instead of once per table."""
    stale = [(t, np.array(sorted(t._stale), dtype=np.int64)) for t in tables if t._stale]
    if not stale:
        return
    cells = np.concatenate([t.cells[rows] for t, rows in stale])
    words = np.concatenate([t.words[rows] for t, rows in stale])
    per_pair, values = _derived_rows(cells, words)
    start = 0
    for t, rows in stale:
        end = start + len(rows)
        t._store_derived(rows, per_pair[start:end], values[start:end])
        t._stale = set()
        start = end


def pair_tables(
    index_x: PhenomenaIndex,
    index_y: PhenomenaIndex,
    *,
    pairs: Sequence[str],
    types: Sequence[str],
    a_by_type: Sequence[float] | None = None,
    pair_positions: Mapping[str, int] | None = None,
) -> PairTables:
    """Build the :class:`PairTables` of annotators X and Y over ``pairs`` × ``types``.

    ``pair_positions`` (pair id → index in ``pairs``, for every pair the indexes hold) lets the build
    visit only the pairs X or Y has phenomena on instead of every pair: with many annotators, each
    of whom did a few pairs of a large corpus, that is the difference between their work and the
    corpus size per annotator pair. ``a_by_type`` is accepted for callers written for spec 1.0 and
    ignored (see :func:`pair_row`).
    """
    positions: list[int] = []
    r_idx: list[int] = []
    t_idx: list[int] = []
    values: list[list[float]] = []
    words: list[tuple[int, int]] = []
    visited: Iterable[tuple[int, str]] = enumerate(pairs)
    if pair_positions is not None:
        visited = sorted((pair_positions[pid], pid) for pid in index_x.keys() | index_y.keys())
    for p, pid in visited:
        cx, cy = index_x.get(pid), index_y.get(pid)
        if not cx and not cy:
            continue
        cx, cy = cx or {}, cy or {}
        row_types = list(cx.keys() | cy.keys())  # distinct cells: assignment order does not matter
        for t in row_types:
            values.append(_cell_row(cx.get(t), cy.get(t)))
        r_idx.extend([len(positions)] * len(row_types))
        t_idx.extend(row_types)
        positions.append(p)
        words.append((index_x.words.get(pid, 0), index_y.words.get(pid, 0)))
    cells = np.zeros((len(positions), len(types), len(CELL_FIELDS)))
    if values:
        cells[r_idx, t_idx] = values
    return PairTables(
        tuple(pairs),
        tuple(types),
        cells,
        np.array(words, dtype=np.float64).reshape(len(positions), 2),
        np.array(positions, dtype=np.int64),
    )


# -- aggregation ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairMeasures:
    """All IAPTA measures of one annotator pair X|Y (``None`` = undefined). Keys: docs/measures.md#report."""

    values: dict[str, float | None]  # e.g. "n.ph", "n.w.typewise", "tpo.partial.f1", "do.f1.pairwise"
    by_type: dict[str, dict[str, float | None]]  # "n.ph" / "n.w" / "do.f1" → type → value
    directional: dict[str, tuple[float | None, float | None]]  # "do.k", "tpo.partial.count" … → (X>Y, Y>X)
    counts: tuple[int, int]  # |X|, |Y|


def _ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    """Elementwise num/den with NaN where den = 0 (NaN = undefined, never leaves this module)."""
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _agr_n_vec(n_x: FloatArray, n_y: FloatArray) -> FloatArray:
    return _ratio(np.minimum(n_x, n_y), np.maximum(n_x, n_y))


def _hm_vec(x: FloatArray, y: FloatArray) -> FloatArray:
    s = x + y
    out = np.where(s == 0, 0.0, 2 * x * _ratio(y, s))
    return np.where(np.isnan(x) | np.isnan(y), np.nan, out)


def _do_f1_vec(n_x: FloatArray, n_y: FloatArray, d_xy: FloatArray, d_yx: FloatArray) -> FloatArray:
    f1 = _hm_vec(_ratio(d_xy, n_x), _ratio(d_yx, n_y))
    f1 = np.where((n_x == 0) | (n_y == 0), 0.0, f1)
    return np.where((n_x == 0) & (n_y == 0), np.nan, f1)


def _row_means(values: FloatArray, present: npt.NDArray[np.bool_]) -> FloatArray:
    """Per row (pair), the mean of ``values`` over present, defined cells; NaN for an empty row."""
    ok = present & ~np.isnan(values)
    return _ratio(np.where(ok, values, 0.0).sum(axis=1), ok.sum(axis=1).astype(np.float64))


def aggregate(tables: PairTables) -> PairMeasures:
    """All N-, TPO- and DO-measures of one annotator pair from its :class:`PairTables` (docs/measures.md#n, #tpo, #do)."""
    return aggregate_many([tables])[0]


def aggregate_many(tables: Sequence[PairTables]) -> list[PairMeasures]:
    """:func:`aggregate` of several annotator pairs' tables over the same types, bit for bit: each
    table's per-type sums are taken as there, and the per-type arithmetic (element by element) runs
    once over their stack instead of once per table — with 50 annotators a batch of changes
    re-aggregates hundreds of small tables, where numpy's per-call cost was most of the time."""
    if not tables:
        return []
    refresh_stale_many(tables)
    per_type = np.stack([t.type_sums() for t in tables])  # (K, T, fields)
    present = (per_type[:, :, _N_X] + per_type[:, :, _N_Y]) > 0
    by_type_values = {
        "n.ph": _agr_n_vec(per_type[:, :, _N_X], per_type[:, :, _N_Y]),
        "n.w": _agr_n_vec(per_type[:, :, _W_X], per_type[:, :, _W_Y]),
        "do.f1": _do_f1_vec(
            per_type[:, :, _N_X], per_type[:, :, _N_Y], per_type[:, :, _D_XY], per_type[:, :, _D_YX]
        ),
    }
    totals = per_type.sum(axis=1).tolist()  # (K, fields): per table, summed over the types
    present_rows = present.tolist()
    by_type_rows = {key: v.tolist() for key, v in by_type_values.items()}
    return [
        _measures(
            t,
            totals[k],
            [i for i, ok in enumerate(present_rows[k]) if ok],
            {key: rows[k] for key, rows in by_type_rows.items()},
        )
        for k, t in enumerate(tables)
    ]


def _defined(values: list[float]) -> list[float | None]:
    return [None if v != v else v for v in values]  # NaN = undefined


def _mean_of(values: list[float | None]) -> float | None:
    """Mean of the defined values (their sum rounded once); None when there is none."""
    defined = [v for v in values if v is not None]
    return exact_sum(defined) / len(defined) if defined else None


def _measures(
    tables: PairTables,
    tot: list[float],
    present: list[int],
    by_type_values: Mapping[str, list[float]],
) -> PairMeasures:
    """One table's measures from its totals over the types (`tot`, per field), the types either annotator
    has phenomena of (`present`, indices) and the per-type values (plain lists, NaN = undefined)."""
    values: dict[str, float | None] = {}
    by_type: dict[str, dict[str, float | None]] = {}
    directional: dict[str, tuple[float | None, float | None]] = {}
    names = [tables.types[i] for i in present]
    pairwise = tables.pairwise_means()
    n_x, n_y = tot[_N_X], tot[_N_Y]
    # N-measures (§2)
    pair_words = tables.word_sums().tolist()
    values["n.ph"] = agr_n(n_x, n_y)
    values["n.w"] = agr_n(pair_words[0], pair_words[1])
    for unit, col in (("ph", 0), ("w", 1)):
        key = f"n.{unit}"
        row = by_type_values[key]
        t_vals = _defined([row[i] for i in present])
        values[key + ".typewise"] = _mean_of(t_vals)
        by_type[key] = dict(zip(names, t_vals, strict=True))
        values[key + ".pairwise"] = pairwise[col]
        values[key + ".pairwise_typewise"] = pairwise[col + 3]
    # TPO-measures (§3)
    for crit, (fxy, fyx) in (("partial", (_P_XY, _P_YX)), ("total", (_T_XY, _T_YX))):
        c_xy, c_yx = tot[fxy], tot[fyx]
        s = tpo_from_counts(c_xy, c_yx, n_x, n_y)
        values[f"tpo.{crit}.f1"] = s.agr_o
        values[f"tpo.{crit}.f1_alt"] = s.f1_alt
        directional[f"tpo.{crit}.count"] = (int(c_xy), int(c_yx))
        directional[f"tpo.{crit}.f1_directional"] = (s.f1_x, s.f1_y)
    # DO-measures (§4)
    k_xy = tot[_D_XY] / n_x if n_x else None
    k_yx = tot[_D_YX] / n_y if n_y else None
    directional["do.k"] = (k_xy, k_yx)
    values["do.f1"] = _do_f1(k_xy, k_yx, n_x, n_y)
    row = by_type_values["do.f1"]
    t_f1 = _defined([row[i] for i in present])
    values["do.f1.typewise"] = _mean_of(t_f1)
    by_type["do.f1"] = dict(zip(names, t_f1, strict=True))
    values["do.f1.pairwise"] = pairwise[2]
    values["do.f1.pairwise_typewise"] = pairwise[5]
    return PairMeasures(values, by_type, directional, (int(n_x), int(n_y)))


def _do_f1(k_xy: float | None, k_yx: float | None, n_x: float, n_y: float) -> float | None:
    if n_x == 0 and n_y == 0:
        return None
    if n_x == 0 or n_y == 0:
        return 0.0
    return harmonic_mean(k_xy, k_yx)


@dataclass(frozen=True, slots=True)
class TPOScores:
    """TPO scores of X against Y (docs/measures.md#tpo); ``f1_x = F1^X``, ``agr_o = (F1^X + F1^Y)/2``."""

    count_xy: int
    count_yx: int
    f1_x: float | None
    f1_y: float | None
    agr_o: float | None
    f1_alt: float | None


def tpo_from_counts(c_xy: float, c_yx: float, n_x: float, n_y: float) -> TPOScores:
    """TPO scores from match counts and set sizes (HOO counting; docs/measures.md#tpo)."""
    n = n_x + n_y
    f1_x = 2 * c_xy / n if n else None
    f1_y = 2 * c_yx / n if n else None
    agr = (c_xy + c_yx) / n if n else None
    if n_x and n_y:
        alt = harmonic_mean(c_xy / n_x, c_yx / n_y)
    else:
        alt = 0.0 if n else None
    return TPOScores(int(c_xy), int(c_yx), f1_x, f1_y, agr, alt)


# -- public two-annotator functions ---------------------------------------------------------------


def _check_phenomena(xs: Sequence[Phenomenon], name: str) -> None:
    """Cheap structural checks; token indices are checked when the bitsets are built (:func:`_rec`)."""
    if isinstance(xs, str | bytes) or not isinstance(xs, Sequence | frozenset | set):
        raise ValueError(f"{name} must be a sequence of Phenomenon, got {type(xs).__name__}")
    for n, x in enumerate(xs):
        if type(x) is not Phenomenon and not isinstance(x, Phenomenon):
            raise ValueError(f"{name}[{n}] must be a Phenomenon, got {type(x).__name__}")
        if not x.s1 and not x.s2:
            raise ValueError(f"{name}[{n}]: both scopes are empty (s1 = s2 = ∅)")


def _tables_of(
    a: Sequence[Phenomenon], b: Sequence[Phenomenon], tagset: Tagset | None
) -> tuple[PairTables, Tagset]:
    _check_phenomena(a, "a")
    _check_phenomena(b, "b")
    if tagset is None:  # types in order of appearance, none one-sided
        names = dict.fromkeys(x.type for x in [*a, *b])
        tagset = Tagset(tuple(TypeDef(t) for t in names))
    type_index = {t.name: i for i, t in enumerate(tagset.types)}
    pairs = tuple(dict.fromkeys(x.pair for x in [*a, *b]))
    try:
        ia, ib = index_phenomena(a, type_index), index_phenomena(b, type_index)
    except ValueError as exc:
        raise ValueError(f"{exc} (pass the tagset that defines every type)") from None
    return pair_tables(ia, ib, pairs=pairs, types=tagset.names), tagset


def _variant(typewise: bool, pairwise: bool) -> str:
    return {(False, False): "", (True, False): ".typewise", (False, True): ".pairwise"}.get(
        (typewise, pairwise), ".pairwise_typewise"
    )


def agr_ph(
    a: Sequence[Phenomenon],
    b: Sequence[Phenomenon],
    *,
    typewise: bool = False,
    pairwise: bool = False,
    tagset: Tagset | None = None,
) -> float | None:
    """N-measure on the number of phenomena: ``agr_ph = min(n_X, n_Y)/max(n_X, n_Y)``.

    Plain: over the whole document. ``typewise`` (agr^t): mean over the types of either annotator
    of the per-type value. ``pairwise`` (agr^p): mean over pairs that either annotator annotated.
    Both: per pair the mean over its types, then the mean over pairs. Range [0, 1]; ``None`` if
    neither annotator has a phenomenon. Vila et al. (2015) §4.1; docs/measures.md#n, #variants.

    Example (Vila Fig. 3, pair 1: B has 6 phenomena, C has 8):

    >>> B = [Phenomenon("p1", "SA", frozenset({i}), frozenset({i})) for i in range(6)]
    >>> C = [Phenomenon("p1", "SA", frozenset({i}), frozenset({i})) for i in range(8)]
    >>> agr_ph(B, C)
    0.75
    """
    tables, _ = _tables_of(a, b, tagset)
    return aggregate(tables).values["n.ph" + _variant(typewise, pairwise)]


def agr_w(
    a: Sequence[Phenomenon],
    b: Sequence[Phenomenon],
    *,
    typewise: bool = False,
    pairwise: bool = False,
    tagset: Tagset | None = None,
) -> float | None:
    """N-measure on scope words: ``agr_w = min(w_X, w_Y)/max(w_X, w_Y)``.

    ``w`` = distinct token positions ``(pair, member, index)`` covered by the scopes (an overlap of
    one annotator's scopes counts once; keys are not counted). Variants as for :func:`agr_ph`.
    Range [0, 1]; ``None`` if neither annotator has a phenomenon. Vila et al. (2015) §4.1;
    docs/measures.md#n.

    Example (Vila Fig. 3: for SYNTHETIC/ANALYTIC B covers 6+2 tokens and C 3+2):

    >>> B = [Phenomenon("p1", "SYNTHETIC/ANALYTIC", frozenset(range(6)), frozenset({0, 1}))]
    >>> C = [Phenomenon("p1", "SYNTHETIC/ANALYTIC", frozenset({1, 2, 3}), frozenset({0, 1}))]
    >>> agr_w(B, C)
    0.625
    """
    tables, _ = _tables_of(a, b, tagset)
    return aggregate(tables).values["n.w" + _variant(typewise, pairwise)]


def tpo_scores(
    a: Sequence[Phenomenon], b: Sequence[Phenomenon], *, criterion: Criterion = "partial"
) -> TPOScores:
    """TPO-measures of X = ``a`` against Y = ``b`` (HOO counting, Y as gold for ``F1^X``).

    ``count(X→Y)`` = X phenomena overlapping (``criterion`` "partial" or "total") a same-pair,
    same-type Y phenomenon; ``F1^X = 2·count(X→Y)/(|X|+|Y|)`` (``None`` iff ``|X|+|Y| = 0``; may exceed
    1); ``agr_o = (count(X→Y)+count(Y→X))/(|X|+|Y|)`` in [0, 1]; ``f1_alt = HM(count(X→Y)/|X|,
    count(Y→X)/|Y|)`` (0 if exactly one side is empty). Vila et al. (2015) §4.2; docs/measures.md#tpo.

    Example (Vila Fig. 3, pair 1: 5 of B's 6 and 5 of C's 8 phenomena overlap partially, so
    ``agr_o = 10/14 = 0.714``):

    >>> B = [Phenomenon("p1", "SA", frozenset({i}), frozenset({i})) for i in range(6)]
    >>> C = B[:5] + [Phenomenon("p1", "SA", frozenset({9 + i}), frozenset()) for i in range(3)]
    >>> s = tpo_scores(B, C)
    >>> s.count_xy, s.count_yx, round(s.agr_o, 3)
    (5, 5, 0.714)
    """
    if criterion not in ("partial", "total"):
        raise ValueError(f'criterion must be "partial" or "total", got {criterion!r}')
    tables, _ = _tables_of(a, b, None)
    tot = tables.cells.sum(axis=(0, 1))
    fxy, fyx = (_P_XY, _P_YX) if criterion == "partial" else (_T_XY, _T_YX)
    return tpo_from_counts(float(tot[fxy]), float(tot[fyx]), float(tot[_N_X]), float(tot[_N_Y]))


def agr_o(
    a: Sequence[Phenomenon], b: Sequence[Phenomenon], *, criterion: Criterion = "partial"
) -> float | None:
    """TPO agreement ``agr_o = (F1^X + F1^Y)/2``; see :func:`tpo_scores` (Vila Fig. 3: 10/14)."""
    return tpo_scores(a, b, criterion=criterion).agr_o


def do_k(
    a: Sequence[Phenomenon], b: Sequence[Phenomenon], *, tagset: Tagset | None = None
) -> tuple[float | None, float | None]:
    """DO coverage scores ``(K(X→Y), K(Y→X))`` with ``K(X→Y) = (1/|X|)·Σ_x max_y overlapping(x, y)``.

    Range [0, 1]; ``None`` for an empty X. ``tagset`` defines the types (default: those of ``a`` and
    ``b``); ``a`` of :func:`overlapping` follows each phenomenon's scopes. Vila et al. (2015) §4.3
    (K_B, K_C); docs/measures.md#do (spec §4).

    Example (docs/measures.md#do, spec §4's two worked overlaps: SYNTHETIC/ANALYTIC 0.75 and 1, ADDITION/DELETION 0.5
    and 1):

    >>> def sa(s1, s2): return Phenomenon("p1", "S/A", frozenset(s1), frozenset(s2), "local")
    >>> def ad(s1): return Phenomenon("p1", "A/D", frozenset(s1), frozenset())
    >>> do_k([sa(range(6), {0, 1}), ad({3, 4})], [sa({1, 2, 3}, {0, 1}), ad({4})])
    (0.625, 1.0)
    """
    tables, _ = _tables_of(a, b, tagset)
    return aggregate(tables).directional["do.k"]


def do_f1(
    a: Sequence[Phenomenon],
    b: Sequence[Phenomenon],
    *,
    typewise: bool = False,
    pairwise: bool = False,
    tagset: Tagset | None = None,
) -> float | None:
    """DO-measure ``F1(X, Y) = HM(K(X→Y), K(Y→X))`` (the paper's headline measure).

    ``None`` if both are empty, 0 if exactly one is. Variants as for :func:`agr_ph` (restrict X and
    Y to the unit, compute F1, average). ``tagset`` defines the types (default: those of ``a``, ``b``).
    Range [0, 1]. Vila et al. (2015) §4.3; docs/measures.md#do (spec §4).

    Vila Fig. 3 (the reconstruction of pair 1 in the spec's cases) gives K_B = 0.736, K_C = 0.625
    and F1 = 0.676 (tests/metrics/test_cases.py). With the two overlaps of :func:`do_k`'s example,
    ``F1 = HM(0.625, 1) = 0.769``:

    >>> def sa(s1, s2): return Phenomenon("p1", "S/A", frozenset(s1), frozenset(s2), "local")
    >>> def ad(s1): return Phenomenon("p1", "A/D", frozenset(s1), frozenset())
    >>> round(do_f1([sa(range(6), {0, 1}), ad({3, 4})], [sa({1, 2, 3}, {0, 1}), ad({4})]), 3)
    0.769
    """
    tables, _ = _tables_of(a, b, tagset)
    return aggregate(tables).values["do.f1" + _variant(typewise, pairwise)]


def by_type(
    a: Sequence[Phenomenon],
    b: Sequence[Phenomenon],
    *,
    measure: Literal["ph", "w", "do"] = "do",
    tagset: Tagset | None = None,
) -> dict[str, float | None]:
    """Per-type ``agr_ph``, ``agr_w`` or DO ``F1`` for the types of either annotator
    (docs/measures.md#variants)."""
    key = {"ph": "n.ph", "w": "n.w", "do": "do.f1"}.get(measure)
    if key is None:
        raise ValueError(f'measure must be "ph", "w" or "do", got {measure!r}')
    tables, _ = _tables_of(a, b, tagset)
    return aggregate(tables).by_type[key]
