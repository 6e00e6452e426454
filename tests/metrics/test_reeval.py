"""Re-evaluation sets (spec §7): round-half-up sample sizes and the normative PCG64 recipe."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.reeval import reevaluation_sets, sample_size
from metrics.types import Judgement


def test_ten_percent_sample_sizes_of_fujita():
    assert sample_size(167, 1000, fraction=0.1) == 17
    assert sample_size(222, 1000, fraction=0.1) == 22
    assert sample_size(25, 1000, fraction=0.1) == 3  # 2.5 rounds up, not to even
    assert sample_size(15, 1000, fraction=0.1) == 2
    assert sample_size(14, 1000, fraction=0.1) == 1


def test_sample_size_is_capped_by_the_agreeing_items():
    assert sample_size(100, 4, fraction=0.1) == 4


def test_sample_size_rounds_the_decimal_fraction_half_up():
    assert sample_size(90, 100, fraction=0.35) == 32  # 31.5 exactly, though 0.35*90 = 31.4999… in binary


def judgements_for(rater_items):
    """Three raters per item; items starting with 'd' disagree on G2 (one rater says Irredeemable)."""
    out = []
    for item in rater_items:
        for n, r in enumerate(("R1", "R2", "R3")):
            g = "Irredeemable" if item.startswith("d") and n == 2 else "Perfect"
            out.append(Judgement(item, r, g, "Equivalent"))
    return out


def test_sets_follow_the_normative_recipe_exactly():
    items = [f"a{i:03d}" for i in range(30)] + [f"d{i:03d}" for i in range(15)]
    sets = reevaluation_sets(judgements_for(items), viewpoint="G", seed=11, fraction=0.1)
    s = sets["R1"]
    assert list(s.disagreement) == [f"d{i:03d}" for i in range(15)]
    assert list(s.agreeing) == [f"a{i:03d}" for i in range(30)]
    rng = np.random.Generator(np.random.PCG64(11))
    idx = rng.choice(30, size=2, replace=False)
    assert list(s.sampled) == [s.agreeing[t] for t in idx]
    order = list(s.disagreement) + list(s.sampled)
    perm = rng.permutation(len(order))
    assert list(s.order) == [order[t] for t in perm]
    assert sets["R2"] == sets["R1"]  # same items, fresh generator per rater


def test_no_disagreement_gives_empty_sets():
    sets = reevaluation_sets(judgements_for(["a1", "a2"]), viewpoint="M", seed=0, fraction=0.1)
    assert sets["R1"].disagreement == () and sets["R1"].sampled == () and sets["R1"].order == ()
    assert sets["R1"].agreeing == ("a1", "a2")


def test_items_with_one_judgement_are_neither_agreeing_nor_disagreeing():
    sets = reevaluation_sets([Judgement("x", "R1", "Perfect", None)], viewpoint="G", raters=["R1", "R9"])
    assert sets["R1"].agreeing == () and sets["R9"].order == ()


def test_invalid_viewpoint_and_seed_are_rejected():
    with pytest.raises(ValueError, match="viewpoint"):
        reevaluation_sets([], viewpoint="X")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        reevaluation_sets([], viewpoint="G", seed=-1)
