"""SPADE's human benchmark as sums over pairs: what one pair adds, and ALIR / ALIP from the totals.

A phrase alignment is the triple ``(pair, s1, s2)``, so the sets ALIR and ALIP intersect
(docs/measures.md#spade) are unions over the pairs of disjoint per-pair sets, and every size they
take is a sum over the pairs. With ``|H ∩ (G ∪ G')| = |H ∩ G| + |H ∩ G'| − |H ∩ G ∩ G'|`` three kinds of
cells suffice (``(measure, annotators, key) → value``, the key always ``""``, annotators sorted and
joined by ``|``):

- ``spade.size`` (``h``): ``|H|`` — an annotator takes part when it is not 0;
- ``spade.shared`` (``g|g'``): ``|G ∩ G'|``;
- ``spade.shared3`` (``a|b|c``): ``|A ∩ B ∩ C|``.

:func:`pair_part` gives one pair's cells (zero cells left out; an annotator without an alignment of
the pair adds nothing); summed over a document's pairs, :func:`report_from_sums` gives the report's
``spade.alir`` and ``spade.alip``, equal to those of :func:`metrics.spade.spade_report` of the whole
document (bit for bit: the same ratios of the same integers, averaged in the same order). A pair
aligned by k annotators has at most k + C(k, 2) + C(k, 3) cells. Registered systems are not summed
here (their scores come with the machine's, from the whole document).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from metrics.alignment import mean_defined

__all__ = ["MEASURES", "SIZE", "pair_part", "report_from_sums", "joined"]

Cell = tuple[str, str, str]  # measure, annotators, key

SIZE = "spade.size"
SHARED = "spade.shared"
SHARED3 = "spade.shared3"
#: Every measure of the cells.
MEASURES = (SIZE, SHARED, SHARED3)


def joined(*names: str) -> str:
    """The cell name of a set of annotators: their names sorted, joined by ``|``."""
    return "|".join(sorted(names))


def pair_part(humans: Mapping[str, Iterable[Any]]) -> dict[Cell, int]:
    """One pair's cells (module doc) from that pair's phrase alignments by annotator; annotators
    without an alignment of the pair may be left out.

    Example — A and B share one of the pair's alignments, C has another:

    >>> part = pair_part({"A": {1, 2}, "B": {1}, "C": {3}})
    >>> part[("spade.size", "A", "")], part[("spade.shared", "A|B", "")]
    (2, 1)
    >>> ("spade.shared", "A|C", "") in part  # zero cells are left out
    False
    """
    sets = {name: frozenset(x) for name, x in humans.items() if x}
    cells: dict[Cell, int] = {(SIZE, name, ""): len(x) for name, x in sets.items()}
    for a, b in combinations(sorted(sets), 2):
        shared = sets[a] & sets[b]
        if not shared:
            continue
        cells[(SHARED, joined(a, b), "")] = len(shared)
        for c in sorted(sets):
            if c > b and (n := len(shared & sets[c])):
                cells[(SHARED3, joined(a, b, c), "")] = n
    return cells


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def report_from_sums(annotators: Sequence[str], totals: Mapping[Cell, int]) -> dict[str, dict[str, Any]]:
    """``spade.alir`` and ``spade.alip`` of :func:`metrics.spade.spade_report` from the cells summed over
    the pairs; ``annotators``: the phrase section's annotators in the report's order (those whose
    ``spade.size`` is not 0, in ``doc.annotators`` order)."""

    def cell(measure: str, *names: str) -> int:
        return totals.get((measure, joined(*names), ""), 0)

    by_alir: dict[str, float | None] = {}
    by_alip: dict[str, float | None] = {}
    for h in annotators:
        others = [g for g in annotators if g != h]
        alirs, alips = [], []
        for g, g2 in combinations(others, 2):  # as metrics.spade._against_pairs averages them
            both = cell(SHARED3, h, g, g2)
            alirs.append(_ratio(both, cell(SHARED, g, g2)))
            alips.append(_ratio(cell(SHARED, h, g) + cell(SHARED, h, g2) - both, cell(SIZE, h)))
        by_alir[h], by_alip[h] = mean_defined(alirs), mean_defined(alips)
    enough = len(annotators) >= 3
    return {
        "spade.alir": {"value": mean_defined(by_alir.values()) if enough else None, "by_annotator": by_alir},
        "spade.alip": {"value": mean_defined(by_alip.values()) if enough else None, "by_annotator": by_alip},
    }
