"""IAPTA N-, TPO- and DO-measures (spec §2–4): the worked examples of Vila et al. (2015) and edge cases."""

from __future__ import annotations

import pytest

from metrics.document import parse_document
from metrics.iapta import (
    agr_n,
    agr_o,
    agr_ph,
    agr_w,
    by_type,
    do_f1,
    do_k,
    harmonic_mean,
    overlapping,
    partial_overlap,
    total_overlap,
    tpo_scores,
)
from metrics.types import Tagset, TypeDef

SA = "SYNTHETIC/ANALYTIC"
AD = "ADDITION/DELETION"


@pytest.fixture(scope="module")
def vila(vila_document_data):
    return parse_document(vila_document_data())


# -- worked examples of the spec ------------------------------------------------------------------


def test_agr_ph_of_vila_pair_1_is_six_eighths(vila):
    assert agr_ph(vila.phenomena["B"], vila.phenomena["C"], tagset=vila.tagset) == 0.75


def test_agr_w_of_synthetic_analytic_is_five_eighths(vila):
    assert by_type(vila.phenomena["B"], vila.phenomena["C"], measure="w", tagset=vila.tagset)[SA] == 0.625


def test_agr_partial_o_of_vila_pair_1_is_ten_fourteenths(vila):
    s = tpo_scores(vila.phenomena["B"], vila.phenomena["C"])
    assert (s.count_xy, s.count_yx) == (5, 5)
    assert s.f1_x == s.f1_y == pytest.approx(10 / 14, abs=1e-15)
    assert s.agr_o == pytest.approx(10 / 14, abs=1e-15)


def test_do_overlapping_synthetic_analytic_example(ph):
    b = ph("p1", SA, range(6), [0, 1], "local")
    c = ph("p1", SA, [1, 2, 3], [0, 1], "local")
    assert overlapping(b, c, one_sided=False) == 0.75
    assert overlapping(c, b, one_sided=False) == 1.0


def test_do_overlapping_one_sided_example(ph):
    b = ph("p1", AD, [3, 4], [])
    c = ph("p1", AD, [4], [])
    assert overlapping(b, c, one_sided=True) == 0.5


def test_do_overlapping_keys_only_in_x_are_penalised_keys_only_in_y_are_not(ph):
    b = ph("p1", SA, [1, 2], [3], "local", key1=[2])
    c = ph("p1", SA, [1, 2], [3], "local")
    assert overlapping(b, c, one_sided=False) == 0.875
    assert overlapping(c, b, one_sided=False) == 1.0


def test_do_k_components_of_vila_reconstruction(vila):
    # K_B = (0.75 + 0.6667 + 0 + 1 + 1 + 1)/6; components 0.67 (SUB&NEST) and 0 (DERIVATIONAL)
    k_b, k_c = do_k(vila.phenomena["B"], vila.phenomena["C"], tagset=vila.tagset)
    assert k_b == pytest.approx((0.75 + 2 / 3 + 0 + 1 + 1 + 1) / 6, abs=1e-12)
    assert k_c == 0.625
    assert do_f1(vila.phenomena["B"], vila.phenomena["C"], tagset=vila.tagset) == pytest.approx(
        0.6760204081632653, abs=1e-12
    )


def test_projection_mismatch_scales_by_three_quarters(ph):
    x = ph("p", SA, [1], [1], "local")
    y = ph("p", SA, [1], [1], "global")
    assert overlapping(x, y, one_sided=False) == 0.75
    assert overlapping(ph("p", SA, [1], [1], None), ph("p", SA, [1], [1], None), one_sided=False) == 1.0


def test_different_type_or_pair_never_overlaps(ph):
    x = ph("p", SA, [1], [1])
    assert overlapping(x, ph("p", "ORDER", [1], [1]), one_sided=False) == 0.0
    assert overlapping(x, ph("q", SA, [1], [1]), one_sided=False) == 0.0
    assert not partial_overlap(x, ph("p", "ORDER", [1], [1]))
    assert total_overlap(x, ph("p", SA, [1], [1], "global", key1=[1]))  # projection and keys ignored


def test_variants_of_vila_reconstruction_match_the_spec_case(vila):
    b, c, t = vila.phenomena["B"], vila.phenomena["C"], vila.tagset
    assert agr_ph(b, c, typewise=True, tagset=t) == pytest.approx(5 / 9)
    assert agr_w(b, c, tagset=t) == 1.0
    assert agr_w(b, c, typewise=True, tagset=t) == pytest.approx(0.4768518518518518)
    assert do_f1(b, c, typewise=True, tagset=t) == pytest.approx(0.5174603174603174)
    assert do_f1(b, c, pairwise=True, typewise=True, tagset=t) == pytest.approx(0.5174603174603174)
    assert tpo_scores(b, c, criterion="total").agr_o == pytest.approx(6 / 14)


# -- definitions and degenerate cases -------------------------------------------------------------


def test_agr_n_is_undefined_when_both_counts_are_zero():
    assert agr_n(0, 0) is None
    assert agr_n(0, 3) == 0.0


def test_harmonic_mean_policy():
    assert harmonic_mean(0.0, 0.0) == 0.0
    assert harmonic_mean(None, 1.0) is None
    assert harmonic_mean(1.0, 0.8) == pytest.approx(0.888888888888889)


def test_empty_annotators_give_none_everywhere():
    assert agr_ph([], []) is None
    assert agr_w([], [], typewise=True) is None
    assert do_f1([], []) is None
    s = tpo_scores([], [])
    assert (s.f1_x, s.f1_y, s.agr_o, s.f1_alt) == (None, None, None, None)


def test_one_empty_side_gives_zero_not_none(ph):
    x = [ph("p", SA, [1], [1])]
    assert do_f1(x, []) == 0.0
    assert do_k(x, []) == (0.0, None)
    s = tpo_scores(x, [])
    assert (s.f1_x, s.f1_y, s.agr_o, s.f1_alt) == (0.0, 0.0, 0.0, 0.0)


def test_hoo_directional_f1_can_exceed_one_but_agr_o_cannot(ph):
    xs = [ph("p", SA, [1], [1]), ph("p", SA, [2], [2]), ph("p", SA, [3], [3])]
    ys = [ph("p", SA, [1, 2, 3], [1, 2, 3])]
    s = tpo_scores(xs, ys)
    assert s.f1_x == 2 * 3 / 4 > 1
    assert s.agr_o == 1.0
    assert s.f1_alt == 1.0  # HM(3/3, 1/1)


def test_f1_alt_differs_when_counts_differ(ph):
    xs = [ph("p", SA, [1], [1]), ph("p", SA, [5], [5])]
    ys = [ph("p", SA, [1, 2], [1])]
    s = tpo_scores(xs, ys)
    assert (s.count_xy, s.count_yx) == (1, 1)
    assert s.agr_o == pytest.approx(2 / 3)
    assert s.f1_alt == pytest.approx(harmonic_mean(1 / 2, 1 / 1))


def test_pairwise_skips_pairs_neither_annotated_and_averages_the_rest(ph):
    xs = [ph("p", SA, [1], [1]), ph("q", SA, [1], [1]), ph("q", SA, [2], [2])]
    ys = [ph("p", SA, [1], [1]), ph("q", SA, [1], [1])]
    assert agr_ph(xs, ys) == pytest.approx(2 / 3)
    assert agr_ph(xs, ys, pairwise=True) == pytest.approx((1 + 0.5) / 2)


def test_pairwise_typewise_averages_types_within_a_pair_first(ph):
    # pair p: SA 1, ORDER 0, PUNCT 0 → 1/3; pair q: SA 1/2. Mean of pairs 5/12 (flat mean of cells: 3/8)
    xs = [
        ph("p", SA, [1], [1]),
        ph("p", "ORDER", [2], [2]),
        ph("p", "PUNCT", [3], [3]),
        ph("q", SA, [1], [1]),
    ]
    ys = [ph("p", SA, [1], [1]), ph("q", SA, [1], [1]), ph("q", SA, [2], [2])]
    pair_p = (1 + 0 + 0) / 3
    pair_q = 0.5
    assert agr_ph(xs, ys, pairwise=True, typewise=True) == pytest.approx((pair_p + pair_q) / 2)


def test_agr_w_counts_overlapping_scopes_of_one_annotator_once(ph):
    xs = [ph("p", SA, [1, 2], [1]), ph("p", "ORDER", [2, 3], [1])]  # tokens (1,1),(1,2),(1,3),(2,1) → 4
    ys = [ph("p", SA, [1, 2, 3, 4, 5, 6, 7], [])]  # 7
    assert agr_w(xs, ys) == pytest.approx(4 / 7)


def test_keys_are_not_counted_as_words(ph):
    xs = [ph("p", SA, [1], [1], key1=[5, 6])]
    ys = [ph("p", SA, [1], [1])]
    assert agr_w(xs, ys) == 1.0


def test_do_factor_a_counts_the_members_with_a_scope_not_the_type_flag(ph):
    """Spec 1.1: a = 1/(members in which x has a scope); the one_sided flag no longer matters."""
    x, y = [ph("p", "X", [3, 4], [])], [ph("p", "X", [4], [])]
    one = Tagset((TypeDef("X", one_sided=True),))
    two = Tagset((TypeDef("X", one_sided=False),))
    assert do_k(x, y, tagset=one)[0] == 0.5
    assert do_k(x, y, tagset=two)[0] == 0.5  # 0.25 under spec 1.0


def test_do_identical_one_sided_phenomena_of_a_two_sided_type_agree_fully(ph):
    """ETPC's one-sided Negation: identical phenomena score 1 (spec 1.0 gave 0.5)."""
    neg = [ph("p", "Negation switching", [], [2])]
    assert do_f1(neg, list(neg)) == 1.0
    assert overlapping(neg[0], neg[0]) == 1.0


def test_do_two_sided_against_one_sided_is_weighted_by_each_side(ph):
    """Spec case do_any_sided_extremes: A two-sided (a = 0.5) vs B one-sided (a = 1)."""
    a = ph("p", "Non-paraphrase", [0, 1], [0])
    b = ph("p", "Non-paraphrase", [0, 1], [])
    assert overlapping(a, b) == 0.5
    assert overlapping(b, a) == 1.0


def test_overlapping_rejects_both_scopes_for_a_one_sided_type(ph):
    with pytest.raises(ValueError, match="one-sided but both scopes"):
        overlapping(ph("p", AD, [1], [1]), ph("p", AD, [1], []), one_sided=True)


def test_max_over_candidates_in_do(ph):
    x = [ph("p", SA, [1, 2], [1])]
    ys = [ph("p", SA, [1], [9]), ph("p", SA, [1, 2], [1])]
    assert do_k(x, ys)[0] == 1.0


# -- validation -----------------------------------------------------------------------------------


def test_non_phenomenon_input_is_rejected_with_position(ph):
    with pytest.raises(ValueError, match=r"a\[1\] must be a Phenomenon"):
        agr_ph([ph("p", SA, [1])], [])  # fine
        agr_ph([ph("p", SA, [1]), "x"], [])  # type: ignore[list-item]


def test_unknown_type_with_a_tagset_is_rejected(ph):
    with pytest.raises(ValueError, match="not in the tagset"):
        do_f1([ph("p", "NOPE", [1])], [], tagset=Tagset((TypeDef(SA),)))


def test_empty_scopes_are_rejected(ph):
    with pytest.raises(ValueError, match="both scopes are empty"):
        agr_ph([ph("p", SA)], [])


def test_negative_index_is_rejected(ph):
    with pytest.raises(ValueError, match="non-negative"):
        agr_ph([ph("p", SA, [-1])], [])


def test_bad_criterion_is_rejected():
    with pytest.raises(ValueError, match="criterion"):
        agr_o([], [], criterion="fuzzy")  # type: ignore[arg-type]


def test_docstring_examples_reproduce_their_numbers():
    import doctest

    import metrics.iapta
    import metrics.kappa
    import metrics.reeval

    for module in (metrics.iapta, metrics.kappa, metrics.reeval):
        assert doctest.testmod(module).failed == 0, module.__name__
