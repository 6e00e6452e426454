"""Humans vs the machine (Cohn Table 5) and systems vs humans / gold: P/R/F1 without identical links."""

import pytest

from annotator.agreement.machine_agreement import compare, machine_agreement

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


def test_tree_phrases_score_the_automatic_phrase_alignment_against_each_annotator():
    automatic = {
        "p1": [{"s1": [1], "s2": [1]}, {"s1": [1, 2, 3], "s2": [1, 2, 3]}, {"s1": [0], "s2": [0]}],
        "p2": [{"s1": [0], "s2": [0]}],
    }
    doc = {
        **DOC,
        "phrase_alignments": {
            # anna: two of the aligner's three, plus a null alignment; ben aligned nothing with trees
            "anna": [
                {"pair": "p1", "s1": [1], "s2": [1], "label": "sure"},
                {"pair": "p1", "s1": [1, 2, 3], "s2": [1, 2, 3], "label": "possible"},
                {"pair": "p1", "s1": [4], "s2": None, "label": "sure"},
            ],
            "cat": [{"pair": "p3", "s1": [0], "s2": [0], "label": "sure"}],  # p3 has no trees
        },
    }
    rows = {r["annotator"]: r for r in machine_agreement(doc, automatic_phrases=automatic)["aligner"]}
    assert set(rows) == {"anna", "ben", "cat"}
    anna = rows["anna"]["tree_phrase"]
    # H = the aligner's 3 on p1 (p2 is not anna's), G = anna's 3: 2 shared
    assert anna["pairs"] == 1
    assert anna["precision"] == pytest.approx(2 / 3) and anna["recall"] == pytest.approx(2 / 3)
    assert anna["f1"] == pytest.approx(2 / 3)
    assert rows["ben"]["tree_phrase"] == {"pairs": 0, "precision": None, "recall": None, "f1": None}
    assert rows["cat"]["tree_phrase"]["pairs"] == 0
    assert rows["cat"]["word"]["f1"] is None  # cat aligned no words


def test_without_automatic_phrases_rows_have_no_tree_scores():
    assert all("tree_phrase" not in r for r in machine_agreement(DOC)["aligner"])
