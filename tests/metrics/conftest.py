"""Fixtures of the metrics tests: the shared worked cases and small builders of documents.

The metrics tests never need Django; run them alone with ``pytest -p no:django tests/metrics``. The
builders are fixtures whose value is the builder (`ph("p1", "ORDER", [1], [2])`, `vila_document_data()`,
`full_document()`), each call a fresh object a test may change.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from metrics.types import Phenomenon

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def shared_specs() -> Path:
    """``../shared/specs`` next to the repository (skip if absent, fail if REQUIRE_CORPORA=1)."""
    path = Path(__file__).resolve().parents[3] / "shared" / "specs"
    if not (path / "cases").is_dir():
        reason = f"../shared/specs not found at {path}: the spec's worked cases are not on this machine"
        if os.environ.get("REQUIRE_CORPORA", "") in {"1", "true", "yes"}:
            pytest.fail(f"{reason} (required because REQUIRE_CORPORA=1)")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def ph() -> Callable[..., Phenomenon]:
    """A phenomenon from plain index lists: ph(pair, type, s1, s2, projection, key1=…, key2=…)."""
    return _ph


@pytest.fixture(scope="session")
def vila_document_data() -> Callable[[], dict[str, Any]]:
    """Vila et al. (2015) Fig. 3, pair 1, as a document (the paper's counts; spec cases)."""
    return _vila_document_data


@pytest.fixture(scope="session")
def evaluation_ratings() -> Callable[[], dict[str, Any]]:
    """An evaluations section: four items rated by three raters, one revision."""
    return _evaluations


@pytest.fixture(scope="session")
def full_document() -> Callable[[], dict[str, Any]]:
    """The example document of spec §9."""
    return _full_document


def _ph(
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


def _vila_document_data() -> dict[str, Any]:
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


def _full_document() -> dict[str, Any]:
    """The example document of spec §9."""
    return {
        "format": "paraphrase-agreement/1",
        "annotators": ["B", "C"],
        "options": {
            "identical_match": "exact",
            "mc_samples": 1000,
            "mc_seed": 0,
            "reeval_seed": 0,
            "reeval_fraction": 0.1,
        },
        "tagset": {
            "types": [{"name": "SYNTHETIC/ANALYTIC"}, {"name": "ADDITION/DELETION", "one_sided": True}]
        },
        "pairs": [
            {
                "id": "p1",
                "tokens1": ["The", "film", "opened"],
                "tokens2": ["Film", "opened"],
                "initial_alignment": [[1, 0], [2, 1]],
            }
        ],
        "phenomena": {
            "B": [
                {
                    "pair": "p1",
                    "type": "SYNTHETIC/ANALYTIC",
                    "s1": [0, 1],
                    "s2": [0],
                    "projection": "local",
                    "key1": [],
                    "key2": [],
                }
            ],
            "C": [],
        },
        "word_alignments": {
            "B": {"p1": {"sure": [[1, 0]], "possible": [[2, 1]]}},
            "C": {"p1": {"sure": [[1, 0], [2, 1]]}},
        },
        "phrase_alignments": {
            "B": [
                {"pair": "p1", "s1": [0, 1], "s2": [0], "label": "sure"},
                {"pair": "p1", "s1": [2], "s2": None, "label": "possible"},
            ]
        },
        "system_phrase_alignments": {"aligner-x": [{"pair": "p1", "s1": [2], "s2": [1]}]},
        "evaluations": {
            "raters": ["E1", "E2", "E3"],
            "ratings": [{"item": "u01e1", "rater": "E1", "G": "Perfect", "M": "Equivalent"}],
            "revisions": [{"item": "u01e1", "rater": "E1", "G": "Awkward"}],
        },
    }


def _evaluations() -> dict[str, Any]:
    ratings = []
    for n, item in enumerate(["i1", "i2", "i3", "i4"]):
        for r in ("E1", "E2", "E3"):
            g = "Perfect" if (n + len(r)) % 2 else ("Awkward" if r == "E2" else "Irredeemable")
            ratings.append(
                {"item": item, "rater": r, "G": g, "M": "Equivalent" if r != "E3" else "Completely Different"}
            )
    return {
        "raters": ["E1", "E2", "E3"],
        "ratings": ratings,
        "revisions": [{"item": "i1", "rater": "E3", "M": "Equivalent"}],
    }
