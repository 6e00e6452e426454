"""Word- and phrase-level alignment P/R/F1 and the alignment report (spec §5.1, §5.3, §8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.alignment import (
    AlignmentLink,
    alignment_pair_counts,
    alignment_report,
    harmonic_mean,
    phrase_alignment_counts,
    phrase_alignment_scores,
    word_alignment_counts,
    word_alignment_scores,
)
from metrics.document import load_document
from metrics.types import Document, Options, Pair, WordAlignment

T1 = "They discussed the issue of emissions .".split()
T2 = "They discussed the problem concerning gas output .".split()
SAME = [(0, 0), (1, 1), (2, 2), (6, 7)]  # identical-word links, ignored
# the counts of Cohn et al.'s Fig. 2 (b is the reference)
A = WordAlignment(frozenset(SAME + [(3, 3), (4, 4), (5, 5), (5, 6)]), frozenset({(2, 3)}))
B = WordAlignment(frozenset(SAME + [(3, 3), (4, 4), (5, 5), (2, 3), (4, 5)]), frozenset({(5, 6)}))


def test_cohn_word_example_precision_1_recall_08_f1_0889() -> None:
    p, r, f1 = word_alignment_scores(A, B, T1, T2)
    assert (p, r) == (1.0, 0.8)
    assert f1 == pytest.approx(0.888888888888889, abs=1e-12)


def test_alignment_links_give_the_same_scores_as_word_alignments() -> None:
    links_a = [AlignmentLink(i, j, True) for i, j in A.sure] + [AlignmentLink(2, 3, False)]
    links_b = [AlignmentLink(i, j, True) for i, j in B.sure] + [AlignmentLink(5, 6, False)]
    assert word_alignment_scores(links_a, links_b, T1, T2) == word_alignment_scores(A, B, T1, T2)


def test_single_tier_variants() -> None:
    p, r, _ = word_alignment_scores(A, B, T1, T2, tier="sure")
    assert (p, r) == (0.75, 0.6)
    p, r, f1 = word_alignment_scores(A, B, T1, T2, tier="possible")
    assert (p, r) == (1.0, 5 / 6)
    assert f1 == pytest.approx(10 / 11)


def test_identical_links_are_excluded_exactly_or_casefolded() -> None:
    t1, t2 = ["The", "cat"], ["the", "kitty"]
    a = WordAlignment(frozenset({(0, 0), (1, 1)}))
    b = WordAlignment(frozenset({(1, 1)}))
    assert word_alignment_counts(a, b, t1, t2).n_test == 2  # "The"–"the" differs exactly
    assert word_alignment_counts(a, b, t1, t2, identical_match="casefold").n_test == 1
    assert word_alignment_scores(a, b, t1, t2, identical_match="casefold") == (1.0, 1.0, 1.0)


def test_no_non_identical_links_gives_none_not_zero() -> None:
    t = ["a", "b"]
    a = WordAlignment(frozenset({(0, 0)}))
    assert word_alignment_scores(a, a, t, t) == (None, None, None)
    empty = WordAlignment(frozenset())
    p, r, f1 = word_alignment_scores(empty, WordAlignment(frozenset({(0, 1)})), t, t)
    assert (p, r, f1) == (None, 0.0, None)


def test_harmonic_mean_conventions() -> None:
    assert harmonic_mean(1.0, 0.8) == pytest.approx(0.888888888888889)
    assert harmonic_mean(0.0, 0.0) == 0.0
    assert harmonic_mean(None, 1.0) is None


def test_invalid_inputs_are_rejected() -> None:
    with pytest.raises(ValueError, match="out of range"):
        word_alignment_scores(WordAlignment(frozenset({(9, 0)})), B, T1, T2)
    with pytest.raises(ValueError, match="tier"):
        word_alignment_scores(A, B, T1, T2, tier="loose")
    with pytest.raises(ValueError, match="identical_match"):
        word_alignment_scores(A, B, T1, T2, identical_match="fuzzy")


@st.composite
def alignment_pairs(draw: st.DrawFn) -> tuple[WordAlignment, WordAlignment, list[str], list[str]]:
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    vocab = st.sampled_from(["a", "b", "c", "A"])
    t1, t2 = draw(st.lists(vocab, min_size=n, max_size=n)), draw(st.lists(vocab, min_size=m, max_size=m))
    cells = st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, m - 1)), max_size=8)
    wa = [WordAlignment(frozenset(draw(cells)), frozenset(draw(cells))) for _ in range(2)]
    return wa[0], wa[1], t1, t2


@settings(max_examples=200, deadline=None)
@given(alignment_pairs(), st.sampled_from(["generous", "sure", "possible"]))
def test_swapping_test_and_reference_swaps_p_and_r(case: tuple, tier: str) -> None:
    a, b, t1, t2 = case
    p_ab, r_ab, f_ab = word_alignment_scores(a, b, t1, t2, tier=tier)
    p_ba, r_ba, f_ba = word_alignment_scores(b, a, t1, t2, tier=tier)
    assert (p_ab, r_ab) == (r_ba, p_ba)
    assert f_ab == f_ba


@settings(max_examples=100, deadline=None)
@given(alignment_pairs())
def test_phrase_scores_swap_and_identical_annotators_agree(case: tuple) -> None:
    a, b, t1, t2 = case
    p_ab, r_ab, f_ab = phrase_alignment_scores(a.P, b.P, t1, t2)
    p_ba, r_ba, f_ba = phrase_alignment_scores(b.P, a.P, t1, t2)
    assert (p_ab, r_ab, f_ab) == (r_ba, p_ba, f_ba)
    p, r, f1 = phrase_alignment_scores(a.P, a.P, t1, t2)
    assert p in (1.0, None) and r in (1.0, None)


@settings(max_examples=100, deadline=None)
@given(alignment_pairs(), alignment_pairs())
def test_pair_counts_of_one_annotator_are_those_of_all_and_of_one_comparison(one: tuple, two: tuple) -> None:
    """`only` keeps the annotator pairs that include that annotator, with the counts of them all; an
    alignment of sure links only as the test side gives the generous word counts and the phrase
    counts of comparing the two directly (what the link save uses for the automatic alignment)."""
    a, b, t1, t2 = one
    c = WordAlignment(frozenset(lk for lk in two[0].S if lk[0] < len(t1) and lk[1] < len(t2)))
    pair = Pair("p", tuple(t1), tuple(t2))
    alignments = {"c": c, "a": a, "b": b}
    every = alignment_pair_counts(pair, alignments)
    mine = alignment_pair_counts(pair, alignments, only="a")
    assert mine == {k: v for k, v in every.items() if "a" in k} and set(mine) == {("c", "a"), ("a", "b")}
    words, phrases = mine["c", "a"]["alignment.words"], mine["c", "a"]["alignment.phrases"]
    assert words == word_alignment_counts(c, a, t1, t2)
    assert phrases == phrase_alignment_counts(c.P, a.P, t1, t2)


def test_phrase_level_cohn_extraction_example() -> None:
    t1, t2 = "and reached an agreement".split(), "and arrived at a deal".split()
    a = {(0, 0), (1, 1), (1, 2), (3, 4)}
    # atom(a) = {reached–arrived at, agreement–deal} (and–and is identical), both extracted from b;
    # atom(b) adds an–a, which a's links do not extract
    assert phrase_alignment_scores(a, a | {(2, 3)}, t1, t2) == pytest.approx((1.0, 2 / 3, 0.8))


def _doc(annotators: tuple[str, ...], alignments: dict[str, dict[str, WordAlignment]]) -> Document:
    pairs = (Pair("w1", tuple(T1), tuple(T2)), Pair("w2", ("x", "y"), ("z", "w")))
    return Document(annotators=annotators, options=Options(), pairs=pairs, word_alignments=alignments)


def test_report_by_pair_keys_follow_document_order_and_value_is_mean() -> None:
    w2 = WordAlignment(frozenset({(0, 0)}))
    doc = _doc(("C", "A", "B"), {"A": {"w1": A}, "B": {"w1": B, "w2": w2}, "C": {"w1": B}})
    report = alignment_report(doc)
    precision = report["alignment.words.precision"]
    assert list(precision["by_pair"]) == ["C|A", "C|B", "A|B"]
    assert precision["by_pair"]["A|B"] == 1.0
    assert precision["by_pair"]["C|A"] == 0.8  # C (= B's links) tested against A
    assert precision["value"] == pytest.approx((0.8 + 1.0 + 1.0) / 3)
    for tier in ("", ".sure", ".possible"):
        for level in ("words", "phrases"):
            if level == "phrases" and tier == ".possible":
                continue
            for field in ("precision", "recall", "f1"):
                assert f"alignment.{level}{tier}.{field}" in report


def test_report_counts_only_pairs_annotated_by_both() -> None:
    w2 = WordAlignment(frozenset({(0, 0)}))
    only_b = alignment_report(_doc(("A", "B"), {"A": {"w1": A}, "B": {"w1": B, "w2": w2}}))
    without = alignment_report(_doc(("A", "B"), {"A": {"w1": A}, "B": {"w1": B}}))
    assert only_b == without


def test_report_with_one_annotator_omits_by_pair() -> None:
    report = alignment_report(_doc(("A", "B"), {"A": {"w1": A}}))
    assert report["alignment.words.f1"] == {"value": None}


def test_report_without_word_alignments_has_no_keys() -> None:
    assert alignment_report(_doc(("A",), None)) == {}  # type: ignore[arg-type]


@pytest.mark.corpora
@pytest.mark.parametrize(
    "case", ["word_alignment_sure_possible", "phrase_pairs_atomic_composite", "kappa_c_no_edits"]
)
def test_spec_cases(case: str, shared_specs: Path) -> None:
    cases = shared_specs / "cases"
    expected = json.loads((cases / f"{case}.expected.json").read_text())["measures"]
    report = alignment_report(load_document(cases / f"{case}.json"))
    for key, want in expected.items():
        if key.startswith("alignment."):
            assert report[key]["value"] == pytest.approx(want["value"], abs=1e-9)
            assert report[key]["by_pair"] == pytest.approx(want["by_pair"], abs=1e-9)
