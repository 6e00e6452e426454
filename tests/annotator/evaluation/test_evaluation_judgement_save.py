"""Saving a judgement by walking the decision tree, one answer per request."""

import json

import pytest
from django.urls import reverse

from annotator.evaluation import services as evaluation
from annotator.models import Judgement
from tests import make

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


@pytest.fixture
def world():
    rater = make.cast().anna
    project = make.evaluation_project(raters=(rater,))
    unit = project.units.get()
    return unit, list(unit.items.all()), rater


def url(item, step="grammaticality"):
    return reverse("annotator:judgement-save", args=[item.unit.project_id, item.unit_id, item.pk, step])


def test_an_incomplete_walk_shows_the_next_question_and_saves_nothing(client, world):
    _, items, rater = world
    client.force_login(rater)
    response = client.post(url(items[0]), {"a.grammatical": "no", "version": "0"}, headers=HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert f'id="judgement-{items[0].pk}-grammaticality"' in body and "<html" not in body
    assert "Could the error be corrected?" in body and 'name="a.grammatical" value="no"' in body
    assert not Judgement.objects.exists()


def test_the_last_answer_saves_the_label_and_triggers_judgement_saved(
    client, world, django_assert_max_num_queries
):
    _, items, rater = world
    evaluation.record_judgement(
        items[2], rater, "grammaticality", label="Perfect"
    )  # the project's first change
    client.force_login(rater)
    with django_assert_max_num_queries(16):
        response = client.post(
            url(items[0]),
            {"a.grammatical": "no", "a.correctable": "yes", "a.one_edit": "yes", "version": "0"},
            headers=HTMX,
        )
    assert response.status_code == 200
    assert json.loads(response["HX-Trigger"])["judgement-saved"]["label"] == "Minor Problem"
    assert 'data-label="Minor Problem"' in response.content.decode()
    j = Judgement.objects.get(item=items[0])
    assert (j.label, j.answers, j.rater) == (
        "Minor Problem",
        {"grammatical": "no", "correctable": "yes", "one_edit": "yes"},
        rater,
    )


def test_restart_drops_the_answer_and_the_later_ones(client, world):
    _, items, rater = world
    client.force_login(rater)
    response = client.post(
        url(items[0]), {"a.grammatical": "no", "a.correctable": "yes", "restart": "correctable"}, headers=HTMX
    )
    body = response.content.decode()
    assert "Could the error be corrected?" in body and 'type="hidden" name="a.correctable"' not in body


def test_stale_version_gets_conflict_with_the_message_at_the_item(client, world):
    _, items, rater = world
    evaluation.record_judgement(items[0], rater, "grammaticality", label="Perfect")
    client.force_login(rater)
    response = client.post(
        url(items[0]), {"a.grammatical": "yes", "a.natural": "awkward", "version": "0"}, headers=HTMX
    )
    assert response.status_code == 409
    assert "changed in another tab or device" in response.content.decode()
    assert Judgement.objects.get().label == "Perfect"


def test_a_broken_rule_answers_422_at_the_spot(client, world):
    _, items, rater = world
    client.force_login(rater)
    response = client.post(url(items[0], "meaning"), {"a.share": "no", "version": "0"}, headers=HTMX)
    assert response.status_code == 422
    assert "Submit the grammaticality" in response.content.decode()
    bad = client.post(url(items[0]), {"a.grammatical": "perhaps"}, headers=HTMX)
    assert bad.status_code == 422 and "is not one of yes, no" in bad.content.decode()


def test_without_htmx_a_complete_answer_redirects_back_to_the_step(client, world):
    unit, items, rater = world
    client.force_login(rater)
    response = client.post(url(items[1]), {"a.grammatical": "yes", "a.natural": "perfect", "version": "0"})
    assert response.status_code == 302
    assert response["Location"] == reverse("annotator:unit-grammaticality", args=[unit.project_id, unit.pk])
    partial = client.post(url(items[1]), {"a.grammatical": "no"})
    assert partial.status_code == 200 and "<html" in partial.content.decode()


def test_cancel_keeps_the_saved_label(client, world):
    _, items, rater = world
    evaluation.record_judgement(items[0], rater, "grammaticality", label="Awkward")
    client.force_login(rater)
    response = client.post(url(items[0]), {"cancel": "1"}, headers=HTMX)
    assert 'data-label="Awkward"' in response.content.decode()


def test_role_matrix(client, world):
    _, items, rater = world
    data = {"a.grammatical": "yes", "a.natural": "perfect", "version": "0"}
    assert client.post(url(items[0]), data).status_code == 302  # anonymous → login
    client.force_login(make.cast().outsider)
    assert client.post(url(items[0]), data).status_code == 404
    client.force_login(rater)
    assert client.get(url(items[0])).status_code == 405
    assert client.post(url(items[0], "fluency"), data).status_code == 404
    assert not Judgement.objects.exists()
