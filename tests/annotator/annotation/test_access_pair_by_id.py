"""`access.pair_for_annotation_by_id` (the API's one-query lookup) decides exactly like
`access.pair_for_annotation` (the editor's), for every user and every pair."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from annotator import access
from annotator.corpus import projects
from annotator.models import Pair
from tests import make

pytestmark = pytest.mark.django_db


def outcome(call):
    try:
        return call().pk
    except Http404:
        return 404
    except PermissionDenied:
        return 403


def test_same_decision_as_pair_for_annotation(django_assert_num_queries):
    world = make.two_projects()
    unassigned = projects.add_pair(world.project, "unassigned", tokens1=["a"], tokens2=["b"])
    users = [
        world.lead,
        world.other_lead,
        world.anna,
        world.ben,
        world.admin,
        world.outsider,
        AnonymousUser(),
    ]
    pairs = [*Pair.objects.all(), unassigned]
    decisions = set()
    for user in users:
        for pair in pairs:
            expected = outcome(lambda u=user, p=pair: access.pair_for_annotation(u, p.project_id, p.pk))
            got = outcome(lambda u=user, p=pair: access.pair_for_annotation_by_id(u, p.pk))
            assert got == expected, (user, pair)
            decisions.add(expected if expected in (403, 404) else "ok")
    assert decisions == {"ok", 403, 404}
    assert outcome(lambda: access.pair_for_annotation_by_id(world.anna, 10**6)) == 404
    pair_pk = world.pair.pk
    with django_assert_num_queries(1):
        pair = access.pair_for_annotation_by_id(world.anna, pair_pk)
        assert pair.project.name == "Alpha"  # loaded with the pair
