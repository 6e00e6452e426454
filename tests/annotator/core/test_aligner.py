"""The built-in initial aligner: identical tokens, case-insensitive, unique matches first."""

import pytest

from annotator.core.aligner import SOURCE, ensure_initial_alignment, identical_token_alignment
from annotator.corpus import projects
from annotator.models import Pair
from tests import make


def test_identical_tokens_are_linked_case_insensitively():
    assert identical_token_alignment(["The", "film", "opened", "."], ["Film", "premiered", "."]) == [
        [1, 0],
        [3, 2],
    ]


def test_no_common_token_gives_an_empty_alignment():
    assert identical_token_alignment(["a", "b"], ["c"]) == []
    assert identical_token_alignment([], ["c"]) == []


def test_unique_matches_are_linked_before_repeated_forms():
    # "the" occurs twice on each side: unique "cat" and "dog" are anchors; each "the" gets one partner.
    tokens1 = ["the", "cat", "saw", "the", "dog"]
    tokens2 = ["the", "dog", "was", "seen", "by", "the", "cat"]
    links = identical_token_alignment(tokens1, tokens2)
    assert [1, 6] in links and [4, 1] in links
    thes = [(i, j) for i, j in links if tokens1[i] == "the"]
    assert sorted(thes) == [(0, 0), (3, 5)]


def test_repeated_forms_are_paired_one_to_one_by_relative_position():
    links = identical_token_alignment(["a", "x", "a", "y", "a"], ["a", "a"])
    assert links == [[0, 0], [4, 1]]
    assert len({i for i, _ in links}) == len(links) == len({j for _, j in links})


def test_result_is_sorted_and_deterministic():
    tokens1, tokens2 = "b a c a b".split(), "a b c b a".split()
    assert identical_token_alignment(tokens1, tokens2) == identical_token_alignment(tokens1, tokens2)
    links = identical_token_alignment(tokens1, tokens2)
    assert links == sorted(links) and [2, 2] in links


@pytest.mark.django_db
def test_ensure_fills_only_pairs_without_an_initial_alignment():
    project = projects.create_project("A", tagset=make.vila())
    plain = projects.add_pair(project, "plain", tokens1=["A", "b"], tokens2=["a", "c"])
    imported = projects.add_pair(
        project, "imp", tokens1=["A"], tokens2=["a"], initial_alignment=[], initial_alignment_source="pharaoh"
    )
    assert ensure_initial_alignment(plain) == [[0, 0]]
    plain.refresh_from_db()
    assert (plain.initial_alignment, plain.initial_alignment_source) == ([[0, 0]], SOURCE)
    assert ensure_initial_alignment(imported) == []
    imported.refresh_from_db()
    assert imported.initial_alignment == [] and imported.initial_alignment_source == "pharaoh"


@pytest.mark.django_db
def test_ensure_keeps_an_alignment_written_meanwhile_by_someone_else():
    project = projects.create_project("B", tagset=make.vila())
    pair = projects.add_pair(project, "p", tokens1=["a"], tokens2=["a"])
    Pair.objects.filter(pk=pair.pk).update(initial_alignment=[[0, 0]], initial_alignment_source="other")
    assert ensure_initial_alignment(pair) == [[0, 0]]
    pair.refresh_from_db()
    assert pair.initial_alignment_source == "other"
