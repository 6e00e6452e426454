"""Assigning a whole project through the API (`POST /api/assignments/` without `pairs`) goes through the
planner's stored plan: the worker stores the planned rows, the request writes them in batches and never
holds the project's pairs; a long pair list is refused with the way to assign them all."""

from __future__ import annotations

import pytest

from annotator.api.serializers import ASSIGN_PAIRS_MAX
from annotator.models import Assignment, AssignmentPlan, Pair
from tests import make
from tests.make import api_client

# the plan task runs in-process even when REDIS_URL names a broker (no worker runs these tests)
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


@pytest.fixture
def world():
    return make.two_projects(n_pairs=5)


def assign(world, **extra):
    body = {"project": world.project.pk, "annotators": [world.outsider.username], **extra}
    return api_client(world.lead).post("/api/assignments/", body, format="json")


def test_the_whole_project_is_assigned_through_a_stored_plan(world, monkeypatch):
    loaded: list[int] = []
    original = Pair.from_db.__func__

    def counting(cls, *args, **kwargs):
        loaded.append(1)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(Pair, "from_db", classmethod(counting))
    answer = assign(world)
    assert answer.status_code == 201, answer.content
    plan = AssignmentPlan.objects.get(pk=answer.json()["plan"])
    assert plan.applied_at is not None and plan.created == 5 == answer.json()["created"]
    assert Assignment.objects.filter(project=world.project, annotator=world.outsider).count() == 5
    assert loaded == []  # no pair was built in the request (nor in the in-process plan task)


def test_asking_again_assigns_nothing_twice(world):
    assign(world)
    again = assign(world)
    assert again.status_code == 201 and again.json()["created"] == 0
    assert Assignment.objects.filter(project=world.project, annotator=world.outsider).count() == 5


def test_while_the_plan_is_computing_the_answer_is_202(world, monkeypatch):
    monkeypatch.setattr("annotator.leadtools.planning._send", lambda plan_id: None)
    answer = assign(world)
    assert answer.status_code == 202 and answer.json()["created"] is None
    assert AssignmentPlan.objects.get(pk=answer.json()["plan"]).status == AssignmentPlan.Status.PENDING
    assert not Assignment.objects.filter(annotator=world.outsider).exists()


def test_a_pair_list_longer_than_the_limit_is_refused(world):
    answer = assign(world, pairs=list(range(1, ASSIGN_PAIRS_MAX + 2)))
    assert answer.status_code == 400 and "pairs" in answer.json()


def test_a_listed_pair_is_still_assigned_directly(world):
    pair = world.project.pairs.order_by("position").first()
    answer = assign(world, pairs=[pair.pk])
    assert answer.status_code == 201 and answer.json() == {"created": 1, "plan": None}
