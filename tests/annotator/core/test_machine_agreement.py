"""Humans vs the machine (Cohn Table 5) and systems vs humans / gold: P/R/F1 without identical links."""

import pytest

from annotator.core.machine_agreement import compare, machine_agreement

TOKENS = {"p1": ("He bought a car .".split(), "He purchased a vehicle .".split())}
DOC = {
    "pairs": [
        {
            "id": "p1",
            "tokens1": TOKENS["p1"][0],
            "tokens2": TOKENS["p1"][1],
            "initial_alignment": [[0, 0], [1, 1], [3, 2]],
        }
    ],
    "word_alignments": {
        "anna": {"p1": {"sure": [[0, 0], [1, 1], [3, 3]], "possible": []}},
        "ben": {"p1": {"sure": [[1, 1]], "possible": [[3, 3]]}},
    },
}


def test_aligner_against_each_annotator_leaves_identical_links_out():
    rows = machine_agreement(DOC)["aligner"]
    assert [r["annotator"] for r in rows] == ["anna", "ben"]
    anna = rows[0]
    # non-identical: aligner {bought–purchased, car–a} vs anna {bought–purchased, car–vehicle}
    assert anna["pairs"] == 1
    assert anna["word"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    ben = rows[1]
    assert ben["word"]["precision"] == 0.5 and ben["word"]["recall"] == 1.0


def test_identical_alignments_score_one_and_unaligned_pairs_are_left_out():
    same = {"p1": {"sure": [[1, 1], [3, 3]], "possible": []}}
    result = compare(same, same, TOKENS)
    assert result["word"]["f1"] == 1.0 and result["phrase"]["f1"] == 1.0
    assert compare(same, {"p2": same["p1"]}, TOKENS)["pairs"] == 0


def test_systems_are_scored_against_each_annotator_and_gold():
    system = {"p1": {"sure": [[1, 1], [3, 3]], "possible": []}}
    gold = {"p1": {"sure": [[1, 1], [3, 3]], "possible": []}}
    out = machine_agreement(DOC, {"giza": system}, gold)
    against = {r["reference"]: r for r in out["systems"][0]["against"]}
    assert set(against) == {"anna", "ben", "gold"}
    assert against["gold"]["word"]["f1"] == pytest.approx(1.0)
    assert against["anna"]["word"]["f1"] == pytest.approx(1.0)
