"""Tokens stay correctable while nobody has annotated the pair: automatic trees are parsed again for the
new tokens, the aligner's alignment gives way to the identical-token matcher, imported trees are dropped
only when the lead says so, and a person's annotation locks the tokens."""

import pytest
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.core.auto_trees import ParserUnavailable, parse_members
from annotator.core.trees import tree_nodes
from annotator.corpus import projects, tokens
from annotator.corpus.tree_parsing import parse_missing_trees, parser_source
from annotator.models import Pair
from annotator.projects import services as project_setup
from tests import make
from tests.make import logged_in

pytestmark = pytest.mark.django_db


def _model_or_skip(language="en"):
    pytest.importorskip("spacy", reason="spaCy is not installed")
    try:
        parse_members([["a"]], language=language)
    except ParserUnavailable as exc:
        pytest.skip(str(exc))


def _project(language="en"):
    lead, anna = make.user("lena"), make.user("anna")
    project = project_setup.create_project(
        lead,
        name="T",
        tagset=make.vila(),
        annotators=[anna],
        language=language,
    )
    return project, lead, anna


def test_tokens_of_a_parsed_pair_are_corrected_and_the_trees_follow(django_capture_on_commit_callbacks):
    _model_or_skip("es")
    project, lead, _anna = _project("es")
    pair = projects.add_pair(
        project, "1", tokens1="Vive en EE.UU .".split(), tokens2="Vive en Madrid .".split()
    )
    parse_missing_trees(project)
    pair.refresh_from_db()
    assert "(PROPN EE.UU)" in pair.tree1
    Pair.objects.filter(pk=pair.pk).update(
        initial_alignment=[[0, 0], [1, 1]],
        initial_alignment_source="eflomal/intersection",
        initial_alignment_version=2,
    )
    page = logged_in(lead).get(reverse("annotator:pair-tokens", args=[project.pk, pair.pk]))
    assert b'id="tokens-form"' in page.content and b'id="remove-pair-trees"' in page.content
    with make.eager_tasks(), django_capture_on_commit_callbacks(execute=True):
        response = logged_in(lead).post(
            reverse("annotator:pair-tokens", args=[project.pk, pair.pk]),
            {"tokens1": "Vive en EE.UU.", "tokens2": "Vive en Madrid ."},
        )
    assert response.status_code == 302
    pair.refresh_from_db()
    assert pair.tokens1 == ["Vive", "en", "EE.UU."]
    assert pair.tree_source == parser_source("spacy", "es") and "EE.UU.)" in pair.tree1
    assert tree_nodes(pair.tree1, pair.tokens1)[0]["end"] == 3 and pair.nodes1[0]["end"] == 3
    assert pair.initial_alignment is None and pair.initial_alignment_source == ""


def test_imported_trees_are_dropped_only_when_the_lead_says_so():
    project, lead, _anna = _project()
    tree = "(S (NP (DT A) (NN cat)) (VBD sat))"
    pair = projects.add_pair(
        project, "1", tokens1="A cat sat".split(), tokens2="A cat sat".split(), tree1=tree, tree2=tree
    )
    client = logged_in(lead)
    url = reverse("annotator:pair-tokens", args=[project.pk, pair.pk])
    assert "This pair has imported parse trees" in client.get(url).content.decode()
    response = client.post(url, {"tokens1": "A cat sat .", "tokens2": "A cat sat"})
    assert response.status_code == 422 and "Drop what was imported" in response.content.decode()
    pair.refresh_from_db()
    assert pair.tokens1 == ["A", "cat", "sat"] and pair.tree1 == tree
    response = client.post(url, {"tokens1": "A cat sat .", "tokens2": "A cat sat", "drop_imported": "on"})
    assert response.status_code == 302
    pair.refresh_from_db()
    assert pair.tokens1 == ["A", "cat", "sat", "."] and pair.tree1 == pair.tree2 == ""


def test_a_persons_annotation_locks_the_tokens():
    project, lead, anna = _project()
    pair = projects.add_pair(project, "1", tokens1=["a", "b"], tokens2=["c"])
    projects.assign_pairs(project, [anna], [pair])
    annotation_services.set_pair_label(pair, anna, "paraphrase", base_version=None)
    client = logged_in(lead)
    url = reverse("annotator:pair-tokens", args=[project.pk, pair.pk])
    page = client.get(url).content.decode()
    assert 'id="tokens-locked"' in page and 'id="tokens-form"' not in page
    response = client.post(url, {"tokens1": "ab", "tokens2": "c"})
    assert response.status_code == 422
    pair.refresh_from_db()
    assert pair.tokens1 == ["a", "b"]


def test_unchanged_tokens_keep_everything():
    project, _lead, _anna = _project()
    tree = "(S (DT a) (NN b))"
    pair = projects.add_pair(project, "1", tokens1=["a", "b"], tokens2=["a", "b"], tree1=tree, tree2=tree)
    tokens.correct_tokens(pair, ["a", "b"], ["a", "b"])
    pair.refresh_from_db()
    assert pair.tree1 == tree
