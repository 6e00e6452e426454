"""Phrase-pair extraction from word alignments; atomic and composite pairs
(docs/measures.md#phrase-extraction; spec §5.2).

A phrase pair ``([i1, i2], [j1, j2])`` (contiguous, inclusive) is *extracted* from a link set L on an
N×M pair iff (1) every link with its source in ``[i1, i2]`` has its target in ``[j1, j2]`` and vice
versa, with at least one link inside, and (2) the boundary words ``i1, i2, j1, j2`` are each linked.
Hence the target span of a source span is forced to ``[min, max]`` of its words' targets, and an
extracted pair is identified by its source span.

A pair is *composite* iff every link inside it lies inside some strictly smaller extracted pair
contained in it, otherwise *atomic* (Cohn, Callison-Burch & Lapata 2008, CL 34(4), §4.2).

Why atomic pairs are cheap here: extracted pairs that share a source word are closed under
intersection (the intersection of two consistent, boundary-linked spans is again one), so every
linked source word ``r`` lies in a unique *smallest* extracted pair ``m(r)``. A link ``(r, j)`` lies
in an extracted pair iff ``r`` does, so a pair ``p`` is atomic iff ``p = m(r)`` for some linked
``r`` in it: **the atomic pairs are exactly ``{m(r)}``**, at most one per linked source word.
``m(r)`` is the fixpoint of "targets of the source span, then sources of the target span" started
from ``[r, r]``; it is computed for many sampled link sets at once with range-min/max queries
(sparse tables), which is what the κ_C Monte Carlo needs (``metrics.chance``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = [
    "PhrasePair",
    "extract_phrase_pairs",
    "atomic_phrase_pairs",
    "split_phrase_pairs",
    "is_extracted",
    "link_bounds",
    "atomic_spans",
    "is_identical_phrase_pair",
    "identical_tokens",
    "diagonal_runs",
    "validate_links",
    "IDENTICAL_MATCHES",
]

Link = tuple[int, int]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]

IDENTICAL_MATCHES = ("exact", "casefold")


class PhrasePair(NamedTuple):
    """A phrase pair: source span ``[i1, i2]`` and target span ``[j1, j2]``, both inclusive."""

    i1: int
    i2: int
    j1: int
    j2: int


# --------------------------------------------------------------------------- validation


def validate_links(links: Iterable[Link], n: int, m: int, *, where: str = "links") -> frozenset[Link]:
    """Check that ``links`` are ``(i, j)`` integer pairs with ``0 ≤ i < n``, ``0 ≤ j < m``.

    Returns the links as a frozenset; raises ``ValueError`` naming ``where`` and the bad link.
    """
    for name, size in (("n", n), ("m", m)):
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"{where}: {name} must be a non-negative integer, got {size!r}")
    if type(links) is frozenset and all(_plain_link(link, n, m) for link in links):
        return links  # the common case (a Pair's or an alignment's links), checked without conversion
    out = set()
    for link in links:
        try:
            i, j = link
        except (TypeError, ValueError):
            raise ValueError(f"{where}: a link must be a pair (i, j), got {link!r}") from None
        for k, (x, size, member) in enumerate(((i, n, "tokens1"), (j, m, "tokens2"))):
            if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
                raise ValueError(f"{where}: link {link!r}: index {k} must be an integer, got {x!r}")
            if not 0 <= x < size:
                raise ValueError(
                    f"{where}: link {link!r}: index {x} out of range for {member} of length {size}"
                )
        out.add((int(i), int(j)))
    return frozenset(out)


def _plain_link(link: object, n: int, m: int) -> bool:
    """Whether ``link`` is a tuple of two plain ints (not bools) with ``0 ≤ i < n``, ``0 ≤ j < m``."""
    return (
        type(link) is tuple
        and len(link) == 2
        and type(link[0]) is int
        and type(link[1]) is int
        and 0 <= link[0] < n
        and 0 <= link[1] < m
    )


def _validate_match(identical_match: str) -> None:
    if identical_match not in IDENTICAL_MATCHES:
        raise ValueError(f'identical_match must be "exact" or "casefold", got {identical_match!r}')


# --------------------------------------------------------------------------- identity


def identical_tokens(
    tokens1: Sequence[str], tokens2: Sequence[str], *, identical_match: str = "exact"
) -> BoolArray:
    """``eq[i, j]`` is True iff ``tokens1[i]`` equals ``tokens2[j]`` (exactly, or after casefold)."""
    _validate_match(identical_match)
    if identical_match == "casefold":
        tokens1 = [t.casefold() for t in tokens1]
        tokens2 = [t.casefold() for t in tokens2]
    eq = np.zeros((len(tokens1), len(tokens2)), dtype=bool)
    where2: dict[str, list[int]] = {}
    for j, t in enumerate(tokens2):
        where2.setdefault(t, []).append(j)
    for i, t in enumerate(tokens1):
        eq[i, where2.get(t, [])] = True
    return eq


def diagonal_runs(eq: BoolArray) -> IntArray:
    """``run[i, j]`` = number of consecutive equal tokens on the diagonal starting at ``(i, j)``."""
    n, m = eq.shape
    run = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n - 1, -1, -1):
        run[i, :m] = np.where(eq[i], run[i + 1, 1:] + 1, 0)
    return run


def is_identical_phrase_pair(
    pair: PhrasePair, tokens1: Sequence[str], tokens2: Sequence[str], *, identical_match: str = "exact"
) -> bool:
    """True iff the two token sequences of ``pair`` are equal element by element
    (docs/measures.md#word-alignment)."""
    _validate_match(identical_match)
    a = tokens1[pair.i1 : pair.i2 + 1]
    b = tokens2[pair.j1 : pair.j2 + 1]
    if len(a) != len(b):
        return False
    if identical_match == "casefold":
        return all(x.casefold() == y.casefold() for x, y in zip(a, b, strict=True))
    return list(a) == list(b)


# --------------------------------------------------------------------------- bounds of rows/columns


def _link_matrix(links: frozenset[Link], n: int, m: int) -> BoolArray:
    x = np.zeros((n, m), dtype=bool)
    if links:
        idx = np.array(sorted(links), dtype=np.int64)
        x[idx[:, 0], idx[:, 1]] = True
    return x


def _bounds(x: BoolArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Per source row min/max target (``m``/``-1`` if unlinked) and per column min/max source.

    ``x`` has shape ``(..., N, M)``; the result arrays have shape ``(..., N)`` and ``(..., M)``.
    Works on the flat indices of the links (sorted by row, then column), which is much cheaper
    than dense reductions when links are sparse.
    """
    *batch, n, m = x.shape
    sets = int(np.prod(batch, dtype=np.int64))
    rmin = np.full(sets * n, m, dtype=np.int64)
    rmax = np.full(sets * n, -1, dtype=np.int64)
    cmin = np.full(sets * m, n, dtype=np.int64)
    cmax = np.full(sets * m, -1, dtype=np.int64)
    ids = np.flatnonzero(x)
    if len(ids):
        row = ids // m  # s·N + i, non-decreasing
        j = ids - row * m
        first = np.empty(len(ids), dtype=bool)
        first[0] = True
        np.not_equal(row[1:], row[:-1], out=first[1:])
        last = np.empty(len(ids), dtype=bool)
        last[-1] = True
        last[:-1] = first[1:]
        rmin[row[first]] = j[first]
        rmax[row[last]] = j[last]
        s = row // n
        col = s * m + j
        np.minimum.at(cmin, col, row - s * n)
        np.maximum.at(cmax, col, row - s * n)
    shape_r, shape_c = (*batch, n), (*batch, m)
    return rmin.reshape(shape_r), rmax.reshape(shape_r), cmin.reshape(shape_c), cmax.reshape(shape_c)


def _span_table(values: IntArray, fill: int, accumulate: np.ufunc) -> IntArray:
    """``t[a, b] = reduce(values[a..b])`` for ``a ≤ b`` (``fill`` below the diagonal)."""
    k = values.shape[-1]
    upper = np.triu(np.ones((k, k), dtype=bool))
    return accumulate.accumulate(np.where(upper, values[..., None, :], fill), axis=-1)


# --------------------------------------------------------------------------- extraction


def _extracted_mask(x: BoolArray) -> tuple[BoolArray, IntArray, IntArray]:
    """``E[i1, i2]`` (extracted source spans) and the forced target span tables of one link matrix."""
    n, m = x.shape
    rmin, rmax, cmin, cmax = _bounds(x)
    t_min = _span_table(rmin, m, np.minimum)
    t_max = _span_table(rmax, -1, np.maximum)
    c_min = _span_table(cmin, n, np.minimum)
    c_max = _span_table(cmax, -1, np.maximum)
    row_has = rmax >= 0
    ok = np.triu(np.ones((n, n), dtype=bool)) & row_has[:, None] & row_has[None, :]
    j1 = np.where(ok, t_min, 0)
    j2 = np.where(ok, t_max, 0)
    i1 = np.arange(n)[:, None]
    i2 = np.arange(n)[None, :]
    ok &= (c_min[j1, j2] >= i1) & (c_max[j1, j2] <= i2)
    return ok, j1, j2


def extract_phrase_pairs(links: Iterable[Link], n: int, m: int) -> set[PhrasePair]:
    """All phrase pairs extracted from a word alignment (Cohn et al. 2008, §4.2;
    docs/measures.md#phrase-extraction).

    ``([i1, i2], [j1, j2])`` is extracted iff every link with its source in ``[i1, i2]`` has its
    target in ``[j1, j2]`` and vice versa, at least one link lies inside, and each boundary word
    ``i1, i2, j1, j2`` is linked. No length limit. Identical pairs are *not* removed here.

    Parameters
    ----------
    links : iterable of (i, j)
        Links, ``i`` a token index of member 1 (length ``n``), ``j`` of member 2 (length ``m``).
    n, m : int
        Member lengths.

    Returns
    -------
    set of PhrasePair
        Empty for an empty alignment. At most ``n(n+1)/2`` pairs (one per source span); the cost is
        ``O(n² + m²)`` array operations.

    Examples
    --------
    "and reached an agreement" / "and arrived at a deal" with "an" unaligned (Cohn et al.):

    >>> links = {(0, 0), (1, 1), (1, 2), (3, 4)}
    >>> PhrasePair(0, 1, 0, 2) in extract_phrase_pairs(links, 4, 5)   # and reached ↔ and arrived at
    True
    >>> PhrasePair(0, 2, 0, 2) in extract_phrase_pairs(links, 4, 5)   # boundary "an" is unlinked
    False
    """
    links = validate_links(links, n, m)
    if not links:
        return set()
    ok, j1, j2 = _extracted_mask(_link_matrix(links, n, m))
    i1, i2 = np.nonzero(ok)
    return set(map(PhrasePair, i1.tolist(), i2.tolist(), j1[i1, i2].tolist(), j2[i1, i2].tolist()))


def atomic_phrase_pairs(links: Iterable[Link], n: int, m: int) -> set[PhrasePair]:
    """The atomic extracted phrase pairs of a word alignment (Cohn et al. 2008;
    docs/measures.md#phrase-extraction).

    An extracted pair is composite iff every link inside it lies inside some strictly smaller
    extracted pair contained in it; otherwise it is atomic. Equivalently (see the module docstring)
    the atomic pairs are the smallest extracted pairs ``m(r)`` around each linked source word ``r``,
    so there are at most ``n`` of them. Identical pairs are *not* removed here (atomicity is decided
    on the full extraction; filter afterwards with :func:`is_identical_phrase_pair`).

    **Alt** (not used): "atomic = contains no smaller extracted pair". It differs for gapped blocks:
    with links a–A, a–C, c–A around b–B, ``abc ↔ ABC`` is atomic here (links a–A, a–C, c–A lie in
    no smaller pair) but composite under the Alt.

    Examples
    --------
    >>> [tuple(p) for p in sorted(atomic_phrase_pairs({(0, 0), (1, 1), (1, 2), (3, 4)}, 4, 5))]
    [(0, 0, 0, 0), (1, 1, 1, 2), (3, 3, 4, 4)]
    >>> sorted(atomic_phrase_pairs({(0, 0), (0, 2), (2, 0), (1, 1)}, 3, 3))   # gapped block
    [PhrasePair(i1=0, i2=2, j1=0, j2=2), PhrasePair(i1=1, i2=1, j1=1, j2=1)]
    """
    links = validate_links(links, n, m)
    if not links:
        return set()
    lo, hi, j1, j2 = atomic_spans(_link_matrix(links, n, m)[None])
    rows = lo[0] >= 0
    return set(
        map(
            PhrasePair, lo[0, rows].tolist(), hi[0, rows].tolist(), j1[0, rows].tolist(), j2[0, rows].tolist()
        )
    )


def split_phrase_pairs(links: Iterable[Link], n: int, m: int) -> tuple[set[PhrasePair], set[PhrasePair]]:
    """``(atomic, composite)``: the extracted phrase pairs of ``links`` split as in
    docs/measures.md#phrase-extraction."""
    every = extract_phrase_pairs(links, n, m)
    atomic = atomic_phrase_pairs(links, n, m)
    return atomic, every - atomic


def is_extracted(
    pair: PhrasePair, bounds: tuple[Sequence[int], Sequence[int], Sequence[int], Sequence[int]]
) -> bool:
    """True iff ``pair`` is extracted from the link set whose row/column bounds are ``bounds``.

    ``bounds = (rmin, rmax, cmin, cmax)``: per source word the min/max linked target (``m``/``-1``
    when unlinked) and per target word the min/max linked source (``n``/``-1``); see
    :func:`link_bounds`. Costs ``O(i2 - i1 + j2 - j1)``.
    """
    rmin, rmax, cmin, cmax = bounds
    i1, i2, j1, j2 = pair
    if rmax[i1] < 0 or rmax[i2] < 0:
        return False
    if min(rmin[i1 : i2 + 1]) != j1 or max(rmax[i1 : i2 + 1]) != j2:
        return False
    return min(cmin[j1 : j2 + 1]) >= i1 and max(cmax[j1 : j2 + 1]) <= i2


def link_bounds(links: Iterable[Link], n: int, m: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """Row/column bounds ``(rmin, rmax, cmin, cmax)`` of a link set, for :func:`is_extracted`."""
    rmin, rmax, cmin, cmax = [m] * n, [-1] * n, [n] * m, [-1] * m
    for i, j in links:
        rmin[i] = min(rmin[i], j)
        rmax[i] = max(rmax[i], j)
        cmin[j] = min(cmin[j], i)
        cmax[j] = max(cmax[j], i)
    return rmin, rmax, cmin, cmax


# --------------------------------------------------------------------------- batched atomic spans


_LOG2 = np.zeros(0, dtype=np.int64)


def _log2_table(length: int) -> IntArray:
    """``floor(log2(len))`` indexed by ``len - 1`` for every span length up to ``length``."""
    global _LOG2
    if len(_LOG2) < length:
        size = max(length, 256)
        _LOG2 = np.array([(x + 1).bit_length() - 1 for x in range(size)], dtype=np.int64)
    return _LOG2


class _RangeTable:
    """Sparse table answering ``op(values[s, lo..hi])`` in O(1) for many queries at once.

    Levels (spans of length ``2**k``) are filled on demand: most queries cover one or two words.
    """

    def __init__(self, values: IntArray, op: np.ufunc) -> None:
        sets, length = values.shape
        self.table = np.empty((max(1, length.bit_length()), sets, length), dtype=np.int32)
        self.table[0] = values
        self.flat = self.table.reshape(-1)
        self.built = 1
        self.op = op
        self.level_size = sets * length
        self.log2 = _log2_table(length)

    def _build(self, levels: int) -> None:
        t, length = self.table, self.table.shape[2]
        for k in range(self.built, levels):  # t[k, s, i] = op(values[s, i .. i + 2**k - 1]) in range
            h = 1 << (k - 1)
            self.op(t[k - 1, :, : length - h], t[k - 1, :, h:], out=t[k, :, : length - h])
            t[k, :, length - h :] = t[k - 1, :, length - h :]  # never queried; keeps t defined
        self.built = max(self.built, levels)

    def query(self, row_start: IntArray, lo: IntArray, hi: IntArray) -> IntArray:
        """``row_start = s * length`` for each query; ``lo ≤ hi`` inclusive bounds."""
        k = self.log2.take(hi - lo)
        if len(k):
            self._build(int(k.max()) + 1)
        at = row_start + k * self.level_size
        result: IntArray = self.op(self.flat.take(at + lo), self.flat.take(at + hi + 1 - (1 << k)))
        return result


def atomic_spans(x: BoolArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Smallest extracted pair around every linked source word, for a batch of link matrices.

    ``x`` has shape ``(J, N, M)``. Returns ``(lo, hi, j1, j2)``, each ``(J, N)``: for link set ``s``
    and source word ``r``, ``m(r) = ([lo, hi], [j1, j2])``; ``lo = hi = j1 = j2 = -1`` where ``r`` is
    unlinked. The set of distinct ``m(r)`` is the set of atomic phrase pairs.
    """
    n_sets, n, m = x.shape
    out = np.full((4, n_sets * n), -1, dtype=np.int64)
    if n == 0 or m == 0:
        return (
            out[0].reshape(n_sets, n),
            out[1].reshape(n_sets, n),
            out[2].reshape(n_sets, n),
            out[3].reshape(n_sets, n),
        )
    rmin, rmax, cmin, cmax = _bounds(x)
    t_rmin, t_rmax = _RangeTable(rmin, np.minimum), _RangeTable(rmax, np.maximum)
    t_cmin, t_cmax = _RangeTable(cmin, np.minimum), _RangeTable(cmax, np.maximum)
    seed = np.flatnonzero(rmax >= 0)  # s·N + r of every linked source word
    s = seed // n
    lo = seed - s * n
    row_start, col_start = s * n, s * m
    # first round from [r, r] read directly: targets [rmin, rmax] of r, then their sources
    j1, j2 = rmin.reshape(-1)[seed], rmax.reshape(-1)[seed]
    # most words have one link whose target has no other link: m(r) = (r, r, j, j) at once
    one = j1 == j2
    one[one] = (cmin.reshape(-1)[col_start[one] + j1[one]] == lo[one]) & (
        cmax.reshape(-1)[col_start[one] + j1[one]] == lo[one]
    )
    out[:, seed[one]] = np.stack((lo, lo, j1, j2))[:, one]
    more = ~one
    seed, lo, j1, j2 = seed[more], lo[more], j1[more], j2[more]
    row_start, col_start = row_start[more], col_start[more]
    lo2 = t_cmin.query(col_start, j1, j2)
    hi2 = t_cmax.query(col_start, j1, j2)
    hi = lo
    while True:
        moved = (lo2 != lo) | (hi2 != hi)
        done = ~moved
        out[:, seed[done]] = np.stack((lo, hi, j1, j2))[:, done]
        seed, lo, hi = seed[moved], lo2[moved], hi2[moved]
        if not len(seed):
            break
        row_start, col_start = row_start[moved], col_start[moved]
        # the fixpoint: targets of the source span, then sources of the target span
        j1 = t_rmin.query(row_start, lo, hi)
        j2 = t_rmax.query(row_start, lo, hi)
        lo2 = t_cmin.query(col_start, j1, j2)
        hi2 = t_cmax.query(col_start, j1, j2)
    spans = out.reshape(4, n_sets, n)
    return spans[0], spans[1], spans[2], spans[3]
