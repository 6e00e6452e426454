"""Step 2 page: original and paraphrases together; read-only once finalized."""

import pytest
from django.urls import reverse

from annotator.evaluation import services as evaluation
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    rater = make.cast().anna
    project = make.evaluation_project(raters=(rater,))
    unit = project.units.get()
    for item in unit.items.all():
        evaluation.record_judgement(item, rater, "grammaticality", label="Awkward")
    return unit, rater


def url(unit):
    return reverse("annotator:unit-meaning", args=[unit.project_id, unit.pk])


def test_meaning_is_closed_until_grammaticality_is_submitted(client, world):
    unit, rater = world
    client.force_login(rater)
    response = client.get(url(unit))
    assert response.status_code == 302
    assert response["Location"] == reverse("annotator:unit-grammaticality", args=[unit.project_id, unit.pk])


def test_page_shows_the_original_with_its_phrase_and_each_paraphrase(
    client, world, django_assert_max_num_queries
):
    unit, rater = world
    evaluation.submit_grammaticality(unit, rater)
    client.force_login(rater)
    with django_assert_max_num_queries(12):
        response = client.get(url(unit))
    body = response.content.decode()
    assert response.status_code == 200
    assert 'The council <mark class="phrase">put off</mark> the vote until Monday.' in body
    assert 'The council <mark class="sub">postponed</mark> the vote until Monday.' in body
    assert body.count('data-question="share"') == 3 and "Awkward" in body


def test_finalized_unit_is_read_only(client, world):
    unit, rater = world
    evaluation.submit_grammaticality(unit, rater)
    for item in unit.items.all():
        evaluation.record_judgement(item, rater, "meaning", label="Equivalent")
    evaluation.finalize_unit(unit, rater)
    client.force_login(rater)
    body = client.get(url(unit)).content.decode()
    assert "You finalized this unit" in body
    assert "<form" not in body.split('<ol class="items">')[1].split("</ol>")[0]


def test_role_matrix(client, world):
    unit, rater = world
    evaluation.submit_grammaticality(unit, rater)
    assert client.get(url(unit)).status_code == 302
    for user, status in (
        (make.cast().outsider, 404),
        (make.cast().admin, 403),
        (rater, 200),
    ):
        client.force_login(user)
        assert client.get(url(unit)).status_code == status
