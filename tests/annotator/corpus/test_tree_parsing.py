"""Automatic phrase structure: trees whose leaves are the pair's tokens, imported trees win, a lead's
PTB import replaces an automatic tree, pairs with phrase alignments keep theirs; benepar is optional."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.core.auto_trees import ParserUnavailable, dependency_tree, parse_members
from annotator.core.trees import tree_nodes
from annotator.corpus import projects
from annotator.corpus import services as corpus
from annotator.corpus.tree_parsing import parse_missing_trees, parser_source, tree_progress
from annotator.models import Pair
from annotator.projects import services as project_setup
from tests import make
from tests.make import HTMX, logged_in

spacy = pytest.importorskip("spacy", reason="spaCy is not installed")


def _spacy_model_or_skip():
    try:
        parse_members([["a"]])
    except ParserUnavailable as exc:
        pytest.skip(str(exc))


def test_head_projection_of_a_dependency_parse():
    # The film opened on Friday .   (film ← The; opened ← film, on, .; on ← Friday)
    tree = dependency_tree(
        "The film opened on Friday .".split(),
        ["DT", "NN", "VBD", "IN", "NNP", "."],
        [1, 2, 2, 2, 3, 2],
        ["det", "nsubj", "ROOT", "prep", "pobj", "punct"],
    )
    assert tree == "(S (NP (DT The) (NN film)) (VBD opened) (PP (IN on) (NNP Friday)) (. .))"


def test_a_non_projective_parse_falls_back_to_a_flat_tree():
    # b hangs from d, which hangs from c: the phrase of d would be {b, d} around c
    tree = dependency_tree(["a", "b", "c", "d"], ["DT", "NN", "VB", "NN"], [2, 3, 2, 2], ["x"] * 4)
    assert tree == "(S (DT a) (NN b) (VB c) (NN d))"
    assert dependency_tree(["a", "b"], ["DT", "NN"], [1, 0], ["x", "x"]) == "(S (DT a) (NN b))"  # a cycle


def test_leaves_are_exactly_the_tokens_even_with_brackets_and_quotes():
    _spacy_model_or_skip()
    sentences = [
        ["He", "said", "(", "yes", ")", "``", "ok", "''", "."],
        ["Shares", "fell", "3.6", "%", "."],
        [],
    ]
    trees = parse_members(sentences)
    assert trees[2] == ""
    for tree, tokens in zip(trees[:2], sentences[:2], strict=True):
        nodes = tree_nodes(tree, tokens)  # raises when a leaf differs from its token
        assert nodes[0]["start"] == 0 and nodes[0]["end"] == len(tokens)


def test_benepar_backend_says_what_is_missing():
    try:
        import benepar  # noqa: F401
    except ImportError:
        with pytest.raises(ParserUnavailable, match="benepar is not installed"):
            parse_members([["a"]], backend="benepar")
        pytest.skip("benepar is not installed here (its model needs a download this machine cannot make)")
    try:
        trees = parse_members([["The", "cat", "sat", "."]], backend="benepar")
    except ParserUnavailable as exc:
        pytest.skip(str(exc))
    tree_nodes(trees[0], ["The", "cat", "sat", "."])


@pytest.mark.django_db
def test_missing_trees_are_parsed_and_imported_ones_win():
    _spacy_model_or_skip()
    anna = make.user("anna")
    project = make.project_with_pairs("Trees", n_pairs=1, annotators=(anna,), layer_phrase_alignment=True)
    imported = project.pairs.get()
    bare = projects.add_pair(
        project, "bare", tokens1="A cat sat .".split(), tokens2="The cat was sitting .".split()
    )
    result = parse_missing_trees(project)
    assert result["members"] == 2 and tree_progress(project.pk)["status"] == "succeeded"
    bare.refresh_from_db()
    assert bare.tree_source == parser_source("spacy") and bare.tree_source.startswith("spacy 3.")
    assert bare.nodes1[0]["end"] == 4 and bare.nodes2[0]["end"] == 5
    before = Pair.objects.get(pk=imported.pk)
    assert before.tree_source == "" and before.tree1.startswith("(S (NP (DT The)")
    # a lead replaces the automatic tree of member 1 by importing one; a later run keeps it
    tree = "(S (NP (DT A) (NN cat)) (VP (VBD sat)) (. .))"
    report = corpus.import_corpus("ptb", "Trees", [corpus.as_upload("t.ptb", f"bare\t1\t{tree}\n".encode())])
    assert report.ok
    bare.refresh_from_db()
    assert bare.tree1 == tree and bare.tree_source == ""
    parse_missing_trees(project)
    bare.refresh_from_db()
    assert bare.tree1 == tree


@pytest.mark.django_db
def test_pairs_with_phrase_alignments_keep_their_trees_and_the_command_runs(capsys):
    _spacy_model_or_skip()
    anna = make.user("anna")
    project = make.project_with_pairs("Kept", n_pairs=1, annotators=(anna,), layer_phrase_alignment=True)
    pair = projects.add_pair(project, "p", tokens1="A b .".split(), tokens2="A b .".split())
    parse_missing_trees(project)
    pair.refresh_from_db()
    annotation_services.add_phrase_alignment(pair, anna, 0, 0, base_version=None)
    kept = (pair.tree1, pair.tree2)
    call_command("parse_trees", "--project", "Kept")
    assert "0 members parsed" in capsys.readouterr().out
    pair.refresh_from_db()
    assert (pair.tree1, pair.tree2) == kept


@pytest.mark.django_db
def test_lead_starts_parsing_from_the_corpus_page(django_capture_on_commit_callbacks):
    _spacy_model_or_skip()
    lead = make.user("lena")
    project = project_setup.create_project(lead, name="Page", tagset=make.vila())
    pair = projects.add_pair(project, "p", tokens1="A cat sat .".split(), tokens2="The cat sat .".split())
    with make.eager_tasks(), django_capture_on_commit_callbacks(execute=True):
        response = logged_in(lead).post(reverse("annotator:corpus-trees", args=[project.pk]), **HTMX)
    assert response.status_code == 200 and "Parse missing trees" in response.content.decode()
    pair.refresh_from_db()
    assert pair.tree_source == parser_source("spacy") and pair.tree1.startswith("(S")
    assert tree_progress(project.pk)["status"] == "succeeded"
