"""Each annotator's tree phrase precision / recall / F1 against the automatic phrase alignment, beside the
word figures: in the snapshot, on the dashboard and in the API's agreement results."""

import pytest
from django.urls import reverse

from annotator.agreement import current_figures
from annotator.agreement.computation import latest_snapshot, recompute
from annotator.annotation import services as annotation_services
from annotator.annotation import worklist
from annotator.models import Pair
from tests import make
from tests.make import logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    anna, ben, lead = make.user("anna"), make.user("ben"), make.user("lena")
    project = make.project_with_pairs(
        "Phrases", n_pairs=2, lead=lead, annotators=(anna, ben), layer_phrase_alignment=True
    )
    pair = project.pairs.order_by("position").first()
    # anna accepts the four suggestions (S, NP, VP, "."); ben aligns NP ↔ NP and one of his own
    worklist.accept_phrase_suggestions(pair, anna, base_version=None)
    annotation_services.add_phrase_alignment(pair, ben, 1, 1, base_version=None)
    annotation_services.add_phrase_alignment(pair, ben, 6, 5, base_version=None)  # PP ↔ NP "Friday"
    return project, anna, ben, lead, pair


def _rows(project):
    return {r["annotator"]: r for r in current_figures(project).results["machine"]["aligner"]}


def test_the_snapshot_scores_each_annotators_phrases_against_the_automatic_ones(world):
    project, *_ = world
    recompute(project.pk)
    rows = _rows(project)
    assert rows["anna"]["tree_phrase"] == {"pairs": 1, "precision": 1.0, "recall": 1.0, "f1": 1.0}
    ben = rows["ben"]["tree_phrase"]
    # H = the 4 automatic alignments of p1, G = ben's 2, one shared
    assert ben["pairs"] == 1 and ben["precision"] == 0.25 and ben["recall"] == 0.5
    assert ben["f1"] == pytest.approx(2 * 0.25 * 0.5 / 0.75)
    assert "word" in rows["anna"] and "phrase" in rows["anna"]  # the word figures stay beside them


def test_the_dashboard_shows_the_tree_phrase_columns(world):
    project, *_, lead, _pair = world
    recompute(project.pk)
    html = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk])).content.decode()
    assert "Tree phrase P" in html and "Phrase pairs P" in html
    assert '<td class="num tree-phrase-p">0.250</td>' in html
    assert '<td class="num tree-phrase-f1 high">1.000</td>' in html


def test_the_api_agreement_results_carry_them_for_leads_only(world):
    project, anna, _ben, lead, _pair = world
    recompute(project.pk)
    url = reverse("api-project-agreement", args=[project.pk])
    body = logged_in(lead).get(url).json()
    rows = {r["annotator"]: r for r in body["snapshot"]["results"]["machine"]["aligner"]}
    assert rows["anna"]["tree_phrase"]["f1"] == 1.0
    systems = logged_in(lead).get(reverse("api-systems-list", kwargs={"project_pk": project.pk})).json()
    assert {r["annotator"]: r for r in systems["aligner"]}["ben"]["tree_phrase"]["recall"] == 0.5
    assert logged_in(anna).get(url).status_code in (403, 404)


def test_new_trees_give_new_figures(world):
    project, *_, pair = world
    recompute(project.pk)
    assert recompute(project.pk) == "unchanged"
    # the trees are not in the agreement document: the automatic phrases enter the fingerprint
    # node 2 (nobody aligned it) now spans "Film premiered": the automatic NP "The film" pairs with it
    nodes2 = [dict(n) for n in pair.nodes2]
    nodes2[2]["end"] = 2
    Pair.objects.filter(pk=pair.pk).update(nodes2=nodes2)
    assert recompute(project.pk).startswith("stored")
    assert _rows(project)["anna"]["tree_phrase"]["precision"] == 0.75


def test_without_the_phrase_layer_there_are_no_tree_scores():
    anna, lead = make.user("anna"), make.user("lena")
    project = make.project_with_pairs("Words", n_pairs=1, lead=lead, annotators=(anna,))
    pair = project.pairs.get()
    annotation_services.set_links(pair, anna, [(1, 0)], sure=True, base_version=None)
    recompute(project.pk)
    assert all("tree_phrase" not in r for r in latest_snapshot(project).results["machine"]["aligner"])
    html = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk])).content.decode()
    assert "Tree phrase P" not in html
