"""SPADE phrase-alignment agreement: ALIR and ALIP (Arase & Tsujii 2018; docs/measures.md#spade).

A phrase alignment is the triple ``(pair, s1, s2)`` (:class:`metrics.types.PhraseAlignment`, whose
identity ignores the sure/possible label); an annotator's or a system's alignment is the
corpus-wide set of its triples.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from itertools import combinations
from typing import Any

from metrics.alignment import mean_defined, section_annotators
from metrics.types import Document, PhraseAlignment

__all__ = ["alir", "alip", "human_scores", "system_scores", "spade_report"]


def _as_set(x: Iterable[Any], name: str) -> Set[Any]:
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be a set of phrase alignments, got a string")
    return x if isinstance(x, Set) else frozenset(x)


def alir(h: Iterable[Any], g: Iterable[Any], g2: Iterable[Any]) -> float | None:
    """Alignment link recall of ``h`` against two annotators ``g``, ``g2`` (Arase & Tsujii 2018).

    ::

        ALIR = |H ∩ G ∩ G'| / |G ∩ G'|

    the share of the alignments both annotators agree on that ``h`` also has. Range [0, 1];
    ``None`` when ``G ∩ G' = ∅`` (docs/measures.md#conventions).

    Reference: Arase & Tsujii 2018, "SPADE: Evaluation dataset for monolingual phrase alignment",
    LREC, §4; docs/measures.md#spade.

    Examples
    --------
    >>> alir({1, 2, 3}, {1, 2, 4}, {1, 2, 5}), alir({3}, {1, 2}, {1, 2}), alir({1}, {1}, {2})
    (1.0, 0.0, None)
    """
    h, g, g2 = _as_set(h, "h"), _as_set(g, "g"), _as_set(g2, "g2")
    agreed = g & g2
    return len(h & agreed) / len(agreed) if agreed else None


def alip(h: Iterable[Any], g: Iterable[Any], g2: Iterable[Any]) -> float | None:
    """Alignment link precision of ``h`` against two annotators ``g``, ``g2`` (Arase & Tsujii 2018).

    ::

        ALIP = |H ∩ (G ∪ G')| / |H|

    the share of ``h``'s alignments that at least one annotator made. Range [0, 1]; ``None`` when
    ``H = ∅``.

    Reference: Arase & Tsujii 2018, LREC, §4; docs/measures.md#spade.

    Examples
    --------
    >>> alip({1, 2, 3, 6}, {1, 2, 4}, {1, 3, 5}), alip(set(), {1}, {1})
    (0.75, None)
    """
    h, g, g2 = _as_set(h, "h"), _as_set(g, "g"), _as_set(g2, "g2")
    return len(h & (g | g2)) / len(h) if h else None


def _against_pairs(h: Set[Any], references: list[Set[Any]]) -> tuple[float | None, float | None]:
    """Mean ALIR and ALIP of ``h`` over all unordered pairs of ``references`` (skipping ``None``)."""
    pairs = list(combinations(references, 2))
    return (
        mean_defined(alir(h, g, g2) for g, g2 in pairs),
        mean_defined(alip(h, g, g2) for g, g2 in pairs),
    )


def human_scores(
    alignments: Mapping[str, Iterable[Any]],
) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """Leave-one-out human benchmark: ``(alir_by_annotator, alip_by_annotator)``
    (docs/measures.md#spade).

    Each annotator in turn is ``H`` against every unordered pair of the *other* annotators; its
    value is the mean over those pairs (``None`` where all are undefined or with fewer than three
    annotators). The headline value is :func:`metrics.alignment.mean_defined` of these.

    Examples
    --------
    >>> by_alir, by_alip = human_scores({"A": {1, 2}, "B": {1, 2, 3}, "C": {1, 3}})
    >>> by_alir["A"], by_alip["A"]   # against {B, C}: agreed {1, 3}; A has 1 of them
    (0.5, 1.0)
    """
    sets = {name: _as_set(x, name) for name, x in alignments.items()}
    by_alir: dict[str, float | None] = {}
    by_alip: dict[str, float | None] = {}
    for name, h in sets.items():
        others = [g for other, g in sets.items() if other != name]
        by_alir[name], by_alip[name] = _against_pairs(h, others)
    return by_alir, by_alip


def system_scores(
    systems: Mapping[str, Iterable[Any]], annotators: Mapping[str, Iterable[Any]]
) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """``(alir_by_system, alip_by_system)``: each system against all pairs of annotators
    (docs/measures.md#spade)."""
    references = [_as_set(x, name) for name, x in annotators.items()]
    by_alir: dict[str, float | None] = {}
    by_alip: dict[str, float | None] = {}
    for name, x in systems.items():
        by_alir[name], by_alip[name] = _against_pairs(_as_set(x, name), references)
    return by_alir, by_alip


def spade_report(doc: Document) -> dict[str, dict[str, Any]]:
    """The ``spade.*`` measures of a document (docs/measures.md#spade, #report).

    ``spade.alir`` / ``spade.alip``: ``{"value", "by_annotator"}`` from the leave-one-out human
    benchmark over the annotators of ``phrase_alignments`` (``value`` is ``None`` with fewer than
    three). ``spade.system.alir`` / ``spade.system.alip``: ``{"by_system"}``, each system against
    all pairs of those annotators; emitted when ``system_phrase_alignments`` is present.
    """
    report: dict[str, dict[str, Any]] = {}
    annotators = section_annotators(doc, doc.phrase_alignments)
    humans: dict[str, frozenset[PhraseAlignment]] = {
        r: frozenset((doc.phrase_alignments or {})[r]) for r in annotators
    }
    if doc.phrase_alignments is not None:
        by_alir, by_alip = human_scores(humans)
        enough = len(annotators) >= 3
        report["spade.alir"] = {
            "value": mean_defined(by_alir.values()) if enough else None,
            "by_annotator": by_alir,
        }
        report["spade.alip"] = {
            "value": mean_defined(by_alip.values()) if enough else None,
            "by_annotator": by_alip,
        }
    if doc.system_phrase_alignments is not None:
        systems = {name: frozenset(x) for name, x in doc.system_phrase_alignments.items()}
        sys_alir, sys_alip = system_scores(systems, humans)
        report["spade.system.alir"] = {"by_system": sys_alir}
        report["spade.system.alip"] = {"by_system": sys_alip}
    return report
