"""Automatic phrase alignments: the tree-node pairs whose yields are consistent with the word links."""

import pytest

from annotator.core.phrase_suggestions import (
    consistent_span_pairs,
    phrase_alignments_from_words,
    phrase_suggestion_source,
)
from annotator.core.trees import tree_nodes

# He bought a car .   /   He purchased a new vehicle .
T1 = "He bought a car .".split()
T2 = "He purchased a new vehicle .".split()
TREE1 = "(S (NP (PRP He)) (VP (VBD bought) (NP (DT a) (NN car))) (. .))"
TREE2 = "(S (NP (PRP He)) (VP (VBD purchased) (NP (DT a) (JJ new) (NN vehicle))) (. .))"
LINKS = [[0, 0], [1, 1], [2, 2], [3, 4], [4, 5]]  # "new" unaligned


def _nodes():
    return tree_nodes(TREE1, T1), tree_nodes(TREE2, T2)


def _spans(pairs, nodes1, nodes2):
    def text(nodes, tokens, k):
        return " ".join(tokens[nodes[k]["start"] : nodes[k]["end"]])

    return {(text(nodes1, T1, a), text(nodes2, T2, b)) for a, b in pairs}


def test_every_consistent_constituent_pair_and_an_unaligned_word_may_sit_inside():
    nodes1, nodes2 = _nodes()
    spans = _spans(phrase_alignments_from_words(LINKS, nodes1, nodes2, choice="all"), nodes1, nodes2)
    assert ("a car", "a new vehicle") in spans  # "new" is unaligned, inside the NP
    assert ("bought a car", "purchased a new vehicle") in spans
    assert ("He bought a car .", "He purchased a new vehicle .") in spans
    assert ("car", "vehicle") in spans and ("bought", "purchased") in spans
    assert ("a car", "vehicle") not in spans  # the link a–a would leave the pair


def test_maximal_takes_in_the_unaligned_words_and_minimal_leaves_them_out():
    # The film opened on Friday .  /  Film premiered Friday .   ("The", "opened", "on", "premiered" unaligned)
    t1, t2 = "The film opened on Friday .".split(), "Film premiered Friday .".split()
    nodes1 = tree_nodes("(S (NP (DT The) (NN film)) (VP (VBD opened) (PP (IN on) (NNP Friday))) (. .))", t1)
    nodes2 = tree_nodes("(S (NP (NN Film)) (VP (VBD premiered) (NP (NNP Friday))) (. .))", t2)
    links = [[1, 0], [4, 2], [5, 3]]

    def texts(choice):
        pairs = phrase_alignments_from_words(links, nodes1, nodes2, choice=choice)
        return {
            (
                " ".join(t1[nodes1[a]["start"] : nodes1[a]["end"]]),
                " ".join(t2[nodes2[b]["start"] : nodes2[b]["end"]]),
            )
            for a, b in pairs
        }

    whole = ("The film opened on Friday .", "Film premiered Friday .")
    assert texts("maximal") == {
        whole,
        ("The film", "Film"),
        ("opened on Friday", "premiered Friday"),
        (".", "."),
    }
    assert texts("minimal") == {whole, ("film", "Film"), ("Friday", "Friday"), (".", ".")}
    assert len(texts("all")) == 10  # every node of each chain against every node of the other


def test_a_unary_chain_is_named_by_its_topmost_node():
    nodes1, nodes2 = _nodes()
    pairs = phrase_alignments_from_words(LINKS, nodes1, nodes2, choice="all")
    he1 = [k for k, n in enumerate(nodes1) if (n["start"], n["end"]) == (0, 1)]
    assert [nodes1[k]["label"] for k in he1] == ["NP", "PRP"]
    assert sum(1 for a, _ in pairs if a in he1) == 1
    assert any(nodes1[a]["label"] == "NP" and nodes2[b]["label"] == "NP" for a, b in pairs if a in he1)


def test_one_pair_per_set_of_links_inside():
    nodes1, nodes2 = _nodes()
    for choice in ("maximal", "minimal"):
        pairs = phrase_alignments_from_words(LINKS, nodes1, nodes2, choice=choice)
        cores = set()
        for a, _b in pairs:
            lo, hi = nodes1[a]["start"], nodes1[a]["end"]
            cores.add(frozenset(tuple(link) for link in LINKS if lo <= link[0] < hi))
        assert len(cores) == len(pairs)


def test_a_crossing_link_blocks_the_phrases_it_leaves():
    # bought–vehicle crosses: "bought" cannot pair with "purchased", nor the VP's NP with its NP
    links = [[0, 0], [1, 4], [3, 1], [4, 5]]
    nodes1, nodes2 = _nodes()
    spans = _spans(phrase_alignments_from_words(links, nodes1, nodes2, choice="all"), nodes1, nodes2)
    assert ("bought", "purchased") not in spans
    assert ("bought a car", "purchased a new vehicle") in spans
    assert ("a car", "a new vehicle") not in spans


def test_no_links_no_alignments_and_no_trees_nothing():
    nodes1, nodes2 = _nodes()
    assert phrase_alignments_from_words([], nodes1, nodes2) == []
    assert phrase_alignments_from_words(LINKS, [], nodes2) == []


def test_span_pairs_need_a_link_inside_and_none_leaving():
    assert consistent_span_pairs([(0, 0)], [(0, 1), (0, 2)], [(0, 1)], 2, 1) == [
        ((0, 1), (0, 1)),
        ((0, 2), (0, 1)),
    ]
    assert consistent_span_pairs([(0, 0), (0, 1)], [(0, 1)], [(0, 1)], 2, 2) == []  # 0–1 leaves
    assert consistent_span_pairs([(1, 1)], [(0, 1)], [(0, 1)], 2, 2) == []  # nothing inside


@pytest.mark.parametrize(
    ("links", "message"),
    [([[0, 9]], r"links\[0\] = \[0, 9\] is outside"), ([[1]], r"links\[0\] is \[1\], not a pair")],
)
def test_bad_links_are_refused_saying_where(links, message):
    nodes1, nodes2 = _nodes()
    with pytest.raises(ValueError, match=message):
        phrase_alignments_from_words(links, nodes1, nodes2)


def test_bad_nodes_and_choice_are_refused():
    nodes1, nodes2 = _nodes()
    with pytest.raises(ValueError, match=r"nodes2\[0\] spans \[2, 2\)"):
        phrase_alignments_from_words(LINKS, nodes1, [{"start": 2, "end": 2}])
    with pytest.raises(ValueError, match="choice must be one of maximal, minimal, all"):
        phrase_alignments_from_words(LINKS, nodes1, nodes2, choice="largest")


def test_source_names_the_word_alignment_its_version_and_the_trees():
    assert (
        phrase_suggestion_source("eflomal/intersection", 3, "spacy")
        == "eflomal/intersection v3 × spacy trees"
    )
    assert phrase_suggestion_source("identical-tokens", None, "") == "identical-tokens × imported trees"
