"""Aligning parse-tree nodes: node to node (sure/possible) and node to no counterpart."""

import pytest

from annotator.corpus import projects
from annotator.models import PhraseAlignment
from tests import make
from tests.make import logged_in, save

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk():
    return make.desk(layer_phrase_alignment=True)


def test_two_nodes_are_aligned_and_turn_grey_in_the_trees(desk):
    response = save(
        logged_in(desk.anna), "phrase-alignment-add", desk.pair, desk.anna, {"node1": "1", "node2": "1"}
    )
    assert response.status_code == 200
    assert list(PhraseAlignment.objects.values_list("node1", "node2", "sure")) == [(1, 1, True)]
    html = response.content.decode()
    assert html.count('class="node aligned"') == 2
    assert "NP · The film" in html and "NP · Film" in html


def test_node_aligned_with_no_counterpart(desk):
    save(
        logged_in(desk.anna),
        "phrase-alignment-add",
        desk.pair,
        desk.anna,
        {"node1": "6", "node2": "", "kind": "possible"},
    )
    assert list(PhraseAlignment.objects.values_list("node1", "node2", "sure")) == [(6, None, False)]


def test_no_node_at_all_is_a_message(desk):
    response = save(
        logged_in(desk.anna), "phrase-alignment-add", desk.pair, desk.anna, {"node1": "", "node2": ""}
    )
    assert response.status_code == 422 and response["HX-Retarget"] == "#phrase-message"
    assert "Pick a node in at least one of the two trees." in response.content.decode()


def test_node_outside_the_tree_is_a_message(desk):
    response = save(
        logged_in(desk.anna), "phrase-alignment-add", desk.pair, desk.anna, {"node1": "40", "node2": "1"}
    )
    assert response.status_code == 422 and "Node 40 is outside tree 1" in response.content.decode()


def test_pair_without_trees_says_so(desk):
    flat = projects.add_pair(desk.project, "flat", tokens1=["a"], tokens2=["a"])
    projects.assign_pairs(desk.project, [desk.anna], [flat])
    response = save(
        logged_in(desk.anna), "phrase-alignment-add", flat, desk.anna, {"node1": "0", "node2": ""}
    )
    assert response.status_code == 422 and "Member 1 has no parse tree." in response.content.decode()
