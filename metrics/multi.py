"""Multi-annotator TPO agreement: TPO (avg), TPO (union), TPO (gold) (Kovatchev et al., ETPC;
docs/measures.md#tpo-multi, spec §3).

Like :mod:`metrics.iapta`, the measures are aggregates of integer statistics per pair (summed over
the pair's (pair, type) cells), so a changed pair only needs its own row recomputed
(:mod:`metrics.phenomena`). All three measures are ``None`` with fewer than three annotators.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from metrics.iapta import (
    Criterion,
    PhenomenaIndex,
    _Cell,
    _check_phenomena,
    harmonic_mean,
    index_phenomena,
    tpo_scores,
)
from metrics.types import Phenomenon, Tagset, TypeDef

__all__ = ["MultiTPO", "MultiTables", "multi_row", "multi_tables", "aggregate_multi", "tpo_multi"]

_CRITERIA: tuple[Criterion, ...] = ("partial", "total")


@dataclass(frozen=True, slots=True)
class MultiTPO:
    """TPO (avg), TPO (union) and TPO (gold) for one criterion; ``by_annotator`` gives gold F1_r."""

    avg: float | None
    union: float | None
    gold: float | None
    by_annotator: dict[str, float | None]


def _row_width(k: int) -> int:
    # per annotator: n_r; then |G|; then per criterion: matched_r, count(R_r→G), count(G→R_r)
    return k + 1 + 3 * k * len(_CRITERIA)


def multi_row(cells: Sequence[Mapping[int, _Cell] | None]) -> list[int]:
    """Integer statistics of one pair for annotators R_1..R_k (``cells[r]`` = R_r's cells of the pair).

    Layout: ``n_r`` (k), ``|G|`` (1), then for "partial" and "total": ``matched_r`` (k),
    ``count(R_r→G)`` (k), ``count(G→R_r)`` (k).
    """
    k = len(cells)
    row = [0] * _row_width(k)
    partial, total = k + 1, k + 1 + 3 * k
    types = {t for c in cells if c for t in c}  # integer counts: order does not matter
    for t in types:
        recs = [c[t].recs if c and t in c else () for c in cells]
        present = [r for r in range(k) if recs[r]]
        for r in present:
            row[r] += len(recs[r])
        if len(present) < 2:  # nothing can match and the gold set is empty
            continue
        owners: dict[tuple[int, int], set[int]] = {}
        for r in present:
            for x in recs[r]:
                owners.setdefault((x[0], x[1]), set()).add(r)
        gold = [g for g, who in owners.items() if len(who) >= 2]
        row[k] += len(gold)
        for r in present:
            others = [y for s in present if s != r for y in recs[s]]
            matched, in_gold, to_gold = _towards(recs[r], others, owners, gold)
            from_gold, owned = _from_gold(r, recs[r], owners, gold)
            row[partial + r] += matched
            row[partial + k + r] += to_gold
            row[partial + 2 * k + r] += from_gold
            row[total + r] += in_gold
            row[total + k + r] += in_gold
            row[total + 2 * k + r] += owned
    return row


def _overlaps(x: Sequence[int], y: Sequence[int]) -> bool:
    return bool(x[0] & y[0] or x[1] & y[1])


def _towards(
    mine: Sequence[Any],
    others: Sequence[Any],
    owners: Mapping[tuple[int, int], set[int]],
    gold: Sequence[Any],
) -> tuple[int, int, int]:
    """(R_r's phenomena partially matching another annotator's, those whose scopes are in G — a total
    match: ≥ 2 owners —, those partially matching a gold phenomenon)."""
    matched = in_gold = to_gold = 0
    for x in mine:
        matched += any(_overlaps(x, y) for y in others)
        in_gold += len(owners[x[0], x[1]]) >= 2
        to_gold += any(_overlaps(x, g) for g in gold)
    return matched, in_gold, to_gold


def _from_gold(
    r: int, mine: Sequence[Any], owners: Mapping[tuple[int, int], set[int]], gold: Sequence[Any]
) -> tuple[int, int]:
    """(gold phenomena partially matched by one of R_r's, gold phenomena R_r owns)."""
    from_gold = owned = 0
    for g in gold:
        owned += r in owners[g]
        from_gold += any(_overlaps(g, x) for x in mine)
    return from_gold, owned


def _hit(x1: int, x2: int, y1: int, y2: int, crit: Criterion) -> bool:
    if crit == "partial":
        return bool(x1 & y1 or x2 & y2)
    return x1 == y1 and x2 == y2


@dataclass(slots=True)
class MultiTables:
    """Per-pair multi-annotator statistics ``rows[p, :]`` (layout of :func:`multi_row`)."""

    annotators: tuple[str, ...]
    pairs: tuple[str, ...]
    rows: npt.NDArray[np.int64]


def multi_tables(
    indexes: Sequence[PhenomenaIndex], *, annotators: Sequence[str], pairs: Sequence[str]
) -> MultiTables:
    """Build :class:`MultiTables` from each annotator's :func:`metrics.iapta.index_phenomena`."""
    rows = np.zeros((len(pairs), _row_width(len(indexes))), dtype=np.int64)
    for p, pid in enumerate(pairs):
        cells = [ix.get(pid) for ix in indexes]
        if any(cells):
            rows[p] = multi_row(cells)
    return MultiTables(tuple(annotators), tuple(pairs), rows)


def aggregate_multi(
    tables: MultiTables,
) -> dict[str, tuple[float | None, float | None, dict[str, float | None]]]:
    """Per criterion ``(union, gold, gold F1 by annotator)`` from :class:`MultiTables` (docs/measures.md#tpo-multi).

    ``union = Σ_r matched_r / Σ_r |R_r|``; ``F1_r = HM(count(R_r→G)/|R_r|, count(G→R_r)/|G|)``, 0 if
    exactly one of ``R_r``, ``G`` is empty, ``None`` if both; gold = mean of the defined F1_r.
    """
    k = len(tables.annotators)
    tot = tables.rows.sum(axis=0)
    n = [int(v) for v in tot[:k]]
    g = int(tot[k])
    out: dict[str, tuple[float | None, float | None, dict[str, float | None]]] = {}
    for ci, crit in enumerate(_CRITERIA):
        base = k + 1 + 3 * k * ci
        matched = int(tot[base : base + k].sum())
        union = matched / sum(n) if sum(n) else None
        by_annotator: dict[str, float | None] = {}
        for r, name in enumerate(tables.annotators):
            if n[r] and g:
                by_annotator[name] = harmonic_mean(
                    int(tot[base + k + r]) / n[r], int(tot[base + 2 * k + r]) / g
                )
            else:
                by_annotator[name] = 0.0 if n[r] or g else None
        defined = [v for v in by_annotator.values() if v is not None]
        gold = sum(defined) / len(defined) if defined else None
        out[crit] = (union, gold, by_annotator)
    return out


def tpo_multi(
    phenomena: Mapping[str, Sequence[Phenomenon]],
    *,
    criterion: Criterion = "partial",
    tagset: Tagset | None = None,
) -> MultiTPO:
    """TPO (avg / union / gold) of k ≥ 3 annotators (ETPC, Kovatchev et al.; docs/measures.md#tpo-multi).

    avg = mean over annotator pairs of ``agr_o``; union = share of all phenomena that at least one
    *other* annotator annotated the same way under ``criterion``; gold: ``G`` = distinct
    ``(pair, type, s1, s2)`` annotated identically by ≥ 2 annotators (always exact identity) and
    ``F1_r = HM(count(R_r→G)/|R_r|, count(G→R_r)/|G|)`` under ``criterion``; gold = mean of F1_r.
    Ranges [0, 1]. With fewer than three annotators all three are ``None`` (``by_annotator`` empty).

    Example: three annotators marking the same phenomenon agree fully; when R_3 marks nothing, the
    gold set still holds it (two owners), R_3's F1 is 0 and two of the three annotator pairs score 0:

    >>> x = Phenomenon("p1", "SA", frozenset({1}), frozenset({1}))
    >>> tpo_multi({"R1": [x], "R2": [x], "R3": [x]})
    MultiTPO(avg=1.0, union=1.0, gold=1.0, by_annotator={'R1': 1.0, 'R2': 1.0, 'R3': 1.0})
    >>> m = tpo_multi({"R1": [x], "R2": [x], "R3": []})
    >>> round(m.avg, 4), m.union, round(m.gold, 4), m.by_annotator["R3"]
    (0.3333, 1.0, 0.6667, 0.0)
    """
    if criterion not in _CRITERIA:
        raise ValueError(f'criterion must be "partial" or "total", got {criterion!r}')
    names = list(phenomena)
    for name in names:
        _check_phenomena(phenomena[name], f"phenomena[{name!r}]")
    if len(names) < 3:
        return MultiTPO(None, None, None, {})
    if tagset is None:
        tagset = Tagset(
            tuple(TypeDef(t) for t in dict.fromkeys(x.type for xs in phenomena.values() for x in xs))
        )
    type_index = {t.name: i for i, t in enumerate(tagset.types)}
    indexes = [index_phenomena(phenomena[a], type_index) for a in names]
    pairs = tuple(dict.fromkeys(x.pair for xs in phenomena.values() for x in xs))
    union, gold, by_annotator = aggregate_multi(multi_tables(indexes, annotators=names, pairs=pairs))[
        criterion
    ]
    pairwise = [
        tpo_scores(phenomena[names[i]], phenomena[names[j]], criterion=criterion).agr_o
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]
    defined = [v for v in pairwise if v is not None]
    avg = sum(defined) / len(defined) if defined else None
    return MultiTPO(avg, union, gold, by_annotator)
