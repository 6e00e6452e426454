"""A rater's queue costs the same per request for 500 units as for 6,000 (issue 17): the same number
of queries and rows fetched for the queue, a later page of it, a unit's page and moving on from a unit."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.evaluation import services as evaluation
from annotator.models import Assignment, EvaluationUnit, Membership
from annotator.projects.roles import grant_role
from tests import make
from tests.lists_scale import rated_units, request_cost, rows_fetched

pytestmark = pytest.mark.django_db


def _rating_project(n: int, name: str, rater):
    project = make.evaluation_project(name, n_units=0, raters=())
    grant_role(project, rater, Membership.Role.ANNOTATOR)
    rated_units(project, rater, n, again_every=2)
    return project


def test_the_rating_queue_costs_the_same_for_a_short_and_a_long_queue():
    rater = make.cast().anna
    costs = []
    for n, name in ((500, "Small"), (6000, "Large")):
        project = _rating_project(n, name, rater)
        client = make.logged_in(rater)
        url = reverse("annotator:rating-queue", args=[project.pk])
        middle = EvaluationUnit.objects.get(project=project, position=151)
        unit_page = reverse("annotator:unit-grammaticality", args=[project.pk, middle.pk])
        costs += [
            request_cost(client, url),
            request_cost(client, url + "?page=3&again=2"),
            request_cost(client, unit_page),
        ]
        response = client.get(url + "?page=3&again=2")
        context = response.context
        assert context["total"] == n and context["done"] == n // 3
        assert len(context["open"]) + len(context["postponed"]) + len(context["finished"]) == 100
        assert len(context["reevaluation"]) == 100 and context["again"].paginator.count == n // 2
        assert context["next"].unit.position == 1 and context["reevaluation_next"].unit.position == 2
        assert f"Units 201–300 of {n}".encode() in response.content
    for name, small, large in zip(("queue", "queue page 3", "unit page"), costs[:3], costs[3:], strict=True):
        assert small[:2] == large[:2], (name, small[:2], large[:2], large[2])
        assert large[1] < 250, (name, large)


def test_the_next_unit_is_one_row_whatever_the_queue(django_assert_num_queries):
    rater = make.cast().anna
    project = _rating_project(6000, "Large", rater)
    first = EvaluationUnit.objects.get(project=project, position=1)
    with django_assert_num_queries(1), rows_fetched() as rows:
        following = evaluation.next_unit(project, rater, after=first.pk)
    assert rows == [1]
    assert following is not None and following.unit.position == 2
    queue = Assignment.objects.filter(project=project, annotator=rater, round=0)
    queue.filter(status=Assignment.Status.TODO).exclude(unit__position=2).update(
        status=Assignment.Status.DONE
    )
    assert evaluation.next_unit(project, rater).unit.position == 2  # the one open unit before postponed ones
    queue.filter(unit__position=2).update(status=Assignment.Status.DONE)
    assert evaluation.next_unit(project, rater).unit.position == 7  # then the postponed ones, in order
    seventh = EvaluationUnit.objects.get(project=project, position=7)
    assert evaluation.next_unit(project, rater, after=seventh.pk).unit.position == 14
