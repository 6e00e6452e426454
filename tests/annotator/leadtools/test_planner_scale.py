"""The planner's preview costs the same per request whatever the project's size (issue 17): the plan is
computed once by a task and stored; the page reads its loads and one page of its planned assignments —
the same number of queries and rows fetched for a 330-pair project and a 6,000-pair one."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.urls import reverse

from annotator.models import AssignmentPlan
from tests import make
from tests.lists_scale import big_project, request_cost

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]  # plans computed in-process


def planner_urls(client, project) -> dict[str, str]:
    """The planner's preview of every pair, one annotator each (computed and stored by the first GET,
    in-process), then the same options again, the stored plan and its page 2."""
    url = reverse("annotator:planner", args=[project.pk])
    options = {
        "selection": "all",
        "seed": "4",
        "annotators": [user.pk for user in make.cast().annotators],
        "per_pair": "one",
        "k": "2",
        "phase": "training",
    }
    query = urlencode(options, doseq=True)
    assert client.get(f"{url}?{query}").status_code == 200
    plan = AssignmentPlan.objects.get(project=project)
    assert plan.status == "ready" and plan.n_assignments == project.pairs.count()
    return {
        "preview": f"{url}?{query}",
        "stored plan": f"{url}?plan={plan.pk}",
        "stored plan page 2": f"{url}?plan={plan.pk}&page=2",
    }


def test_the_planners_preview_costs_the_same_for_a_small_and_a_large_project():
    client = make.logged_in(make.cast().lead)
    small = planner_urls(client, big_project(330, "Small"))
    large = planner_urls(client, big_project(6000, "Large"))
    for name, url in small.items():
        small_cost = request_cost(client, url)
        large_cost = request_cost(client, large[name])
        assert small_cost[:2] == large_cost[:2], (name, small_cost[:2], large_cost[:2], large_cost[2])
        assert large_cost[1] < 250, (name, large_cost)  # a page, not the plan
    page = client.get(large["stored plan page 2"]).content.decode()
    assert "Planned assignments 101–200 of 6000" in page and "Page 2 of 60" in page
    assert AssignmentPlan.objects.count() == 2  # read, never planned again
