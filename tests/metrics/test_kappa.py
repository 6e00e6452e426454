"""Fleiss' κ, Cohen's κ and Krippendorff's α (spec §7), cross-checked against statsmodels,
scikit-learn and the krippendorff package on seeded random data (to 1e-9)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from metrics.kappa import (
    cohen_kappa,
    cohen_kappa_pairs,
    fleiss_kappa,
    fleiss_kappa_from_ratings,
    krippendorff_alpha,
    krippendorff_alpha_from_counts,
)

TOL = 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_fleiss_equals_statsmodels_with_constant_n(seed):
    rng = np.random.default_rng(seed)
    n_raters = int(rng.integers(2, 7))
    data = rng.integers(0, int(rng.integers(2, 7)), size=(int(rng.integers(5, 200)), n_raters))
    table = aggregate_raters(data)[0]
    expected = sm_fleiss_kappa(table, method="fleiss")
    result = fleiss_kappa(table)
    assert result.n_items == len(data)
    assert result.kappa == pytest.approx(expected, abs=TOL)
    raw = fleiss_kappa_from_ratings(np.repeat(np.arange(len(data)), n_raters), data.ravel())
    assert raw.kappa == pytest.approx(expected, abs=TOL)


def test_fleiss_with_string_labels_and_string_items():
    items = ["a", "a", "a", "b", "b", "b"]
    labels = ["OK", "OK", "NG", "NG", "NG", "NG"]
    table = aggregate_raters(np.array([[1, 1, 0], [0, 0, 0]]))[0]
    assert fleiss_kappa_from_ratings(items, labels).kappa == pytest.approx(
        sm_fleiss_kappa(table, method="fleiss")
    )


def test_fleiss_with_variable_n_follows_the_spec_formula():
    table = np.array([[2, 0], [1, 1], [3, 1], [0, 1]])  # last item has one judgement: left out
    kept = table[:3]
    n_i = kept.sum(1)
    p_i = (kept * (kept - 1)).sum(1) / (n_i * (n_i - 1))
    p_j = kept.sum(0) / n_i.sum()
    p_e = (p_j**2).sum()
    result = fleiss_kappa(table)
    assert result.n_items == 3
    assert result.kappa == pytest.approx((p_i.mean() - p_e) / (1 - p_e), abs=1e-15)


def test_fleiss_is_undefined_for_a_single_category_or_no_items():
    assert fleiss_kappa([[3, 0], [2, 0]]).kappa is None
    assert fleiss_kappa(np.zeros((0, 2))).kappa is None
    assert fleiss_kappa([[1, 0]]).n_items == 0


def test_fleiss_rejects_bad_tables():
    with pytest.raises(ValueError, match="2-D"):
        fleiss_kappa([1, 2, 3])
    with pytest.raises(ValueError, match="non-negative integer"):
        fleiss_kappa([[1.5, 2]])


@pytest.mark.parametrize("seed", range(8))
def test_cohen_equals_sklearn(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 300))
    k = int(rng.integers(2, 6))
    y1, y2 = rng.integers(0, k, n), rng.integers(0, k, n)
    y2 = np.where(rng.random(n) < 0.5, y1, y2)
    assert cohen_kappa(list(y1), list(y2)) == pytest.approx(cohen_kappa_score(y1, y2), abs=TOL)


def test_cohen_pairs_with_missing_equal_sklearn_on_common_items():
    rng = np.random.default_rng(7)
    m = rng.integers(0, 4, size=(400, 5))
    m[rng.random(m.shape) < 0.3] = -1
    for (r1, r2), (kappa, n) in cohen_kappa_pairs(m).items():
        both = (m[:, r1] >= 0) & (m[:, r2] >= 0)
        assert n == both.sum()
        assert kappa == pytest.approx(cohen_kappa_score(m[both, r1], m[both, r2]), abs=TOL)


def test_cohen_is_undefined_without_items_or_with_one_label():
    assert cohen_kappa([], []) is None
    assert cohen_kappa(["OK", "OK"], ["OK", "OK"]) is None
    assert cohen_kappa_pairs(np.array([[0, -1], [-1, 1]]))[0, 1] == (None, 0)


def test_cohen_published_style_example():
    assert cohen_kappa(["OK", "OK", "NG", "NG"], ["OK", "NG", "NG", "NG"]) == 0.5


@pytest.mark.parametrize("seed", range(8))
def test_krippendorff_nominal_equals_the_krippendorff_package(seed):
    rng = np.random.default_rng(200 + seed)
    data = rng.integers(
        0, int(rng.integers(2, 6)), size=(int(rng.integers(2, 7)), int(rng.integers(5, 120)))
    ).astype(float)
    data[rng.random(data.shape) < 0.4] = np.nan
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert krippendorff_alpha(data) == pytest.approx(expected, abs=TOL)


def test_krippendorff_handles_string_labels_and_none():
    data = [["a", None, "b", "b"], ["a", "b", "b", None], [None, "b", "a", "b"]]
    coded = [[0, np.nan, 1, 1], [0, 1, 1, np.nan], [np.nan, 1, 0, 1]]
    expected = krippendorff.alpha(reliability_data=coded, level_of_measurement="nominal")
    assert krippendorff_alpha(data) == pytest.approx(expected, abs=TOL)


def test_krippendorff_undefined_cases():
    assert krippendorff_alpha_from_counts([[2, 0], [3, 0]]) is None  # one value only
    assert krippendorff_alpha_from_counts([[1, 0], [0, 1]]) is None  # nothing pairable
    assert krippendorff_alpha([[1, 2, 1], [1, 2, 2]]) == pytest.approx(0.4444444444444444)
