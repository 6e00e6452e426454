"""The built-in initial aligner: identical tokens, case-insensitive, unique matches first."""

import pytest

from annotator.core.aligner import SOURCE, baseline_alignment, identical_token_alignment, suggested_alignment
from annotator.corpus import projects
from annotator.projects import services as project_setup
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
def test_suggestions_come_from_the_stored_alignment_else_the_matcher_and_nothing_is_written():
    project = project_setup.create_project(None, name="A", tagset=make.vila())
    plain = projects.add_pair(project, "plain", tokens1=["A", "b"], tokens2=["a", "c"])
    imported = projects.add_pair(
        project, "imp", tokens1=["A"], tokens2=["a"], initial_alignment=[], initial_alignment_source="pharaoh"
    )
    assert suggested_alignment(plain) == ([[0, 0]], SOURCE)
    plain.refresh_from_db()
    assert plain.initial_alignment is None and plain.initial_alignment_source == ""
    assert suggested_alignment(imported) == ([], "pharaoh")


def test_baseline_is_the_stored_alignment_even_when_empty():
    assert baseline_alignment(None, ["a"], ["a"]) == [[0, 0]]
    assert baseline_alignment([], ["a"], ["a"]) == []
    assert baseline_alignment([(0, 0)], ["a"], ["b"]) == [[0, 0]]
