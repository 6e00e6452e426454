"""Re-evaluation page: the rater's earlier labels, marked items flagged, nothing overwritten."""

import pytest
from django.urls import reverse

from annotator.evaluation import reevaluation
from annotator.models import Assignment, Judgement
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    raters = make.raters(2)
    project = make.evaluation_project(n_units=1, raters=tuple(raters))
    unit = project.units.get()
    make.rate_unit(unit, raters[0], ["Perfect", "Perfect", "Awkward"], "Equivalent")
    make.rate_unit(unit, raters[1], ["Irredeemable", "Perfect", "Perfect"], "Equivalent")
    reevaluation.build_reevaluation_sets(project, seed=0)
    return unit, raters


def url(name, unit):
    return reverse(f"annotator:{name}", args=[unit.project_id, unit.pk])


def test_page_shows_own_earlier_labels_flags_marked_items_and_says_no_change_is_needed(
    client, world, django_assert_max_num_queries
):
    unit, raters = world
    client.force_login(raters[0])
    with django_assert_max_num_queries(15):
        response = client.get(url("unit-reevaluation", unit))
    body = response.content.decode()
    assert response.status_code == 200
    assert "You need not change them" in body
    first = unit.items.order_by("position").first()
    card = body.split(f'id="judgement-{first.pk}-grammaticality"')[1].split('id="judgement-')[0]
    assert "please look again" in card and 'data-label="Perfect"' in card
    assert (
        "Irredeemable" not in body.split('<ol class="items">')[1].split("tree-help")[0]
    )  # not the other's label


def test_changing_a_label_stores_a_revision_beside_the_initial_one(client, world):
    unit, raters = world
    first = unit.items.order_by("position").first()
    client.force_login(raters[0])
    save = reverse("annotator:judgement-save", args=[unit.project_id, unit.pk, first.pk, "grammaticality"])
    answers = {"a.grammatical": "no", "a.correctable": "yes", "a.one_edit": "yes", "phase": "reevaluation"}
    response = client.post(save, {**answers, "version": "0"}, headers={"HX-Request": "true"})
    assert response.status_code == 200 and "now" in response.content.decode()
    labels = dict(
        Judgement.objects.filter(item=first, rater=raters[0], step="grammaticality").values_list(
            "phase", "label"
        )
    )
    assert labels == {"initial": "Perfect", "reevaluation": "Minor Problem"}


def test_finish_marks_the_unit_done_and_locks_it(client, world):
    unit, raters = world
    client.force_login(raters[0])
    response = client.post(url("unit-reevaluation-finish", unit))
    assert response.status_code == 302
    assert Assignment.objects.get(unit=unit, annotator=raters[0], round=1).status == "done"
    assert (
        "You have finished re-evaluating this unit"
        in client.get(url("unit-reevaluation", unit)).content.decode()
    )


def test_page_waits_for_reevaluation_to_start(client):
    rater = make.cast().anna
    project = make.evaluation_project(raters=(rater,))
    unit = project.units.get()
    client.force_login(rater)
    assert client.get(url("unit-reevaluation", unit))["Location"] == url("unit-grammaticality", unit)


def test_role_matrix(client, world):
    unit, raters = world
    assert client.get(url("unit-reevaluation", unit)).status_code == 302
    for user, status in (
        (make.cast().outsider, 404),
        (make.cast().admin, 403),
        (raters[1], 200),
    ):
        client.force_login(user)
        assert client.get(url("unit-reevaluation", unit)).status_code == status


def test_grammaticality_is_looked_at_again_without_the_original_and_meaning_with_it(client, world):
    unit, raters = world
    client.force_login(raters[0])
    body = client.get(url("unit-reevaluation", unit)).content.decode()
    assert unit.source_sentence not in body and 'id="original"' not in body
    assert "Ignore errors that the substitution did not cause" in body
    assert "-grammaticality" in body and '-meaning"' not in body
    meaning = client.get(url("unit-reevaluation", unit) + "?step=meaning").content.decode()
    assert 'id="original"' in meaning and unit.phrase in meaning
    first = unit.items.order_by("position").first()
    assert f'id="judgement-{first.pk}-meaning"' in meaning
    assert f'id="judgement-{first.pk}-grammaticality"' not in meaning


def test_step_1_tells_raters_to_ignore_errors_the_substitution_did_not_cause(client, world):
    unit, raters = world
    project = make.evaluation_project("Fresh", n_units=1, raters=(raters[0],))
    fresh = project.units.get()
    client.force_login(raters[0])
    body = client.get(url("unit-grammaticality", fresh)).content.decode()
    assert "Ignore errors that the substitution did not cause" in body
