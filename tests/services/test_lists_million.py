"""A 1,000,000-pair project on PostgreSQL costs the same per list request as a small one (issue 17)."""

from __future__ import annotations

import time

import pytest

from tests import make
from tests.lists_scale import big_project, list_urls, request_cost

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("postgres_required")]


def test_every_list_costs_the_same_for_a_million_pairs_as_for_a_few_hundred():
    small = big_project(330, "Small")
    started = time.process_time()
    large = big_project(1_000_000, "Million")
    assert large.pairs.count() == 1_000_000
    assert time.process_time() - started < 30  # made in SQL: no Python object per pair
    client = make.logged_in(make.cast().lead)
    for name, url in list_urls(small).items():
        small_cost = request_cost(client, url)
        large_cost = request_cost(client, list_urls(large)[name])
        assert small_cost[:2] == large_cost[:2], (name, small_cost[:2], large_cost[:2], large_cost[2])
        assert large_cost[1] < 200, (name, large_cost)
