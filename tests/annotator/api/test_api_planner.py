"""REST API: the assignment planner (inputs, plan with dry run, reassignment) of a project."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from annotator.corpus import projects
from annotator.leadtools import planning
from annotator.models import Assignment, AssignmentPlan, Membership
from annotator.projects.roles import grant_role
from tests import make
from tests.make import api_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]  # plans computed in-process


@pytest.fixture
def world():
    cast = make.cast()
    lead, anna, ben, cat = cast.lead, cast.anna, cast.ben, cast.cat
    other = make.cast().other_lead
    admin = make.cast().admin
    project = make.project_with_pairs("Plan", n_pairs=6, lead=lead)
    for user in (anna, ben, cat):
        grant_role(project, user, "annotator")
    theirs = make.project_with_pairs("Theirs", lead=other)
    return {
        "lead": lead,
        "anna": anna,
        "ben": ben,
        "cat": cat,
        "other": other,
        "admin": admin,
        "project": project,
        "theirs": theirs,
    }


def url(project, action=""):
    return f"/api/projects/{project.pk}/planner/" + (f"{action}/" if action else "")


def plan(world, user=None, **body):
    body.setdefault("seed", 4)
    return api_client(user or world["lead"]).post(url(world["project"], "plan"), body, format="json")


def test_lead_reads_the_planner_inputs_and_the_assignment_summary(world):
    projects.assign_pairs(world["project"], [world["anna"]], world["project"].pairs.all()[:2])
    response = api_client(world["lead"]).get(url(world["project"]))
    assert response.status_code == 200
    body = response.json()
    assert body["n_pairs"] == 6 and body["phase"] == world["project"].phase
    assert [a["username"] for a in body["annotators"]] == ["anna", "ben", "cat"]
    summary = {row["username"]: row for row in body["summary"]}
    assert summary["anna"]["total"] == 2 and summary["anna"]["todo"] == 2 and summary["ben"]["total"] == 0
    assert body["per_pair_choices"] == ["everyone", "one", "k"]


def test_dry_run_returns_the_plan_and_writes_nothing(world):
    response = plan(world, per_pair="one", dry_run=True)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["dry_run"] is True and body["created"] is None
    assert body["plan"]["n_pairs"] == 6 and len(body["plan"]["assignments"]) == 6
    assert body["plan"]["status"] == "ready" and body["plan"]["n_new"] == 6
    assert sorted(load["new"] for load in body["plan"]["loads"]) == [2, 2, 2]
    assert Assignment.objects.filter(project=world["project"]).count() == 0


def test_applied_plan_creates_the_assignments_it_showed(world):
    preview = plan(world, per_pair="k", k=2, dry_run=True).json()["plan"]
    response = plan(world, per_pair="k", k=2)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["created"] == 12 and body["plan"]["assignments"] == preview["assignments"]
    rows = Assignment.objects.filter(project=world["project"]).values_list("annotator_id", "pair_id")
    assert sorted(rows) == sorted(tuple(row) for row in preview["assignments"])
    # every pair has two annotators, and every two annotators share about the same number of pairs
    assert {shared["shared"] for shared in body["plan"]["overlap"]} == {2}
    again = plan(world, per_pair="k", k=2)
    assert again.status_code == 201 and again.json()["created"] == 0  # idempotent


def pairs_of(body):
    return list(dict.fromkeys(pair for _, pair in body["plan"]["assignments"]))


def test_the_same_seed_draws_the_same_sample(world):
    first = plan(world, selection="sample", n=3, seed=11, dry_run=True).json()
    again = plan(world, selection="sample", n=3, seed=11, dry_run=True).json()
    assert first["plan"]["id"] == again["plan"]["id"]  # computed once, stored
    assert pairs_of(first) == pairs_of(again) and len(pairs_of(first)) == 3
    expected = planning.select_pairs(world["project"], selection="sample", n=3, seed=11)
    assert pairs_of(first) == expected


def test_the_plan_answer_carries_the_first_page_of_a_large_plan(world):
    for n in range(40):
        projects.add_pair(world["project"], f"x{n}", tokens1=["a"], tokens2=["b"])
    body = plan(world, dry_run=True).json()["plan"]  # 46 pairs, 3 annotators each
    assert body["n_assignments"] == 138 and len(body["assignments"]) == planning.PLAN_PAGE_SIZE
    response = plan(world)
    assert response.json()["created"] == 138 and Assignment.objects.count() == 138


def test_applying_refuses_a_plan_whose_pairs_changed(world):
    preview = plan(world, per_pair="one", dry_run=True).json()["plan"]
    stored = AssignmentPlan.objects.get(pk=preview["id"])
    projects.add_pair(world["project"], "late", tokens1=["a"], tokens2=["b"])
    with pytest.raises(ValidationError, match="changed since this preview"):
        planning.apply_stored_plan(stored)
    assert Assignment.objects.count() == 0
    response = plan(world, per_pair="one")  # the API plans the project as it is now
    assert response.status_code == 201 and response.json()["created"] == 7
    assert response.json()["plan"]["id"] != preview["id"]


def test_omitted_seed_is_chosen_and_returned(world):
    body = api_client(world["lead"]).post(url(world["project"], "plan"), {"dry_run": True}, format="json")
    assert isinstance(body.json()["plan"]["seed"], int)


def test_filter_and_annotators_as_in_the_planner_form(world):
    response = plan(world, selection="filter", source_prefix="p1", annotators=[world["ben"].pk])
    assert response.status_code == 201
    rows = Assignment.objects.filter(project=world["project"]).values_list(
        "annotator__username", "pair__source_id"
    )
    assert list(rows) == [("ben", "p1")]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"selection": "sample"}, "n", "Give the number of pairs to sample."),
        ({"selection": "filter", "label_value": "1"}, "label_key", "Name the corpus label"),
        ({"per_pair": "k", "k": 5}, "k", "between 1 and 3"),
        ({"selection": "sample", "n": 99}, "n", "only 6 pairs"),
    ],
)
def test_the_planner_forms_and_services_rules_give_400(world, body, field, message):
    response = plan(world, **body)
    assert response.status_code == 400
    assert message in response.json()[field][0]
    assert Assignment.objects.count() == 0


def test_a_user_who_is_not_an_annotator_cannot_be_planned(world):
    response = plan(world, annotators=[world["other"].pk])
    assert response.status_code == 400 and "annotators" in response.json()
    assert Assignment.objects.count() == 0


def test_reassign_moves_unfinished_work(world):
    project = world["project"]
    projects.assign_pairs(project, [world["anna"]], project.pairs.all())
    done = Assignment.objects.filter(annotator=world["anna"]).order_by("pk").first()
    Assignment.objects.filter(pk=done.pk).update(status=Assignment.Status.DONE)
    body = {"from_user": world["anna"].pk, "to_user": world["ben"].pk, "remove_member": True}
    response = api_client(world["lead"]).post(url(project, "reassign"), body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"moved": 5, "already_held": 0, "removed_from_project": True}
    assert Assignment.objects.filter(annotator=world["ben"]).count() == 5
    assert Assignment.objects.get(annotator=world["anna"]).pk == done.pk  # finished work stays
    assert not Membership.objects.filter(project=project, user=world["anna"], role="annotator").exists()


def test_reassign_to_the_same_annotator_is_refused(world):
    body = {"from_user": world["anna"].pk, "to_user": world["anna"].pk}
    response = api_client(world["lead"]).post(url(world["project"], "reassign"), body, format="json")
    assert response.status_code == 400
    assert response.json() == {"to_user": ["Choose a different annotator to take the work over."]}


def test_only_the_projects_leads_and_admins_plan(world):
    project = world["project"]
    assert api_client(None).get(url(project)).status_code in (401, 403)
    for user, expected in ((world["anna"], 403), (world["other"], 404)):
        assert api_client(user).get(url(project)).status_code == expected
        assert plan(world, user).status_code == expected
        body = {"from_user": world["anna"].pk, "to_user": world["ben"].pk}
        assert api_client(user).post(url(project, "reassign"), body, format="json").status_code == expected
    assert Assignment.objects.count() == 0
    assert api_client(world["admin"]).get(url(project)).status_code == 200
    assert plan(world, world["admin"]).status_code == 201


def test_planner_inputs_take_few_queries(world, django_assert_max_num_queries):
    client = api_client(world["lead"])
    with django_assert_max_num_queries(10):
        assert client.get(url(world["project"])).status_code == 200
