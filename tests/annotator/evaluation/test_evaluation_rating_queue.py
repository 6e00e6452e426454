"""The rater's list of units (`annotator:rating-queue`, linked from the project page)."""

import pytest
from django.urls import reverse

from annotator.evaluation import reevaluation
from annotator.evaluation import services as evaluation
from tests import make

pytestmark = pytest.mark.django_db


def url(project):
    return reverse("annotator:rating-queue", args=[project.pk])


def test_project_page_links_to_the_rating_queue(client):
    rater = make.cast().anna
    project = make.evaluation_project(raters=(rater,))
    client.force_login(rater)
    body = client.get(reverse("annotator:project-detail", args=[project.pk])).content.decode()
    assert url(project) in body


def test_queue_lists_open_then_postponed_then_finalized_without_any_sentence(
    client, django_assert_max_num_queries
):
    rater = make.cast().anna
    project = make.evaluation_project(n_units=4, raters=(rater,))
    u1, u2, u3, u4 = project.units.order_by("position")
    evaluation.postpone_unit(u1, rater)
    make.rate_unit(u2, rater, "Perfect", "Equivalent")
    client.force_login(rater)
    with django_assert_max_num_queries(10):
        response = client.get(url(project))
    body = response.content.decode()
    assert response.status_code == 200
    assert (
        body.index('id="open-units"') < body.index('id="postponed-units"') < body.index('id="finished-units"')
    )
    assert f'id="queue-unit-{u1.pk}"' in body.split('id="postponed-units"')[1].split("</table>")[0]
    assert (
        reverse("annotator:unit-grammaticality", args=[project.pk, u3.pk])
        in body.split('id="next-unit"')[1][:200]
    )
    assert u1.source_sentence not in body and "put off" not in body
    assert "<strong>1</strong> of 4 units finalized" in body


def test_postponed_unit_comes_back_as_next_when_nothing_else_is_left(client):
    rater = make.cast().anna
    project = make.evaluation_project(n_units=2, raters=(rater,))
    u1, u2 = project.units.order_by("position")
    evaluation.postpone_unit(u1, rater)
    make.rate_unit(u2, rater, "Perfect", "Equivalent")
    client.force_login(rater)
    body = client.get(url(project)).content.decode()
    assert (
        reverse("annotator:unit-grammaticality", args=[project.pk, u1.pk])
        in body.split('id="next-unit"')[1][:200]
    )


def test_reevaluation_units_appear_first_once_drawn(client):
    raters = make.raters(2)
    project = make.evaluation_project(n_units=1, raters=tuple(raters))
    unit = project.units.get()
    make.rate_unit(unit, raters[0], "Perfect", "Equivalent")
    make.rate_unit(unit, raters[1], "Irredeemable", "Equivalent")
    reevaluation.build_reevaluation_sets(project, seed=0)
    client.force_login(raters[0])
    body = client.get(url(project)).content.decode()
    assert 'id="reevaluation"' in body and "Continue re-evaluation" in body
    assert reverse("annotator:unit-reevaluation", args=[project.pk, unit.pk]) in body


def test_role_matrix(client):
    cast = make.cast()
    rater, lead = cast.anna, cast.lead
    project = make.evaluation_project(raters=(rater,), lead=lead)
    assert client.get(url(project)).status_code == 302
    client.force_login(make.cast().outsider)
    assert client.get(url(project)).status_code == 404
    client.force_login(lead)
    lead_page = client.get(url(project))
    assert (
        lead_page.status_code == 200
        and "No evaluation units are assigned to you" in lead_page.content.decode()
    )
    assert reverse("annotator:evaluation-setup", args=[project.pk]) in lead_page.content.decode()
