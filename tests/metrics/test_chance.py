"""κ_C: concordance, edit model, the normative Monte Carlo recipe and the report (spec §5.4)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from metrics.alignment import non_identical_atomic_pairs
from metrics.chance import (
    EditModel,
    _chance_items,
    chance_concordance,
    concordance,
    concordance_fraction,
    edit_rate,
    fit_edit_model,
    kappa_c,
    kappa_c_from_items,
    kappa_c_report,
)
from metrics.document import load_document
from metrics.types import Document, Options, Pair, WordAlignment

K1 = Pair(
    "k1",
    ("he", "bought", "a", "car"),
    ("he", "purchased", "an", "automobile"),
    frozenset({(0, 0), (1, 1), (3, 3)}),
)
K2 = Pair("k2", ("big", "dog", "barked"), ("large", "hound", "howled", "loudly"), frozenset({(0, 0), (2, 2)}))


def literal_pi0(
    pairs: list[Pair], p_a: list[float], p_b: list[float], j: int, seed: int
) -> tuple[float, float]:
    """The spec's recipe, one draw at a time, with sets: the reference for the vectorized code."""
    rng = np.random.Generator(np.random.PCG64(seed))
    means, variances = [], []
    for pair, pa, pb in zip(pairs, p_a, p_b, strict=True):
        n, m = len(pair.tokens1), len(pair.tokens2)
        initial = np.zeros((n, m), dtype=bool)
        for i, k in pair.initial_alignment or ():
            initial[i, k] = True
        conc = []
        for _ in range(j):
            ua = rng.random((n, m))
            ub = rng.random((n, m))
            sa = {(int(x), int(y)) for x, y in zip(*np.nonzero(initial ^ (ua < pa)), strict=True)}
            sb = {(int(x), int(y)) for x, y in zip(*np.nonzero(initial ^ (ub < pb)), strict=True)}
            conc.append(
                concordance(
                    non_identical_atomic_pairs(sa, pair.tokens1, pair.tokens2),
                    non_identical_atomic_pairs(sb, pair.tokens1, pair.tokens2),
                )
            )
        means.append(sum(conc) / j)
        variances.append(float(np.var(conc, ddof=1)))
    return sum(means) / len(pairs), math.sqrt(sum(variances) / j) / len(pairs)


def random_pair(rng: np.random.Generator, name: str) -> Pair:
    n, m = int(rng.integers(3, 9)), int(rng.integers(3, 9))
    words = ["a", "b", "c", "d", "e"]
    initial = frozenset((i, min(m - 1, i)) for i in range(n) if rng.random() < 0.8)
    return Pair(
        name,
        tuple(str(rng.choice(words)) for _ in range(n)),
        tuple(str(rng.choice(words)) for _ in range(m)),
        initial,
    )


def test_concordance_definition() -> None:
    assert concordance({1, 2, 3}, {2, 3, 4, 5}) == 2 / 3
    assert concordance(set(), set()) == 1.0
    assert concordance({1}, set()) == 0.0 == concordance(set(), {1})


def test_one_array_of_draws_is_the_same_stream_as_successive_pairs_of_draws() -> None:
    j, n, m = 7, 3, 5
    together = np.random.Generator(np.random.PCG64(11)).random((j, 2, n, m))
    rng = np.random.Generator(np.random.PCG64(11))
    for s in range(j):
        assert np.array_equal(together[s, 0], rng.random((n, m)))
        assert np.array_equal(together[s, 1], rng.random((n, m)))


def test_edit_rate_counts_changed_cells() -> None:
    assert edit_rate(frozenset({(0, 0), (1, 1)}), frozenset({(0, 0), (1, 0)}), 2, 3) == 2 / 6
    assert edit_rate(frozenset(), frozenset(), 0, 3) is None


def test_edit_model_is_ordinary_least_squares() -> None:
    q, lengths = [0.01, 0.03, 0.02, 0.05], [10, 20, 15, 31]
    beta, alpha = np.polyfit(lengths, q, 1)
    model = fit_edit_model(q, lengths)
    assert model is not None
    assert (model.alpha, model.beta, model.n_items) == pytest.approx((alpha, beta, 4), abs=1e-12)


def test_edit_model_with_equal_lengths_has_zero_slope_and_mean_rate() -> None:
    assert fit_edit_model([0.1, 0.2, 0.6], [8, 8, 8]) == EditModel(pytest.approx(0.3), 0.0, 3)
    assert fit_edit_model([0.25], [9]) == EditModel(0.25, 0.0, 1)
    assert fit_edit_model([], []) is None


def test_edit_probability_is_clipped() -> None:
    model = EditModel(-0.5, 0.1, 2)
    assert model.pr_edit(2) == 0.0
    assert model.pr_edit(6) == pytest.approx(0.1)
    assert model.pr_edit(30) == 1.0


def test_nobody_edits_gives_pi0_exactly_1_and_reason_pi0_is_1() -> None:
    pairs = [K1, K2]
    links = [p.initial_alignment for p in pairs]
    result = kappa_c(links, links, pairs, mc_samples=50)
    assert result.pi_0 == 1.0
    assert result.pi_hat == 1.0
    assert result.pi0_se == 0.0
    assert (result.kappa, result.reason, result.n_items) == (None, "pi0_is_1", 2)


def test_deterministic_edit_probabilities_give_an_exact_pi0_for_any_seed() -> None:
    # a flips every cell (p = 1), b none (p = 0): every sample is the same pair of link sets
    pairs = [K1, K2]
    expected = []
    for pair in pairs:
        n, m = len(pair.tokens1), len(pair.tokens2)
        flipped = {(i, j) for i in range(n) for j in range(m)} - set(pair.initial_alignment or ())
        expected.append(
            concordance(
                non_identical_atomic_pairs(flipped, pair.tokens1, pair.tokens2),
                non_identical_atomic_pairs(pair.initial_alignment or (), pair.tokens1, pair.tokens2),
            )
        )
    for seed in (0, 1, 12345):
        pi_0, pi0_se = chance_concordance(pairs, [1.0, 1.0], [0.0, 0.0], mc_samples=20, mc_seed=seed)
        assert pi_0 == sum(expected) / 2
        assert pi0_se == 0.0


@pytest.mark.parametrize("seed", [0, 7])
def test_vectorized_monte_carlo_reproduces_the_literal_recipe(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pairs = [random_pair(rng, f"p{k}") for k in range(6)]
    p_a = [0.0, 0.05, 0.2, 0.5, 1.0, 0.1]
    p_b = [0.3, 0.01, 0.2, 0.0, 0.7, 0.1]
    got = chance_concordance(pairs, p_a, p_b, mc_samples=40, mc_seed=seed)
    want = literal_pi0(pairs, p_a, p_b, 40, seed)
    assert got == pytest.approx(want, abs=1e-12)


def test_kappa_is_chance_corrected_observed_agreement() -> None:
    rng = np.random.default_rng(5)
    pairs = [random_pair(rng, f"p{k}") for k in range(5)]
    a = [p.initial_alignment for p in pairs]
    b = [frozenset(set(p.initial_alignment or ()) ^ {(0, 1), (2, 2)}) for p in pairs]
    result = kappa_c(a, b, pairs, mc_samples=30)
    assert result.reason is None
    assert result.pi_hat is not None and result.pi_0 is not None
    assert result.kappa == pytest.approx((result.pi_hat - result.pi_0) / (1 - result.pi_0))


def test_concordance_fraction_divides_to_the_concordance_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        a = {int(x) for x in rng.integers(0, 9, size=rng.integers(0, 6))}
        b = {int(x) for x in rng.integers(0, 9, size=rng.integers(0, 6))}
        hits, smaller = concordance_fraction(a, b)
        assert hits / smaller == concordance(a, b)


def test_kappa_c_from_items_equals_kappa_c_from_the_links_bit_for_bit() -> None:
    rng = np.random.default_rng(11)
    pairs = [random_pair(rng, f"p{k}") for k in range(6)]
    a = [p.initial_alignment or frozenset() for p in pairs]
    b = [frozenset(set(p.initial_alignment or ()) ^ {(0, 1), (1, 2)}) for p in pairs]
    model_a, model_b = EditModel(0.3, -0.01, 6), EditModel(0.05, 0.002, 6)
    whole = kappa_c(a, b, pairs, model_a=model_a, model_b=model_b, mc_samples=25, mc_seed=4)
    shapes = [len(p.tokens1) + len(p.tokens2) for p in pairs]
    chance = _chance_items(
        pairs, [model_a.pr_edit(x) for x in shapes], [model_b.pr_edit(x) for x in shapes], 25, 4, "exact"
    )
    conc = [
        concordance(
            non_identical_atomic_pairs(x, p.tokens1, p.tokens2),
            non_identical_atomic_pairs(y, p.tokens1, p.tokens2),
        )
        for x, y, p in zip(a, b, pairs, strict=True)
    ]
    assert (
        kappa_c_from_items(conc[::-1], (chance[0][::-1], chance[1][::-1]), mc_samples=25) == whole
    )  # any order
    assert whole.reason is None and whole.kappa is not None


def test_kappa_c_from_items_degenerate_cases_and_bad_input() -> None:
    assert kappa_c_from_items([], None, mc_samples=5).reason == "no_items"
    bare = kappa_c_from_items([0.5, 1.0], None, mc_samples=5)
    assert (bare.pi_hat, bare.pi_0, bare.pi0_se, bare.kappa) == (0.75, None, None, None)
    assert (bare.reason, bare.n_items) == ("no_initial_alignment", 2)
    assert kappa_c_from_items([1.0], ([1.0], [0.0]), mc_samples=5).reason == "pi0_is_1"
    with pytest.raises(ValueError, match="one mean and one variance per item"):
        kappa_c_from_items([1.0, 0.5], ([1.0], [0.0]), mc_samples=5)
    with pytest.raises(ValueError, match=r"conc\[0\] must lie in \[0, 1\]"):
        kappa_c_from_items([1.5], None, mc_samples=5)


def test_missing_initial_alignment_nulls_pi0_but_keeps_pi_hat() -> None:
    bare = Pair("x", ("a", "b"), ("c", "d"))
    result = kappa_c([frozenset({(0, 0)})], [frozenset({(0, 0)})], [bare], mc_samples=10)
    assert (result.pi_hat, result.pi_0, result.pi0_se, result.kappa) == (1.0, None, None, None)
    assert result.reason == "no_initial_alignment"


def test_no_shared_items() -> None:
    assert kappa_c([], [], []).reason == "no_items"


def test_too_few_samples_is_rejected() -> None:
    with pytest.raises(ValueError, match="mc_samples"):
        chance_concordance([K1], [0.1], [0.1], mc_samples=1)


def test_report_shapes_and_edit_models_per_annotator() -> None:
    bare = Pair("x", ("a", "b"), ("c", "d"))
    wa = {
        "A": {"k1": WordAlignment(K1.initial_alignment or frozenset()), "k2": WordAlignment(frozenset())},
        "B": {"k1": WordAlignment(frozenset({(0, 0)})), "x": WordAlignment(frozenset({(0, 0)}))},
        "C": {"x": WordAlignment(frozenset({(1, 1)}))},
    }
    doc = Document(("A", "B", "C"), Options(mc_samples=20), pairs=(K1, K2, bare), word_alignments=wa)
    report = kappa_c_report(doc)
    assert report["kappa_c.n_items"] == {"by_pair": {"A|B": 1, "A|C": 0, "B|C": 1}}
    assert report["kappa_c.reason"]["by_pair"]["A|C"] == "no_items"
    assert report["kappa_c.reason"]["by_pair"]["B|C"] == "no_initial_alignment"
    assert report["kappa_c.pi_hat"]["by_pair"]["B|C"] == 0.0
    models = report["kappa_c.edit_model"]["by_annotator"]
    assert models["C"] is None
    assert models["A"]["n_items"] == 2 and models["B"]["n_items"] == 1
    # A: q = 0 on k1 (L = 8) and 2/12 on k2 (L = 7): slope -1/6 per token
    assert models["A"]["beta"] == pytest.approx(-1 / 6)
    assert set(report["kappa_c.pi0_se"]) == {"by_pair"}
    assert report["kappa_c"]["value"] == report["kappa_c"]["by_pair"]["A|B"]


def test_report_with_one_annotator_omits_by_pair() -> None:
    wa = {"A": {"k1": WordAlignment(frozenset({(0, 0)}))}}
    report = kappa_c_report(Document(("A", "B"), Options(mc_samples=5), pairs=(K1,), word_alignments=wa))
    assert report["kappa_c"] == {"value": None}
    assert report["kappa_c.reason"] == {}
    assert report["kappa_c.edit_model"]["by_annotator"]["A"]["n_items"] == 1


@pytest.mark.corpora
@pytest.mark.parametrize(
    "case", ["kappa_c_no_edits", "phrase_pairs_atomic_composite", "word_alignment_sure_possible"]
)
def test_spec_cases(case: str, shared_specs: Path) -> None:
    cases = shared_specs / "cases"
    expected = json.loads((cases / f"{case}.expected.json").read_text())["measures"]
    report = kappa_c_report(load_document(cases / f"{case}.json"))
    for key, want in expected.items():
        if key.startswith("kappa_c"):
            assert_close(report[key], want, key)


def assert_close(got: object, want: object, where: str) -> None:
    """Nested comparison as in the spec's compare.py: numbers within 1e-9, null must be null."""
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        for k, v in want.items():
            assert k in got, f"{where}.{k} missing"
            assert_close(got[k], v, f"{where}.{k}")
    elif isinstance(want, (int, float)) and not isinstance(want, bool):
        assert isinstance(got, (int, float)) and abs(got - want) <= 1e-9 + 1e-9 * abs(want), where
    else:
        assert got == want, where
