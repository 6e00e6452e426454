"""Automatic phrase suggestions: shown apart from the annotator's alignments, accepted all at once or one
by one as their sure phrase alignments; nothing is recorded until they accept."""

import pytest

from annotator.annotation import services as annotation_services
from annotator.annotation import worklist
from annotator.corpus import projects
from annotator.models import AnnotationHistory, PhraseAlignment
from tests import make
from tests.make import HTMX, logged_in, save, url, version

pytestmark = pytest.mark.django_db

# The film opened on Friday . / Film premiered Friday . with the links film–Film, Friday–Friday, .–.:
# S ↔ S, NP "The film" ↔ NP "Film", VP "opened on Friday" ↔ VP "premiered Friday", . ↔ .
SUGGESTED = [(0, 0), (1, 1), (4, 3), (9, 7)]


@pytest.fixture
def desk():
    return make.desk(layer_phrase_alignment=True)


def _mine(desk, user=None):
    return set(
        PhraseAlignment.objects.filter(pair=desk.pair, annotator=user or desk.anna).values_list(
            "node1", "node2", "sure"
        )
    )


def test_suggestions_are_computed_from_the_word_alignment_and_the_trees(desk):
    pending, source = worklist.phrase_suggestions(desk.pair, desk.anna)
    assert pending == SUGGESTED
    assert source.endswith("× imported trees")


def test_opening_the_pair_shows_them_apart_and_records_nothing(desk):
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert "4</strong> phrase alignments suggested from" in html and "Accept all 4" in html
    assert "NP · The film ⟷ NP · Film" in html
    assert html.count('class="node suggested"') == 8  # both trees: S, NP, VP, "."
    assert not PhraseAlignment.objects.exists() and not AnnotationHistory.objects.exists()


def test_accept_all_adds_every_suggestion_as_sure_in_one_save(desk):
    client = logged_in(desk.anna)
    response = save(client, "phrase-suggestion-accept", desk.pair, desk.anna, {})
    assert response.status_code == 200
    assert _mine(desk) == {(a, b, True) for a, b in SUGGESTED}
    history = AnnotationHistory.objects.filter(pair=desk.pair, actor=desk.anna)
    assert history.count() == 4 and len(set(history.values_list("batch", flat=True))) == 1  # one undo step
    html = response.content.decode()
    assert "phrase alignments suggested" not in html and html.count('class="node aligned"') == 8
    assert not _mine(desk, desk.ben)


def test_accept_one_adds_only_that_one(desk):
    response = save(
        logged_in(desk.anna), "phrase-suggestion-accept", desk.pair, desk.anna, {"node1": 4, "node2": 3}
    )
    assert response.status_code == 200
    assert _mine(desk) == {(4, 3, True)}
    assert "Accept all 3" in response.content.decode()


def test_a_possible_alignment_made_by_hand_stays_possible(desk):
    annotation_services.add_phrase_alignment(desk.pair, desk.anna, 1, 1, sure=False, base_version=None)
    save(logged_in(desk.anna), "phrase-suggestion-accept", desk.pair, desk.anna, {})
    assert (1, 1, False) in _mine(desk) and len(_mine(desk)) == 4


def test_a_pair_that_is_not_suggested_cannot_be_accepted(desk):
    response = save(
        logged_in(desk.anna), "phrase-suggestion-accept", desk.pair, desk.anna, {"node1": 2, "node2": 2}
    )
    assert response.status_code == 422
    assert "not a suggested phrase alignment" in response.content.decode()
    assert not _mine(desk)


def test_half_a_pair_is_refused_at_the_field(desk):
    response = save(logged_in(desk.anna), "phrase-suggestion-accept", desk.pair, desk.anna, {"node1": 1})
    assert response.status_code == 422 and "Give both nodes" in response.content.decode()


def test_nothing_left_is_a_message(desk):
    client = logged_in(desk.anna)
    save(client, "phrase-suggestion-accept", desk.pair, desk.anna, {})
    response = save(client, "phrase-suggestion-accept", desk.pair, desk.anna, {})
    assert response.status_code == 422 and "no phrase suggestion left" in response.content.decode()


def test_stale_version_gets_conflict(desk):
    current = annotation_services.set_pair_label(desk.pair, desk.anna, "paraphrase", base_version=None)
    response = logged_in(desk.anna).post(
        url("phrase-suggestion-accept", desk.pair), {"base_version": 0}, **HTMX
    )
    assert response.status_code == 409 and not _mine(desk)
    assert version(desk.pair, desk.anna) == current


def test_a_pair_without_trees_has_no_suggestions(desk):
    flat = projects.add_pair(desk.project, "flat", tokens1=["a"], tokens2=["a"])
    projects.assign_pairs(desk.project, [desk.anna], [flat])
    assert worklist.phrase_suggestions(flat, desk.anna) == ([], "")
    response = save(logged_in(desk.anna), "phrase-suggestion-accept", flat, desk.anna, {})
    assert response.status_code == 422


def test_without_the_phrase_layer_nothing_is_suggested():
    desk = make.desk()
    assert worklist.phrase_suggestions(desk.pair, desk.anna) == ([], "")


def test_others_cannot_accept_on_someone_elses_sheet(desk):
    target = url("phrase-suggestion-accept", desk.pair)
    assert logged_in(desk.outsider).post(target, {"base_version": 0}).status_code == 404
    assert logged_in(desk.lead).post(target, {"base_version": 0}).status_code in (403, 404)
    assert not _mine(desk)
