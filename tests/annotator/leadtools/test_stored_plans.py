"""Stored assignment plans: computed once by a task, found again for the same choices, written exactly,
refused when the project's pairs or annotators changed."""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from annotator import taskqueue
from annotator.corpus import projects
from annotator.leadtools import planning
from annotator.models import Assignment, AssignmentPlan, Membership, PlannedAssignment
from annotator.projects.roles import grant_role
from tests import make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]  # plans computed in-process


@pytest.fixture
def setup():
    lead = make.cast().lead
    people = list(make.cast().annotators)
    project = make.project_with_pairs("Plan", n_pairs=12, lead=lead)
    for user in people:
        grant_role(project, user, Membership.Role.ANNOTATOR)
    return project, people, lead


def choices(people, **changes):
    values = {"annotator_ids": [u.pk for u in people], "per_pair": "k", "k": 2, "seed": 5}
    values.update(changes)
    return values


def test_the_stored_plan_is_the_plan_of_its_choices(setup):
    project, people, lead = setup
    stored = planning.request_plan(project, lead, **choices(people))
    plan = planning.plan_assignments(project, **choices(people))
    assert stored.status == AssignmentPlan.Status.READY and stored.created_by == lead
    rows = stored.rows.order_by("position").values_list("annotator_id", "pair_id")
    assert list(rows) == list(plan.assignments)
    assert stored.n_pairs == 12 and stored.n_assignments == 24 and stored.n_new == 24
    assert [(load["username"], load["new"]) for load in stored.loads] == [
        (load.username, load.new) for load in plan.loads
    ]
    assert stored.overlap == [[a, b, n] for (a, b), n in sorted(plan.overlap.items())]
    assert stored.first_pairs == [f"p{n}" for n in range(1, 9)]


def test_the_same_choices_find_the_same_plan_and_compute_it_once(setup, monkeypatch):
    project, people, lead = setup
    first = planning.request_plan(project, lead, **choices(people))
    monkeypatch.setattr(planning, "plan_assignments", lambda *a, **k: pytest.fail("planned again"))
    again = planning.request_plan(project, lead, **choices(people))
    assert again.pk == first.pk and AssignmentPlan.objects.count() == 1
    assert planning.compute_stored_plan(first.pk) == "ready"  # a re-delivered task changes nothing


def test_other_choices_or_changed_pairs_make_a_new_plan(setup):
    project, people, lead = setup
    first = planning.request_plan(project, lead, **choices(people))
    assert planning.request_plan(project, lead, **choices(people, seed=6)).pk != first.pk
    projects.add_pair(project, "late", tokens1=["a"], tokens2=["b"])
    changed = planning.request_plan(project, lead, **choices(people))
    assert changed.pk != first.pk and changed.n_pairs == 13


def test_choices_are_checked_before_anything_is_stored(setup):
    project, people, lead = setup
    with pytest.raises(ValidationError, match="only 12 pairs; cannot sample 20"):
        planning.request_plan(project, lead, **choices(people, selection="sample", n=20))
    with pytest.raises(ValidationError, match="between 1 and 3"):
        planning.request_plan(project, lead, **choices(people, k=4))
    with pytest.raises(ValidationError, match="not an annotator of this project"):
        planning.request_plan(project, lead, **choices([*people, lead]))
    assert not AssignmentPlan.objects.exists()


def test_applying_writes_the_stored_rows_once(setup):
    project, people, lead = setup
    stored = planning.request_plan(project, lead, **choices(people))
    assert planning.apply_stored_plan(stored) == 24
    written = Assignment.objects.filter(project=project).order_by("pk")
    assert list(written.values_list("annotator_id", "pair_id")) == list(
        stored.rows.order_by("position").values_list("annotator_id", "pair_id")
    )
    assert stored.applied_at is not None and stored.created == 24
    assert planning.apply_stored_plan(stored) == 0  # idempotent
    assert Assignment.objects.filter(project=project).count() == 24


def test_applying_keeps_what_is_already_assigned(setup):
    project, people, lead = setup
    projects.assign_pairs(project, people[:1], project.pairs.all()[:3])
    stored = planning.request_plan(project, lead, **choices(people, per_pair="everyone"))
    assert stored.n_new == 33 and stored.n_existing == 3
    assert planning.apply_stored_plan(stored) == 33


def test_applying_refuses_a_plan_whose_annotators_changed(setup):
    project, people, lead = setup
    stored = planning.request_plan(project, lead, **choices(people))
    grant_role(project, make.user("dan"), Membership.Role.ANNOTATOR)
    with pytest.raises(ValidationError, match="pairs or annotators changed since this preview"):
        planning.apply_stored_plan(stored)
    assert not Assignment.objects.exists()


def test_a_plan_still_computing_cannot_be_applied(setup, monkeypatch):
    project, people, lead = setup
    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: False)
    stored = planning.request_plan(project, lead, **choices(people))  # sent on commit: not yet run
    assert stored.status == AssignmentPlan.Status.PENDING
    with pytest.raises(ValidationError, match="not ready yet"):
        planning.apply_stored_plan(stored)
    assert planning.compute_stored_plan(stored.pk) == "ready"
    stored.refresh_from_db()
    assert stored.n_assignments == 24


def test_an_unreachable_queue_fails_the_plan_saying_so(
    setup, monkeypatch, django_capture_on_commit_callbacks
):
    project, people, lead = setup
    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: False)

    def down(name, *args, **kwargs):
        raise taskqueue.QueueUnavailable(name, ConnectionError("refused"))

    monkeypatch.setattr(taskqueue, "enqueue", down)
    with django_capture_on_commit_callbacks(execute=True):
        stored = planning.request_plan(project, lead, **choices(people))
    stored.refresh_from_db()
    assert stored.status == AssignmentPlan.Status.FAILED and "unreachable" in stored.error
    monkeypatch.undo()
    assert planning.request_plan(project, lead, **choices(people)).status == "ready"  # tried again


def test_choices_the_project_no_longer_allows_fail_the_plan_with_the_message(setup, monkeypatch):
    project, people, lead = setup
    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: False)
    stored = planning.request_plan(project, lead, **choices(people, selection="sample", n=12))
    project.pairs.filter(source_id="p1").delete()
    assert planning.compute_stored_plan(stored.pk) == "failed"
    stored.refresh_from_db()
    assert "only 11 pairs" in stored.error and not stored.rows.exists()


def test_older_plans_of_the_project_are_deleted(setup, monkeypatch):
    project, people, lead = setup
    monkeypatch.setattr(planning, "PLANS_KEPT", 3)
    plans = [planning.request_plan(project, lead, **choices(people, seed=seed)) for seed in range(5)]
    kept = AssignmentPlan.objects.filter(project=project).order_by("pk")
    assert list(kept.values_list("pk", flat=True)) == [plan.pk for plan in plans[-3:]]
    assert PlannedAssignment.objects.count() == 3 * 24


def test_a_page_of_the_plan_is_read_in_queue_order(setup):
    project, people, lead = setup
    stored = planning.request_plan(project, lead, **choices(people, per_pair="everyone"))
    page = planning.planned_page(stored, 1)
    assert [row["position"] for row in page] == list(range(36))
    assert page[0]["pair__source_id"] == "p1" and page[0]["is_new"] is True
    assert planning.planned_page(stored, 2) == [] and planning.plan_pages(stored) == 1


def test_opening_the_planner_again_shows_the_stored_plan_instead_of_computing_another() -> None:
    """A plain visit's default choices reuse the seed of the latest plan not yet applied, so visiting the
    page twice stores one plan, not one per visit."""
    project = make.project_with_pairs(
        "Revisit",
        n_pairs=6,
        lead=make.user("revisit-lead"),
        annotators=(make.user("rv-a"), make.user("rv-b")),
    )
    client = Client()
    client.force_login(project.memberships.get(role="lead").user)
    url = reverse("annotator:planner", args=[project.pk])
    assert client.get(url).status_code == 200
    assert client.get(url).status_code == 200
    assert AssignmentPlan.objects.filter(project=project).count() == 1
