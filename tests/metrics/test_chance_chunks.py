"""κ_C's Monte Carlo cut into chunks (metrics.chance.kappa_c_chunks / chance_chunk): whatever the cut,
the per-item results, π̂0 and the report equal the single-stream recipe's, bit for bit."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.chance import (
    ChanceChunk,
    _chance_items,
    chance_chunk,
    chance_concordance,
    chance_draws,
    kappa_c,
    kappa_c_chunks,
    kappa_c_report,
    split_items,
)
from metrics.synthetic import synthetic_document
from metrics.types import Options
from tests.metrics.test_chance import random_pair

J = 7


def random_items(seed: int, n: int) -> tuple[list, list[float], list[float]]:
    rng = np.random.default_rng(seed)
    pairs = [random_pair(rng, f"p{k}") for k in range(n)]
    # p in {0, 1} now and then: the recipe draws both arrays anyway, so the stream must still advance
    probs = [[float(rng.choice([0.0, 1.0, rng.random() * 0.4])) for _ in pairs] for _ in range(2)]
    return pairs, probs[0], probs[1]


def chunks_at(
    cuts: list[int], pairs: list, p_a: list[float], p_b: list[float], seed: int
) -> list[ChanceChunk]:
    bounds = sorted({0, len(pairs), *(c % (len(pairs) + 1) for c in cuts)})
    out = []
    for start, stop in zip(bounds, bounds[1:], strict=False):
        offset = sum(chance_draws(p, J) for p in pairs[:start])
        out.append(
            ChanceChunk(
                "A|B",
                start,
                offset,
                tuple(pairs[start:stop]),
                tuple(p_a[start:stop]),
                tuple(p_b[start:stop]),
                J,
                seed,
                "exact",
            )
        )
    return out


@settings(max_examples=40, deadline=None)
@given(
    data_seed=st.integers(0, 2**16),
    n=st.integers(1, 9),
    cuts=st.lists(st.integers(0, 10), max_size=6),
    mc_seed=st.integers(0, 2**63),
)
def test_chunks_at_any_boundaries_equal_the_single_stream_bit_for_bit(
    data_seed: int, n: int, cuts: list[int], mc_seed: int
) -> None:
    pairs, p_a, p_b = random_items(data_seed, n)
    want_means, want_vars = _chance_items(pairs, p_a, p_b, J, mc_seed, "exact")
    means: list[float] = []
    variances: list[float] = []
    for chunk in chunks_at(cuts, pairs, p_a, p_b, mc_seed):
        got = chance_chunk(chunk)
        means += got[0]
        variances += got[1]
    assert means == want_means and variances == want_vars  # exact float equality, item by item
    single = chance_concordance(pairs, p_a, p_b, mc_samples=J, mc_seed=mc_seed)
    combined = kappa_c(
        [p.initial_alignment for p in pairs],
        [frozenset() for _ in pairs],
        pairs,
        mc_samples=J,
        mc_seed=mc_seed,
        chance_items=(means, variances),
    )
    assert (combined.pi_0, combined.pi0_se) == single


@settings(max_examples=30, deadline=None)
@given(data_seed=st.integers(0, 2**16), n=st.integers(1, 9), max_draws=st.integers(1, 4000))
def test_split_items_covers_the_items_in_order_within_the_budget(
    data_seed: int, n: int, max_draws: int
) -> None:
    pairs, p_a, p_b = random_items(data_seed, n)
    chunks = split_items(
        "A|B", pairs, p_a, p_b, max_draws=max_draws, mc_samples=J, mc_seed=3, identical_match="exact"
    )
    assert [p for c in chunks for p in c.pairs] == pairs
    assert [c.start for c in chunks] == [sum(len(x.pairs) for x in chunks[:k]) for k in range(len(chunks))]
    for c in chunks:
        assert c.offset == sum(chance_draws(p, J) for p in pairs[: c.start])
        assert c.draws <= max_draws or len(c.pairs) == 1
    joined = [x for c in chunks for x in chance_chunk(c)[0]]
    assert joined == _chance_items(pairs, p_a, p_b, J, 3, "exact")[0]


@pytest.mark.parametrize("max_draws", [1, 5_000, 60_000, 10**9])
def test_report_from_chunks_equals_the_single_process_report(max_draws: int) -> None:
    doc = synthetic_document(n_pairs=7, n_annotators=3, phenomena_per_pair=1, words=6, seed=4)
    doc = dataclasses.replace(doc, options=Options(mc_samples=12, mc_seed=9))
    plan = kappa_c_chunks(doc, max_draws=max_draws)
    assert sorted(plan) == ["A1|A2", "A1|A3", "A2|A3"]
    chance = {}
    for key, chunks in plan.items():
        # through JSON, as the chunks travel to the workers and back
        results = [chance_chunk(ChanceChunk.from_dict(json.loads(json.dumps(c.as_dict())))) for c in chunks]
        chance[key] = ([x for r in results for x in r[0]], [x for r in results for x in r[1]])
    assert kappa_c_report(doc, chance=chance) == kappa_c_report(doc)


def test_pairs_decided_without_sampling_get_no_chunks() -> None:
    doc = synthetic_document(n_pairs=3, n_annotators=2, phenomena_per_pair=1, words=5, seed=1)
    first = doc.pairs[0]
    doc = dataclasses.replace(doc, pairs=(dataclasses.replace(first, initial_alignment=None), *doc.pairs[1:]))
    assert kappa_c_chunks(doc, max_draws=1000) == {}


def test_chance_items_of_the_wrong_length_are_rejected() -> None:
    pairs, _, _ = random_items(0, 3)
    with pytest.raises(ValueError, match="one mean and one variance per item"):
        kappa_c([frozenset()] * 3, [frozenset()] * 3, pairs, mc_samples=J, chance_items=([0.5], [0.0]))


def test_malformed_chunk_is_rejected_with_the_field() -> None:
    with pytest.raises(ValueError, match="malformed field.*pr_edit_a"):
        ChanceChunk.from_dict({"key": "A|B", "start": 0, "offset": 0, "pairs": []})
    pairs, p_a, p_b = random_items(1, 2)
    chunk = chunks_at([], pairs, p_a, p_b, 0)[0]
    with pytest.raises(ValueError, match=r"pr_edit_a\[0\] must lie in \[0, 1\]"):
        chance_chunk(dataclasses.replace(chunk, pr_edit_a=(1.5, *chunk.pr_edit_a[1:])))
