"""Multi-annotator TPO (ETPC; spec §3): avg, union and gold by hand."""

from __future__ import annotations

import pytest

from metrics.iapta import agr_o, harmonic_mean
from metrics.multi import tpo_multi

T = "SAME-POLARITY"


@pytest.fixture
def three_annotators(ph):
    return {
        "R1": [ph("p", T, [1], [1]), ph("p", T, [5, 6], [5])],
        "R2": [ph("p", T, [1], [1]), ph("p", T, [6], [5]), ph("q", T, [2], [2])],
        "R3": [ph("p", T, [1], [1]), ph("p", "ORDER", [5, 6], [5])],
    }


def test_fewer_than_three_annotators_give_none(ph):
    result = tpo_multi({"A": [ph("p", T, [1])], "B": [ph("p", T, [1])]})
    assert (result.avg, result.union, result.gold, result.by_annotator) == (None, None, None, {})


def test_avg_is_the_mean_of_pairwise_agr_o(three_annotators):
    data = three_annotators
    expected = [agr_o(data[a], data[b]) for a, b in (("R1", "R2"), ("R1", "R3"), ("R2", "R3"))]
    assert tpo_multi(data).avg == pytest.approx(sum(expected) / 3)


def test_union_counts_phenomena_matched_by_some_other_annotator(three_annotators):
    # partial: R1 both (R2 matches), R2 {1}, {6} matched, q not → 2 of 3, R3 {1} matched, ORDER not → 1 of 2
    assert tpo_multi(three_annotators).union == pytest.approx((2 + 2 + 1) / 7)
    # total: only the three identical ({1},{1}) phenomena
    assert tpo_multi(three_annotators, criterion="total").union == pytest.approx(3 / 7)


def test_gold_is_what_two_annotators_annotated_identically(three_annotators):
    # G = {(p, T, {1}, {1})}; partial: R1 → G 1 of 2, G → R1 1 of 1
    result = tpo_multi(three_annotators)
    assert result.by_annotator["R1"] == pytest.approx(harmonic_mean(1 / 2, 1.0))
    assert result.by_annotator["R2"] == pytest.approx(harmonic_mean(1 / 3, 1.0))
    assert result.by_annotator["R3"] == pytest.approx(harmonic_mean(1 / 2, 1.0))
    assert result.gold == pytest.approx(sum(result.by_annotator.values()) / 3)


def test_gold_with_no_shared_phenomenon_is_zero_for_annotators_with_phenomena(ph):
    data = {"A": [ph("p", T, [1])], "B": [ph("p", T, [2])], "C": []}
    result = tpo_multi(data)
    assert result.by_annotator == {"A": 0.0, "B": 0.0, "C": None}
    assert result.gold == 0.0


def test_identical_annotators_agree_perfectly(ph):
    xs = [ph("p", T, [1], [1]), ph("q", "ORDER", [2, 3], [])]
    result = tpo_multi({"A": xs, "B": list(xs), "C": list(xs)}, criterion="total")
    assert (result.avg, result.union, result.gold) == (1.0, 1.0, 1.0)
