"""Phrase-pair extraction and atomic/composite pairs (spec §5.2), checked against a literal reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.phrases import (
    PhrasePair,
    atomic_phrase_pairs,
    atomic_spans,
    extract_phrase_pairs,
    is_extracted,
    is_identical_phrase_pair,
    link_bounds,
    split_phrase_pairs,
    validate_links,
)

# "and reached an agreement" / "and arrived at a deal", "an" unaligned (Cohn et al. 2008)
COHN = {(0, 0), (1, 1), (1, 2), (3, 4)}
# gapped block: a–A, a–C, c–A around b–B
GAPPED = {(0, 0), (0, 2), (2, 0), (1, 1)}


def brute_extract(links: set[tuple[int, int]], n: int, m: int) -> set[PhrasePair]:
    """Every span pair checked against the definition, condition by condition."""
    out = set()
    sources = {i for i, _ in links}
    targets = {j for _, j in links}
    for i1 in range(n):
        for i2 in range(i1, n):
            for j1 in range(m):
                for j2 in range(j1, m):
                    inside = [(i, j) for i, j in links if i1 <= i <= i2 and j1 <= j <= j2]
                    consistent = all((i1 <= i <= i2) == (j1 <= j <= j2) for i, j in links)
                    boundaries = {i1, i2} <= sources and {j1, j2} <= targets
                    if inside and consistent and boundaries:
                        out.add(PhrasePair(i1, i2, j1, j2))
    return out


def brute_atomic(links: set[tuple[int, int]], n: int, m: int) -> set[PhrasePair]:
    """Composite iff every link inside lies inside a strictly smaller extracted pair contained in it."""
    extracted = brute_extract(links, n, m)
    atomic = set()
    for p in extracted:
        smaller = [
            q for q in extracted if q != p and p.i1 <= q.i1 and q.i2 <= p.i2 and p.j1 <= q.j1 and q.j2 <= p.j2
        ]
        inside = [(i, j) for i, j in links if p.i1 <= i <= p.i2 and p.j1 <= j <= p.j2]
        if not all(any(q.i1 <= i <= q.i2 and q.j1 <= j <= q.j2 for q in smaller) for i, j in inside):
            atomic.add(p)
    return atomic


@st.composite
def link_sets(draw: st.DrawFn, max_len: int = 7) -> tuple[set[tuple[int, int]], int, int]:
    n = draw(st.integers(0, max_len))
    m = draw(st.integers(0, max_len))
    cells = [(i, j) for i in range(n) for j in range(m)]
    links = draw(st.sets(st.sampled_from(cells), max_size=len(cells))) if cells else set()
    return links, n, m


def test_cohn_example_and_reached_and_arrived_at_is_extracted_and_composite() -> None:
    atomic, composite = split_phrase_pairs(COHN, 4, 5)
    assert PhrasePair(0, 1, 0, 2) in composite  # and reached ↔ and arrived at
    assert PhrasePair(1, 1, 1, 2) in atomic  # reached ↔ arrived at


def test_cohn_example_inconsistent_pair_is_not_extracted() -> None:
    assert PhrasePair(0, 1, 0, 1) not in extract_phrase_pairs(COHN, 4, 5)  # and reached ↔ and arrived


def test_cohn_example_unaligned_boundary_word_blocks_extraction() -> None:
    assert PhrasePair(0, 2, 0, 2) not in extract_phrase_pairs(COHN, 4, 5)  # and reached an ↔ and arrived at


def test_cohn_example_full_extraction() -> None:
    assert extract_phrase_pairs(COHN, 4, 5) == {
        PhrasePair(0, 0, 0, 0),
        PhrasePair(1, 1, 1, 2),
        PhrasePair(3, 3, 4, 4),
        PhrasePair(0, 1, 0, 2),
        PhrasePair(1, 3, 1, 4),
        PhrasePair(0, 3, 0, 4),
    }
    assert atomic_phrase_pairs(COHN, 4, 5) == {
        PhrasePair(0, 0, 0, 0),
        PhrasePair(1, 1, 1, 2),
        PhrasePair(3, 3, 4, 4),
    }


def test_gapped_block_is_atomic_although_it_contains_a_smaller_pair() -> None:
    atomic, composite = split_phrase_pairs(GAPPED, 3, 3)
    assert atomic == {PhrasePair(0, 2, 0, 2), PhrasePair(1, 1, 1, 1)}
    assert composite == set()


def test_monotone_alignment_has_single_links_as_atomic_pairs() -> None:
    links = {(k, k) for k in range(5)}
    assert len(extract_phrase_pairs(links, 5, 5)) == 15
    assert atomic_phrase_pairs(links, 5, 5) == {PhrasePair(k, k, k, k) for k in range(5)}


def test_empty_alignment_extracts_nothing() -> None:
    assert extract_phrase_pairs(set(), 3, 4) == set()
    assert atomic_phrase_pairs(set(), 3, 4) == set()
    assert extract_phrase_pairs(set(), 0, 0) == set()


@settings(max_examples=300, deadline=None)
@given(link_sets())
def test_extraction_matches_the_literal_definition(case: tuple[set[tuple[int, int]], int, int]) -> None:
    links, n, m = case
    assert extract_phrase_pairs(links, n, m) == brute_extract(links, n, m)


@settings(max_examples=300, deadline=None)
@given(link_sets())
def test_atomic_pairs_match_the_literal_definition(case: tuple[set[tuple[int, int]], int, int]) -> None:
    links, n, m = case
    assert atomic_phrase_pairs(links, n, m) == brute_atomic(links, n, m)


@settings(max_examples=100, deadline=None)
@given(link_sets())
def test_is_extracted_agrees_with_extraction(case: tuple[set[tuple[int, int]], int, int]) -> None:
    links, n, m = case
    extracted = extract_phrase_pairs(links, n, m)
    bounds = link_bounds(links, n, m)
    for i1 in range(n):
        for i2 in range(i1, n):
            for j1 in range(m):
                for j2 in range(j1, m):
                    q = PhrasePair(i1, i2, j1, j2)
                    assert is_extracted(q, bounds) == (q in extracted)


def test_batched_atomic_spans_equal_one_set_at_a_time() -> None:
    rng = np.random.default_rng(3)
    x = rng.random((40, 6, 9)) < 0.2
    lo, hi, j1, j2 = atomic_spans(x)
    for s in range(len(x)):
        links = {(int(i), int(j)) for i, j in zip(*np.nonzero(x[s]), strict=True)}
        found = {PhrasePair(*q) for q in zip(lo[s], hi[s], j1[s], j2[s], strict=True) if q[0] >= 0}
        assert found == brute_atomic(links, 6, 9)


def test_identical_phrase_pairs_exact_and_casefold() -> None:
    t1, t2 = ["The", "big", "dog"], ["the", "big", "dog", "."]
    assert is_identical_phrase_pair(PhrasePair(1, 2, 1, 2), t1, t2)
    assert not is_identical_phrase_pair(PhrasePair(0, 1, 0, 1), t1, t2)
    assert is_identical_phrase_pair(PhrasePair(0, 1, 0, 1), t1, t2, identical_match="casefold")
    assert not is_identical_phrase_pair(PhrasePair(1, 2, 1, 3), t1, t2)


@pytest.mark.parametrize(
    ("links", "message"),
    [
        ({(3, 0)}, "index 3 out of range for tokens1"),
        ({(0, 5)}, "index 5 out of range for tokens2"),
        ({(0, "1")}, "must be an integer"),
        ({(0, 1, 2)}, "must be a pair"),
        ({(True, 1)}, "must be an integer"),
        ({(-1, 1)}, "index -1 out of range for tokens1"),
    ],
)
@pytest.mark.parametrize("kind", [set, frozenset])
def test_invalid_links_are_rejected_with_a_precise_message(links: set, message: str, kind: type) -> None:
    with pytest.raises(ValueError, match=message):
        extract_phrase_pairs(kind(links), 3, 5)
    with pytest.raises(ValueError, match=message):
        validate_links(kind(links), 3, 5)


def test_valid_links_come_back_as_a_frozenset_of_int_pairs() -> None:
    assert validate_links([[0, 1], (np.int64(2), 4)], 3, 5) == frozenset({(0, 1), (2, 4)})
    plain = frozenset({(0, 1), (2, 4)})
    assert validate_links(plain, 3, 5) == plain
