"""The ``spade.*`` measures as sums over pairs: what one pair adds, and the report from the totals.

A phrase alignment is the triple ``(pair, s1, s2)``, so the sets ALIR and ALIP intersect
(docs/measures.md#spade) are unions over the pairs of disjoint per-pair sets, and every size they
take is a sum over the pairs. :func:`pair_part` gives one pair's part as integer cells
``(measure, annotators, key) → value`` (zero cells left out); summed over a document's pairs,
:func:`report_from_sums` turns them into the report's ``spade.*`` keys, equal to
:func:`metrics.spade.spade_report` of the whole document (bit for bit: the same ratios of the same
integers, averaged in the same order). The cells (``h``: an annotator or a system, ``g|g'``: two
annotators in :func:`unordered` order; the key is always ``""``):

- ``spade.size`` (annotators ``h``): ``|H|`` — an annotator takes part when it is not 0;
- ``spade.agreed`` (``g|g'``): ``|G ∩ G'|``;
- ``spade.recall_hits`` (``h>g|g'``): ``|H ∩ G ∩ G'|``, for ``h`` not one of ``g``, ``g'``;
- ``spade.precision_hits`` (``h>g|g'``): ``|H ∩ (G ∪ G')|``, likewise;
- ``spade.system.size``, ``spade.system.recall_hits``, ``spade.system.precision_hits``: the same for a
  registered system ``h``.

A pair aligned by k annotators has at most k + C(k, 2) + k·C(k − 1, 2) human cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from itertools import combinations
from typing import Any

from metrics.alignment import mean_defined

__all__ = ["MEASURES", "pair_part", "report_from_sums", "unordered"]

Cell = tuple[str, str, str]  # measure, annotators, key

SIZE = "spade.size"
AGREED = "spade.agreed"
RECALL_HITS = "spade.recall_hits"
PRECISION_HITS = "spade.precision_hits"
SYSTEM_SIZE = "spade.system.size"
SYSTEM_RECALL_HITS = "spade.system.recall_hits"
SYSTEM_PRECISION_HITS = "spade.system.precision_hits"
#: Every measure of the cells.
MEASURES = (SIZE, AGREED, RECALL_HITS, PRECISION_HITS, SYSTEM_SIZE, SYSTEM_RECALL_HITS, SYSTEM_PRECISION_HITS)


def unordered(g: str, g2: str) -> str:
    """The cell name of the unordered annotator pair ``{g, g2}``: the two names sorted, joined by ``|``."""
    return "|".join(sorted((g, g2)))


def _tested(
    cells: dict[Cell, int],
    measures: tuple[str, str, str],
    name: str,
    h: Set[Any],
    humans: Mapping[str, Set[Any]],
) -> None:
    size, recall_hits, precision_hits = measures
    if h:
        cells[(size, name, "")] = len(h)
    for g, g2 in combinations(sorted(n for n in humans if n != name), 2):
        key = f"{name}>{unordered(g, g2)}"
        hits = len(h & humans[g] & humans[g2])
        if hits:
            cells[(recall_hits, key, "")] = hits
        hits = len(h & (humans[g] | humans[g2]))
        if hits:
            cells[(precision_hits, key, "")] = hits


def pair_part(
    humans: Mapping[str, Iterable[Any]], systems: Mapping[str, Iterable[Any]] | None = None
) -> dict[Cell, int]:
    """One pair's cells (module doc) from the phrase alignments of that pair by annotator (``humans``)
    and by registered system (``systems``); annotators without an alignment of the pair may be left
    out.

    Example — A and B share one of the pair's alignments, C has another:

    >>> part = pair_part({"A": {1, 2}, "B": {1}, "C": {3}})
    >>> part[("spade.agreed", "A|B", "")], part[("spade.precision_hits", "A>B|C", "")]
    (1, 1)
    >>> ("spade.agreed", "A|C", "") in part  # zero cells are left out
    False
    """
    sets = {name: frozenset(x) for name, x in humans.items()}
    cells: dict[Cell, int] = {}
    for g, g2 in combinations(sorted(sets), 2):
        agreed = len(sets[g] & sets[g2])
        if agreed:
            cells[(AGREED, unordered(g, g2), "")] = agreed
    for name, h in sets.items():
        _tested(cells, (SIZE, RECALL_HITS, PRECISION_HITS), name, h, sets)
    for name, x in (systems or {}).items():
        _tested(cells, (SYSTEM_SIZE, SYSTEM_RECALL_HITS, SYSTEM_PRECISION_HITS), name, frozenset(x), sets)
    return cells


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _against_pairs(
    totals: Mapping[Cell, int], measures: tuple[str, str, str], name: str, references: Sequence[str]
) -> tuple[float | None, float | None]:
    """Mean ALIR and ALIP of ``name`` over the unordered pairs of ``references`` (in their order), as
    :func:`metrics.spade._against_pairs` averages them."""
    size, recall_hits, precision_hits = measures
    alirs, alips = [], []
    for g, g2 in combinations(references, 2):
        key = f"{name}>{unordered(g, g2)}"
        alirs.append(
            _ratio(totals.get((recall_hits, key, ""), 0), totals.get((AGREED, unordered(g, g2), ""), 0))
        )
        alips.append(_ratio(totals.get((precision_hits, key, ""), 0), totals.get((size, name, ""), 0)))
    return mean_defined(alirs), mean_defined(alips)


def report_from_sums(
    annotators: Sequence[str],
    totals: Mapping[Cell, int],
    *,
    humans: bool = True,
    systems: Sequence[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """The ``spade.*`` keys of :func:`metrics.spade.spade_report` from the cells summed over the pairs.

    ``annotators``: the phrase section's annotators in the report's order (those whose ``spade.size``
    is not 0, in ``doc.annotators`` order); ``humans``: whether the document has the section (the
    human benchmark is reported); ``systems``: the registered systems in the document's order, or None
    when it has none (``spade.system.*`` left out)."""
    report: dict[str, dict[str, Any]] = {}
    references = list(annotators)
    human = (SIZE, RECALL_HITS, PRECISION_HITS)
    if humans:
        by_alir: dict[str, float | None] = {}
        by_alip: dict[str, float | None] = {}
        for name in references:
            others = [other for other in references if other != name]
            by_alir[name], by_alip[name] = _against_pairs(totals, human, name, others)
        enough = len(references) >= 3
        report["spade.alir"] = {
            "value": mean_defined(by_alir.values()) if enough else None,
            "by_annotator": by_alir,
        }
        report["spade.alip"] = {
            "value": mean_defined(by_alip.values()) if enough else None,
            "by_annotator": by_alip,
        }
    if systems is not None:
        system = (SYSTEM_SIZE, SYSTEM_RECALL_HITS, SYSTEM_PRECISION_HITS)
        sys_alir: dict[str, float | None] = {}
        sys_alip: dict[str, float | None] = {}
        for name in systems:
            sys_alir[name], sys_alip[name] = _against_pairs(totals, system, name, references)
        report["spade.system.alir"] = {"by_system": sys_alir}
        report["spade.system.alip"] = {"by_system": sys_alip}
    return report
