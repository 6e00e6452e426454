"""The assignment planner page: who may open it, the htmx preview of the stored plan (computed once, read
a page at a time, polled while a worker computes it), assigning exactly that plan, reassigning."""

import re

import pytest
from django.urls import reverse

from annotator import taskqueue
from annotator.corpus import projects
from annotator.leadtools import planning
from annotator.models import Assignment, AssignmentPlan
from annotator.projects.roles import grant_role
from tests import make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]  # plans computed in-process


@pytest.fixture
def world():
    cast = make.cast()
    lead, anna, ben = cast.lead, cast.anna, cast.ben
    other = make.cast().other_lead
    admin = make.cast().admin
    project = make.project_with_pairs("Plan", n_pairs=6, lead=lead)
    for user in (anna, ben):
        grant_role(project, user, "annotator")
    theirs = make.project_with_pairs("Theirs", lead=other)
    return {
        "lead": lead,
        "anna": anna,
        "ben": ben,
        "other": other,
        "admin": admin,
        "project": project,
        "theirs": theirs,
    }


def url(project, name="annotator:planner"):
    return reverse(name, args=[project.pk])


def form(world, **changes):
    data = {
        "selection": "all",
        "seed": "4",
        "annotators": [world["anna"].pk, world["ben"].pk],
        "per_pair": "everyone",
        "k": "2",
        "phase": "training",
    }
    data.update(changes)
    return data


def test_role_matrix(client, world):
    project = world["project"]
    assert client.get(url(project)).status_code == 302  # anonymous → login
    client.force_login(world["anna"])
    assert client.get(url(project)).status_code == 403
    client.force_login(world["other"])
    assert client.get(url(project)).status_code == 404
    client.force_login(world["lead"])
    assert client.get(url(project)).status_code == 200
    assert client.get(url(world["theirs"])).status_code == 404
    client.force_login(world["admin"])
    assert client.get(url(project)).status_code == 200


def test_page_shows_a_preview_of_the_default_plan(client, world):
    client.force_login(world["lead"])
    body = client.get(url(world["project"])).content.decode()
    assert 'id="plan-preview"' in body and "12</strong> new assignments" in body
    assert Assignment.objects.count() == 0


def test_htmx_request_gets_the_preview_partial_with_the_load(client, world):
    client.force_login(world["lead"])
    response = client.get(
        url(world["project"]),
        form(world, per_pair="one"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="plan-preview",
    )
    body = response.content.decode()
    assert response.status_code == 200 and body.lstrip().startswith('<section class="card" id="plan-preview"')
    assert "6</strong> new assignments" in body and "<html" not in body
    assert Assignment.objects.count() == 0


def test_invalid_options_say_what_is_wrong_in_the_preview(client, world):
    client.force_login(world["lead"])
    response = client.get(
        url(world["project"]),
        form(world, selection="sample", n=""),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="plan-preview",
    )
    assert "Give the number of pairs to sample." in response.content.decode()


def previewed(client, world, **changes):
    """The id of the stored plan the preview of these options shows."""
    response = client.get(url(world["project"]), form(world, **changes), HTTP_HX_REQUEST="true")
    found = re.search(r'name="plan" value="(\d+)"', response.content.decode())
    assert found, response.content.decode()
    return found.group(1)


def test_confirming_writes_the_assignments_once(client, world):
    client.force_login(world["lead"])
    plan = previewed(client, world, per_pair="one")
    response = client.post(url(world["project"]), form(world, per_pair="one", plan=plan))
    assert response.status_code == 200
    assert Assignment.objects.filter(project=world["project"]).count() == 6
    client.post(url(world["project"]), form(world, per_pair="one", plan=plan))
    assert Assignment.objects.filter(project=world["project"]).count() == 6


def test_assigning_writes_exactly_the_stored_plan(client, world):
    client.force_login(world["lead"])
    plan = previewed(client, world, per_pair="k", k="1")
    stored = list(
        AssignmentPlan.objects.get(pk=plan).rows.order_by("position").values_list("annotator_id", "pair_id")
    )
    client.post(url(world["project"]), form(world, per_pair="k", k="1", plan=plan))
    written = Assignment.objects.filter(project=world["project"]).order_by("pk")
    assert list(written.values_list("annotator_id", "pair_id")) == stored


def test_after_assigning_the_form_keeps_its_selection_and_shows_what_was_created(client, world):
    client.force_login(world["lead"])
    options = {"selection": "filter", "source_prefix": "p1", "per_pair": "one"}
    plan = previewed(client, world, **options)
    page = client.post(url(world["project"]), form(world, plan=plan, **options)).content.decode()
    assert "Created 1 new assignment" in page
    assert re.search(r'<input[^>]*name="selection"[^>]*value="filter"[^>]*checked', page)
    assert 'name="source_prefix" value="p1"' in page


def test_assigning_without_the_previewed_plan_asks_for_confirmation(client, world):
    client.force_login(world["lead"])
    other = previewed(client, world, per_pair="everyone")
    response = client.post(url(world["project"]), form(world, per_pair="one", plan=other))
    assert response.status_code == 422
    assert "not the preview you saw" in response.content.decode()
    assert Assignment.objects.count() == 0
    assert client.post(url(world["project"]), form(world, per_pair="one")).status_code == 422
    assert Assignment.objects.count() == 0


def test_a_plan_whose_pairs_changed_is_shown_again_not_assigned(client, world):
    client.force_login(world["lead"])
    plan = previewed(client, world, per_pair="one")
    projects.add_pair(world["project"], "late", tokens1=["a"], tokens2=["b"])
    response = client.post(url(world["project"]), form(world, per_pair="one", plan=plan))
    assert response.status_code == 422 and "not the preview you saw" in response.content.decode()
    assert "7</strong> new assignments" in response.content.decode()
    assert Assignment.objects.count() == 0
    again = previewed(client, world, per_pair="one")
    assert again != plan
    client.post(url(world["project"]), form(world, per_pair="one", plan=again))
    assert Assignment.objects.count() == 7


def test_the_preview_shows_one_page_of_the_planned_assignments(client, world):
    for n in range(54):
        projects.add_pair(world["project"], f"x{n:02d}", tokens1=["a"], tokens2=["b"])
    client.force_login(world["lead"])
    plan = previewed(client, world)  # 60 pairs, both annotators: 120 planned assignments
    first = client.get(url(world["project"]), {"plan": plan}).content.decode()
    assert "Planned assignments 1–100 of 120" in first and "Page 1 of 2" in first
    second = client.get(url(world["project"]), {"plan": plan, "page": "2"}, HTTP_HX_REQUEST="true")
    body = second.content.decode()
    assert "Planned assignments 101–120 of 120" in body and "<html" not in body
    assert body.count('<td class="mono">') == 20 and ">x53<" in body and ">x43<" not in body


def test_a_plan_a_worker_computes_is_polled_until_ready(client, world, monkeypatch):
    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: False)  # a broker: the task runs elsewhere
    client.force_login(world["lead"])
    plan = previewed(client, world, per_pair="one")
    waiting = client.get(url(world["project"]), {"plan": plan}, HTTP_HX_REQUEST="true").content.decode()
    assert "Computing the plan" in waiting and 'hx-trigger="every 1s"' in waiting
    response = client.post(url(world["project"]), form(world, per_pair="one", plan=plan))
    assert response.status_code == 422 and Assignment.objects.count() == 0  # nothing to assign yet
    planning.compute_stored_plan(int(plan))  # the worker's task
    ready = client.get(url(world["project"]), {"plan": plan}, HTTP_HX_REQUEST="true").content.decode()
    assert "6</strong> new assignments" in ready and "every 1s" not in ready


def test_invalid_post_writes_nothing_and_answers_422(client, world):
    client.force_login(world["lead"])
    response = client.post(url(world["project"]), form(world, per_pair="k", k="5"))
    assert response.status_code == 422 and "between 1 and 2" in response.content.decode()
    assert Assignment.objects.count() == 0


def test_annotator_cannot_confirm_a_plan(client, world):
    client.force_login(world["anna"])
    assert client.post(url(world["project"]), form(world)).status_code == 403
    assert Assignment.objects.count() == 0


def test_reassign_moves_the_unfinished_work(client, world):
    projects.assign_pairs(world["project"], [world["anna"]], world["project"].pairs.all())
    client.force_login(world["lead"])
    response = client.post(
        url(world["project"], "annotator:planner-reassign"),
        {"from_user": world["anna"].pk, "to_user": world["ben"].pk},
        follow=True,
    )
    assert "Moved 6 unfinished pairs from anna to ben" in response.content.decode()
    assert Assignment.objects.filter(annotator=world["ben"]).count() == 6


def test_reassign_to_the_same_annotator_is_refused_with_a_message(client, world):
    client.force_login(world["lead"])
    response = client.post(
        url(world["project"], "annotator:planner-reassign"),
        {"from_user": world["anna"].pk, "to_user": world["anna"].pk},
        follow=True,
    )
    assert "Choose a different annotator" in response.content.decode()


def test_preview_query_count_does_not_grow_with_pairs(client, world, django_assert_max_num_queries):
    client.force_login(world["lead"])
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "plan-preview"}
    for n in range(30):
        projects.add_pair(world["project"], f"x{n}", tokens1=["a"], tokens2=["b"])
    plan = previewed(client, world)  # computed and stored once
    with django_assert_max_num_queries(12) as few:
        client.get(url(world["project"]), form(world), **headers)
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(url(world["project"]), {"plan": plan, "page": "2"}, **headers)
