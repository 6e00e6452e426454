"""The planner's stored plan computed by a real Celery worker through Redis (PostgreSQL): the request
only stores the choices; the worker computes the plan once; a repeated task changes nothing."""

import time

import pytest

from annotator.core.tagsets import install_builtin_tagsets
from annotator.leadtools import planning
from annotator.models import AssignmentPlan, ParaphraseType, PlannedAssignment, Tagset
from annotator.tasks import compute_assignment_plan
from tests import make

pytestmark = [pytest.mark.services]


def test_worker_computes_the_plan_the_request_stored(postgres_required, celery_worker_process):
    if not Tagset.objects.filter(builtin=True).exists():
        install_builtin_tagsets(Tagset, ParaphraseType)
    world = make.team(n_pairs=6)
    project = world["project"]
    annotators = [pk for pk, _ in planning.project_annotators(project)]
    plan = planning.request_plan(project, world["lead"], annotator_ids=annotators, per_pair="k", k=2, seed=3)
    deadline = time.monotonic() + 60
    while plan.status != AssignmentPlan.Status.READY and time.monotonic() < deadline:
        time.sleep(0.2)
        plan.refresh_from_db()
    assert plan.status == AssignmentPlan.Status.READY, plan.error
    assert plan.n_pairs == 6 and plan.n_assignments == 12 and plan.n_new == 0  # the team holds every pair
    assert compute_assignment_plan.delay(plan.pk).get(timeout=60) == "ready"
    assert PlannedAssignment.objects.filter(plan=plan).count() == 12
    again = planning.request_plan(project, world["lead"], annotator_ids=annotators, per_pair="k", k=2, seed=3)
    assert again.pk == plan.pk
    assert planning.apply_stored_plan(plan) == 0
