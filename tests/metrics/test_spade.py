"""SPADE ALIR / ALIP (Arase & Tsujii 2018; spec §6)."""

from __future__ import annotations

import pytest

from metrics.spade import alip, alir, human_scores, spade_report, system_scores
from metrics.types import Document, Pair, PhraseAlignment


def pa(
    s1: set[int] | None, s2: set[int] | None, label: str | None = None, pair: str = "p1"
) -> PhraseAlignment:
    return PhraseAlignment(
        pair, None if s1 is None else frozenset(s1), None if s2 is None else frozenset(s2), label
    )


X, Y, Z, W, V = pa({0}, {0}), pa({1, 2}, {1}), pa({3}, None), pa(None, {2}), pa({1}, {1})


def test_alir_and_alip_on_a_hand_example() -> None:
    h, g, g2 = {X, Y, W}, {X, Y, Z}, {X, Z, V}
    assert alir(h, g, g2) == 1 / 2  # G ∩ G' = {X, Z}; H has X
    assert alip(h, g, g2) == 2 / 3  # H ∩ (G ∪ G') = {X, Y}


def test_undefined_values_are_none() -> None:
    assert alir({X}, {Y}, {Z}) is None  # the annotators share nothing
    assert alip(set(), {X}, {X}) is None


def test_labels_do_not_take_part_in_identity() -> None:
    assert alir({pa({0}, {0}, "sure")}, {pa({0}, {0}, "possible")}, {X}) == 1.0


def test_leave_one_out_human_benchmark() -> None:
    sets = {"A": {X, Y}, "B": {X, Y, Z}, "C": {X, Z}, "D": {Y, Z}}
    by_alir, by_alip = human_scores(sets)
    # A against {B,C}: agreed {X,Z} → 1/2; {B,D}: {Y,Z} → 1/2; {C,D}: {Z} → 0
    assert by_alir["A"] == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    assert by_alip["A"] == 1.0
    assert by_alir["B"] == 1.0


def test_report_three_annotators_and_systems() -> None:
    pair = Pair("p1", ("a", "b", "c", "d"), ("e", "f", "g"))
    doc = Document(
        ("A", "B", "C"),
        pairs=(pair,),
        phrase_alignments={"A": (X, Y), "B": (X, Y, Z), "C": (X, Z)},
        system_phrase_alignments={"sys": (X, W)},
    )
    report = spade_report(doc)
    by_alir, by_alip = human_scores({"A": {X, Y}, "B": {X, Y, Z}, "C": {X, Z}})
    assert report["spade.alir"] == {
        "value": pytest.approx(sum(by_alir.values()) / 3),
        "by_annotator": by_alir,
    }
    assert report["spade.alip"]["by_annotator"] == by_alip
    # sys against {A,B}: agreed {X,Y} → 1/2, {A,C}: {X} → 1, {B,C}: {X,Z} → 1/2; ALIP always 1/2
    assert report["spade.system.alir"] == {"by_system": {"sys": pytest.approx(2 / 3)}}
    assert report["spade.system.alip"] == {"by_system": {"sys": 0.5}}


def test_report_with_two_annotators_has_null_human_value() -> None:
    doc = Document(("A", "B"), phrase_alignments={"A": (X,), "B": (X,)})
    report = spade_report(doc)
    assert report["spade.alir"]["value"] is None
    assert report["spade.alir"]["by_annotator"] == {"A": None, "B": None}
    assert "spade.system.alir" not in report


def test_systems_are_averaged_over_all_annotator_pairs() -> None:
    by_alir, by_alip = system_scores({"s": {X}}, {"A": {X}, "B": {X, Y}, "C": {Y}})
    assert by_alir == {"s": pytest.approx((1.0 + 0.0) / 2)}  # A|C share nothing: skipped
    assert by_alip == {"s": 1.0}
