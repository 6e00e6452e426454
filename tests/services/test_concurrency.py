"""Concurrent saves through the REST API on PostgreSQL: no lost update, no deadlock, no duplicate rows.

Each client runs in its own thread with its own database connection, and a barrier releases the
requests together so they really overlap inside PostgreSQL (row locks on the annotator's sheet and on
the project's agreement state). The recompute trigger after commit is recorded instead of being sent
to a queue, so these tests exercise the database alone.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from annotator.agreement import scheduling
from annotator.annotation import services as annotation_services
from annotator.corpus import projects
from annotator.models import AlignmentLink, AnnotationHistory, PairLabel, Phenomenon
from tests import make
from tests.make import api_client

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world(postgres_required, settings, monkeypatch):
    recomputes: list[int] = []
    monkeypatch.setattr("annotator.agreement.scheduling.schedule", recomputes.append)
    make.isolate_cache(settings)
    world = make.two_projects()
    world.recomputes = recomputes
    return world


def run_together(jobs: list[Callable[[], Any]]) -> list[Any]:
    """Run the jobs in threads released at the same moment; return their results (or exceptions)."""
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def runner(n: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[n] = jobs[n]()
        except Exception as exc:  # reported to the test, which fails on it
            results[n] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(n,)) for n in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a request hung (deadlock?)"
    return results


def test_two_tabs_adding_to_the_same_sheet_one_wins_the_other_gets_409(world):
    pair, ptype = world.pair, world.any_ptype()
    tabs = [api_client(world.anna), api_client(world.anna)]
    version = 0
    for round_ in range(5):
        bodies = [
            {"pair": pair.pk, "ptype": ptype.pk, "scope1": [n], "scope2": [n], "base_version": version}
            for n in (0, 1)
        ]
        responses = run_together(
            [
                lambda t=t, b=b: t.post("/api/phenomena/", b, format="json")
                for t, b in zip(tabs, bodies, strict=True)
            ]
        )
        codes = sorted(r.status_code for r in responses)
        assert codes == [201, 409], (round_, [r.content for r in responses])
        winner = next(r for r in responses if r.status_code == 201).json()
        loser = next(r for r in responses if r.status_code == 409).json()
        assert loser["current_version"] == winner["version"]  # the loser learns the version to reload
        version = winner["version"]
    assert Phenomenon.objects.filter(annotator=world.anna).count() == 5
    assert PairLabel.objects.filter(pair=pair, annotator=world.anna).count() == 1
    assert annotation_services.sheet_version(pair, world.anna) == version


def test_two_devices_editing_one_phenomenon_no_lost_update(world):
    phenomenon, version = annotation_services.add_phenomenon(
        world.pair, world.anna, world.any_ptype(), scope1=[0], scope2=[0], base_version=0
    )
    url = f"/api/phenomena/{phenomenon.pk}/"
    responses = run_together(
        [
            lambda: api_client(world.anna).patch(
                url, {"scope1": [2], "base_version": version}, format="json"
            ),
            lambda: api_client(world.anna).patch(
                url, {"scope1": [4], "base_version": version}, format="json"
            ),
        ]
    )
    assert sorted(r.status_code for r in responses) == [200, 409]
    winner = next(r for r in responses if r.status_code == 200).json()["phenomenon"]
    phenomenon.refresh_from_db()
    assert phenomenon.scope1 == winner["scope1"]  # what the winner saw saved is what is stored
    assert (
        AnnotationHistory.objects.filter(model="phenomenon", object_id=phenomenon.pk, action="update").count()
        == 1
    )


def test_many_annotators_saving_at_once_no_deadlock_no_duplicates(world):
    annotators = [make.user(f"a{n}") for n in range(12)]
    projects.assign_pairs(world.project, annotators, list(world.project.pairs.all()))
    pair, ptype = world.pair, world.any_ptype()
    saves_each = 4

    def annotate(user: Any) -> list[int]:
        client, version, codes = api_client(user), 0, []
        for n in range(saves_each):
            body = {
                "pair": pair.pk,
                "ptype": ptype.pk,
                "scope1": [n],
                "scope2": [n % 4],
                "base_version": version,
            }
            response = client.post("/api/phenomena/", body, format="json")
            codes.append(response.status_code)
            version = response.json()["version"]
            links = {"pair": pair.pk, "links": [[n, n % 4]], "sure": n % 2 == 0, "base_version": version}
            response = client.post("/api/links/", links, format="json")
            codes.append(response.status_code)
            version = response.json()["version"]
        return codes

    results = run_together([lambda u=u: annotate(u) for u in annotators])
    errors = [r for r in results if isinstance(r, Exception)]
    assert not errors, errors
    assert Counter(code for codes in results for code in codes) == {
        201: 12 * saves_each,
        200: 12 * saves_each,
    }
    for user in annotators:
        assert Phenomenon.objects.filter(pair=pair, annotator=user).count() == saves_each
        assert AlignmentLink.objects.filter(pair=pair, annotator=user).count() == saves_each
        assert PairLabel.objects.filter(pair=pair, annotator=user).count() == 1  # one sheet, never two
        assert annotation_services.sheet_version(pair, user) == 1 + 2 * saves_each
    # the first committed save marked the project dirty and asked for its recompute; the saves that
    # followed found it dirty (no task has run to clear it) and asked for nothing more
    assert world.recomputes == [world.project.pk]
    assert scheduling.is_queued(world.project.pk)


def test_first_saves_of_one_annotator_racing_create_one_sheet(world):
    """Two first saves on a fresh sheet without a version (scripted loads) both land on one sheet."""
    pair = world.pair
    bodies = [{"pair": pair.pk, "links": [[n, n]], "sure": True, "base_version": None} for n in range(4)]
    responses = run_together(
        [lambda b=b: api_client(world.ben).post("/api/links/", b, format="json") for b in bodies]
    )
    assert [r.status_code for r in responses] == [200] * 4
    assert PairLabel.objects.filter(pair=pair, annotator=world.ben).count() == 1
    assert AlignmentLink.objects.filter(pair=pair, annotator=world.ben).count() == 4
    assert sorted(r.json()["version"] for r in responses) == [2, 3, 4, 5]
