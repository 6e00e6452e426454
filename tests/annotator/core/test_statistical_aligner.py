"""The statistical aligner's pure parts: symmetrisation, identity lexicon and fill, training, quality."""

import math

import numpy as np
import pytest

from annotator.core.posterior_aligner import PosteriorSettings, _without_conflicts, align_scored
from annotator.core.statistical_aligner import (
    AlignerSettings,
    alignment_quality,
    grow_diag_final,
    identity_fill,
    intersect,
    symmetrize,
    train_and_align,
    train_and_align_scored,
    training_corpus,
)

# A tiny paraphrase corpus with a consistent non-identical correspondence (bought ↔ purchased).
CORPUS = [
    ("John bought a car .".split(), "John purchased a car .".split()),
    ("Mary bought a house .".split(), "Mary purchased a house .".split()),
    ("He bought the book yesterday .".split(), "Yesterday he purchased the book .".split()),
    ("They bought two tickets .".split(), "They purchased two tickets .".split()),
    ("She bought bread .".split(), "She purchased bread .".split()),
] * 6


def test_intersection_keeps_only_links_of_both_directions():
    assert intersect({(0, 0), (1, 1)}, {(1, 1), (2, 2)}) == {(1, 1)}


def test_grow_diag_final_grows_from_the_intersection_by_neighbours_then_adds_unaligned_words():
    forward = {(0, 0), (1, 1), (2, 3)}
    reverse = {(0, 0), (1, 2)}
    grown = grow_diag_final(forward, reverse, 3, 4)
    assert (0, 0) in grown  # the intersection
    assert (1, 1) in grown and (1, 2) in grown  # neighbours of (0, 0) touching unaligned words
    assert (2, 3) in grown  # final: word 2 of member 1 was still unaligned
    assert intersect(forward, reverse) <= grown <= forward | reverse


def test_symmetrize_refuses_an_unknown_method_by_name():
    with pytest.raises(ValueError, match="symmetrize 'union'"):
        symmetrize(set(), set(), 1, 1, method="union")


def test_identity_lexicon_adds_each_word_once_as_a_sentence_pair_of_itself():
    side1, side2 = training_corpus([(["A", "b"], ["a", "c"])], identity_lexicon=True)
    assert side1 == [["a", "b"], ["a"], ["b"], ["c"]] and side2 == [["a", "c"], ["a"], ["b"], ["c"]]


def test_identity_fill_links_identical_tokens_left_unaligned_on_both_sides():
    assert identity_fill({(0, 1)}, ["the", "cat", "sat"], ["cat", "the", "sat"]) == {(0, 1), (1, 0), (2, 2)}
    # a token the aligner already linked elsewhere gets no identity link
    assert identity_fill({(1, 2)}, ["the", "cat", "sat"], ["cat", "the", "sat"]) == {(1, 2), (0, 1)}


def test_quality_is_och_and_ney_precision_recall_and_aer():
    q = alignment_quality([{(0, 0), (1, 1), (2, 0)}], [{(0, 0)}], [{(1, 1)}])
    assert q.precision == pytest.approx(2 / 3) and q.recall == 1.0
    assert q.aer == pytest.approx(1 - (1 + 2) / (3 + 1))
    assert math.isnan(alignment_quality([set()], [set()], [set()]).aer)


@pytest.mark.parametrize("backend", ["posterior", "eflomal", "ibm1"])
def test_training_learns_a_non_identical_correspondence(backend):
    if backend != "posterior":
        pytest.importorskip("eflomal" if backend == "eflomal" else "nltk")
    aligned = train_and_align(CORPUS, AlignerSettings(backend=backend))
    assert len(aligned) == len(CORPUS)
    first = set(aligned[0])
    assert (1, 1) in first  # bought ↔ purchased: no identical token gives this link
    assert {(0, 0), (2, 2), (3, 3), (4, 4)} <= first
    for (t1, t2), links in zip(CORPUS, aligned, strict=True):
        assert all(0 <= i < len(t1) and 0 <= j < len(t2) for i, j in links)


def test_pairs_with_an_empty_member_get_no_links_and_do_not_break_training():
    aligned = train_and_align([([], ["a"]), *CORPUS[:5]], AlignerSettings(backend="ibm1", ibm_iterations=2))
    assert aligned[0] == [] and len(aligned) == 6


def test_settings_are_validated_by_name():
    with pytest.raises(ValueError, match="backend 'giza'"):
        train_and_align(CORPUS[:1], AlignerSettings(backend="giza"))


def test_the_default_is_the_posterior_aligner_symmetrising_per_kind_and_others_refuse_per_kind():
    assert (AlignerSettings().backend, AlignerSettings().symmetrize) == ("posterior", "per-kind")
    assert AlignerSettings(backend="eflomal").symmetrize == "intersection"
    with pytest.raises(ValueError, match="does not go with backend 'eflomal'"):
        AlignerSettings(backend="eflomal", symmetrize="per-kind").validate()


def test_training_twice_on_the_same_corpus_gives_the_same_links_and_confidences():
    first = train_and_align_scored(CORPUS)
    second = train_and_align_scored(list(CORPUS))
    assert first == second
    assert all(0 < c <= 1 for links in first for _i, _j, c in links)
    assert train_and_align(CORPUS) == [[(i, j) for i, j, _c in links] for links in first]


def test_two_different_words_are_linked_only_within_one_word_class():
    # `1,000` and `cache` are each other's only leftover in every pair: EM pairs them, the class rule not
    corpus = [("Intel sells 1,000 .".split(), "Intel sells cache .".split())] * 20
    links = {(i, j) for i, j, _c in align_scored(corpus)[0]}
    assert links == {(0, 0), (1, 1), (3, 3)}
    rules = PosteriorSettings(decoder="rules")
    assert {(i, j) for i, j, _c in align_scored(corpus, rules)[0]} == links
    kept = {
        (i, j) for i, j, _c in align_scored(corpus, PosteriorSettings(decoder="rules", same_class=False))[0]
    }
    assert (2, 2) in kept


def test_an_acronym_is_linked_to_the_words_it_abbreviates_with_the_acronym_confidence():
    corpus = [("America Online lost subscribers .".split(), "AOL lost subscribers .".split())] * 3
    links = align_scored(corpus, PosteriorSettings(acronym_confidence=0.9))[0]
    assert (0, 0, 0.9) in links and (1, 0, 0.9) in links
    assert {(2, 1), (3, 2), (4, 3)} <= {(i, j) for i, j, _c in links}
    without = align_scored(corpus, PosteriorSettings(acronyms=False))[0]
    assert not {(0, 0), (1, 0)} <= {(i, j) for i, j, _c in without}


def test_the_rules_link_two_function_words_of_one_role_between_two_links():
    # `about` and `on` are prepositions in one slot between `reports` and `the`; `about` / `them` are not
    rules = PosteriorSettings(decoder="rules")
    corpus = [("reports about the toll .".split(), "reports tonight on the toll .".split())]
    assert (1, 2) in {(i, j) for i, j, _c in align_scored(corpus, rules)[0]}
    without = {
        (i, j)
        for i, j, _c in align_scored(corpus, PosteriorSettings(decoder="rules", function_gaps=False))[0]
    }
    assert (1, 2) not in without
    other = [("reports about the toll .".split(), "reports tonight them the toll .".split())]
    assert (1, 2) not in {(i, j) for i, j, _c in align_scored(other, rules)[0]}


def test_an_identical_function_word_whose_neighbour_is_linked_far_away_is_dropped():
    # `Nowitzki 's status doubtful .` ⇄ `Nowitzki out at the team 's morning .`: `Nowitzki` before one
    # `'s` is linked five words before the other; the full stops hold on the sentences' ends
    links = [(0, 0, 1.0), (1, 5, 1.0), (4, 8, 1.0)]
    candidates = np.zeros((5, 9), dtype=bool)
    candidates[1, 5] = candidates[4, 8] = True
    kept = _without_conflicts(links, candidates, distance=2)
    assert kept == [(0, 0, 1.0), (4, 8, 1.0)]
    # a link on one side that agrees keeps it: `status` ⇄ `morning`
    agreeing = [(0, 0, 1.0), (1, 5, 1.0), (2, 6, 1.0)]
    assert _without_conflicts(agreeing, candidates, distance=2) == agreeing
