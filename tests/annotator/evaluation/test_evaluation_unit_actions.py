"""Submitting step 1, finalizing, postponing (`unit-grammaticality-submit`, `unit-finalize`, `unit-postpone`)."""

import pytest
from django.urls import reverse

from annotator.evaluation import services as evaluation
from annotator.models import Assignment
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    rater = make.cast().anna
    project = make.evaluation_project(n_units=2, raters=(rater,))
    return project, list(project.units.order_by("position")), rater


def action(name, unit):
    return reverse(f"annotator:{name}", args=[unit.project_id, unit.pk])


def test_submit_with_missing_labels_says_which_and_stays(client, world):
    _, (u1, _), rater = world
    evaluation.record_judgement(u1.items.first(), rater, "grammaticality", label="Perfect")
    client.force_login(rater)
    response = client.post(action("unit-grammaticality-submit", u1), follow=True)
    assert response.redirect_chain[-1][0] == action("unit-grammaticality", u1)
    assert "missing: u1e2, u1e3" in response.content.decode()
    assert Assignment.objects.get(unit=u1).step == "grammaticality"


def test_submit_opens_the_meaning_step(client, world, django_assert_max_num_queries):
    _, (u1, _), rater = world
    for item in u1.items.all():
        evaluation.record_judgement(item, rater, "grammaticality", label="Perfect")
    client.force_login(rater)
    with django_assert_max_num_queries(15):
        response = client.post(action("unit-grammaticality-submit", u1))
    assert response["Location"] == action("unit-meaning", u1)
    assert Assignment.objects.get(unit=u1).step == "meaning"


def test_finalize_moves_on_to_the_next_unit(client, world):
    _, (u1, u2), rater = world
    make.rate_unit(u1, rater, "Perfect", "Equivalent")  # finalized through the service
    for item in u2.items.all():
        evaluation.record_judgement(item, rater, "grammaticality", label="Perfect")
    evaluation.submit_grammaticality(u2, rater)
    for item in u2.items.all():
        evaluation.record_judgement(item, rater, "meaning", label="Equivalent")
    client.force_login(rater)
    response = client.post(action("unit-finalize", u2))
    assert response["Location"] == reverse("annotator:rating-queue", args=[u2.project_id])
    assert Assignment.objects.get(unit=u2).step == "finalized"


def test_postpone_goes_to_the_next_unit_and_the_unit_comes_back(client, world):
    project, (u1, u2), rater = world
    client.force_login(rater)
    response = client.post(action("unit-postpone", u1))
    assert response["Location"] == action("unit-grammaticality", u2)
    assert Assignment.objects.get(unit=u1).status == "postponed"
    make.rate_unit(u2, rater, "Perfect", "Equivalent")
    assert evaluation.next_unit(project, rater).unit == u1


def test_actions_need_post_and_the_rater(client, world):
    _, (u1, _), rater = world
    for name in ("unit-grammaticality-submit", "unit-finalize", "unit-postpone"):
        assert client.post(action(name, u1)).status_code == 302  # anonymous → login
        client.force_login(make.user(f"olga-{name}"))
        assert client.post(action(name, u1)).status_code == 404
        client.force_login(rater)
        assert client.get(action(name, u1)).status_code == 405
        client.logout()
    assert Assignment.objects.get(unit=u1).status == "todo"
