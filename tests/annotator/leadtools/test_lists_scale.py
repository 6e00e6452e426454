"""Every list of a project costs the same per request whatever its size (issue 17): the same number of
queries and the same number of rows fetched for a 330-pair project and a 6,000-pair one (SQLite or
PostgreSQL; tests/services/test_lists_million.py does 1,000,000 pairs on PostgreSQL)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.models import Pair
from tests import make
from tests.lists_scale import assign_all, big_project, list_urls, request_cost

pytestmark = pytest.mark.django_db


def test_every_list_costs_the_same_for_a_small_and_a_large_project():
    small = big_project(330, "Small")
    large = big_project(6000, "Large")
    client = make.logged_in(make.cast().lead)
    for name, url in list_urls(small).items():
        small_cost = request_cost(client, url)
        large_cost = request_cost(client, list_urls(large)[name])
        assert small_cost[:2] == large_cost[:2], (name, small_cost, large_cost[:2], large_cost[2])
        assert large_cost[1] < 200, (name, large_cost)  # a page, not the project


def test_the_explorer_page_shows_the_lowest_values_first():
    project = big_project(300)
    client = make.logged_in(make.cast().lead)
    body = client.get(list_urls(project)["explorer API page 2"]).json()
    values = [row["value"] for row in body["results"]]
    assert body["count"] == 300 and len(values) == 50
    assert values == sorted(values) and body["current"] is True


def test_the_annotators_queue_and_editor_cost_the_same_for_a_short_and_a_long_queue():
    c = make.cast()
    client = make.logged_in(c.anna)
    costs = []
    for n, name in ((330, "Small"), (6000, "Large")):
        project = big_project(n, name)
        assign_all(project, c.anna)
        url = reverse("annotator:queue", args=[project.pk])
        middle = Pair.objects.get(project=project, position=150)
        editor = reverse("annotator:pair-edit", args=[project.pk, middle.pk])
        costs += [
            request_cost(client, url),
            request_cost(client, url + "?page=3"),
            request_cost(client, editor),
        ]
        assert client.get(editor).context["position"] == 150
        response = client.get(url + "?page=3")
        rows = response.context["rows"]
        assert len(rows) == 100 and response.context["counts"].total == n
        assert b">201</td>" in response.content  # numbered from the page's first row
        assert response.context["started"] is True and response.context["next_id"] is not None
    for name, small, large in zip(("queue", "queue page 3", "editor"), costs[:3], costs[3:], strict=True):
        assert small[:2] == large[:2], (name, small[:2], large[:2], large[2])
        assert large[1] < 200, (name, large)
