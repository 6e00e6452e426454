"""Builders shared by the metrics tests (plain functions; fixtures live in conftest.py)."""

from __future__ import annotations

from typing import Any

from metrics.types import Phenomenon


def ph(
    pair: str,
    type_: str,
    s1: Any = (),
    s2: Any = (),
    projection: str | None = None,
    key1: Any = (),
    key2: Any = (),
) -> Phenomenon:
    """A phenomenon from plain index lists (test helper)."""
    return Phenomenon(pair, type_, frozenset(s1), frozenset(s2), projection, frozenset(key1), frozenset(key2))


def vila_document_data() -> dict[str, Any]:
    """Reconstruction of Vila et al. (2015) Fig. 3, pair 1 (counts as stated in the paper; spec cases)."""
    types = [
        "INFLECTIONAL",
        "DERIVATIONAL",
        "SAME-POLARITY",
        "SYNTHETIC/ANALYTIC",
        "SUBORDINATION&NESTING",
        "PUNCTUATION",
        "ORDER",
        "IDENTICAL",
        "COORDINATION",
    ]

    def p(t: str, s1: list[int], s2: list[int], proj: str | None = "local") -> dict[str, Any]:
        return {"pair": "p1", "type": t, "s1": s1, "s2": s2, "projection": proj}

    return {
        "format": "paraphrase-agreement/1",
        "annotators": ["B", "C"],
        "tagset": {
            "types": [{"name": t} for t in types] + [{"name": "ADDITION/DELETION", "one_sided": True}]
        },
        "pairs": [
            {"id": "p1", "tokens1": [f"w{i}" for i in range(14)], "tokens2": [f"v{i}" for i in range(11)]}
        ],
        "phenomena": {
            "B": [
                p("SYNTHETIC/ANALYTIC", [0, 1, 2, 3, 4, 5], [0, 1]),
                p("SUBORDINATION&NESTING", [6, 7, 8], [2, 3, 4], None),
                p("DERIVATIONAL", [9], [5]),
                p("PUNCTUATION", [0, 4], [1]),
                p("IDENTICAL", [10, 11], [6, 7], None),
                p("SAME-POLARITY", [12], [8]),
            ],
            "C": [
                p("SYNTHETIC/ANALYTIC", [1, 2, 3], [0, 1]),
                p("SUBORDINATION&NESTING", [6, 7], [2, 3], None),
                p("INFLECTIONAL", [9], [5]),
                p("PUNCTUATION", [0, 4], [1]),
                p("IDENTICAL", [10, 11], [6, 7], None),
                p("SAME-POLARITY", [12], [8]),
                p("ADDITION/DELETION", [13], []),
                p("ORDER", [], [9, 10]),
            ],
        },
    }
