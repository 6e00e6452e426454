"""The explorer's stored rows order and filter pairs exactly as `disagreement.ordered_pairs` does on the
rows computed from the whole project, and are refreshed after a change."""

from __future__ import annotations

import pytest

from annotator.leadtools import disagreement, explorer_rows
from annotator.models import ExplorerState, ExplorerValue
from tests import make

# The explorer's rows are refreshed by a task: in-process here also when the suite has a broker.
pytestmark = pytest.mark.usefixtures("eager_celery")


@pytest.fixture(scope="module")
def team(module_world):
    return module_world(make.team, n_pairs=6)


@pytest.fixture
def world(team, db):
    return make.fresh(team)


def _stored(project, measure, annotator_pair="", ptype=""):
    state = explorer_rows.resume_refresh(project)
    ordered = explorer_rows.Ordered(project, state, measure, annotator_pair, ptype)
    return [(item.pair.source_id, item.value) for item in ordered[0 : ordered.count()]], ordered


def test_stored_order_equals_the_order_computed_from_every_pair_for_every_filter(world):
    project = world["project"]
    _, rows = disagreement.project_rows(project)
    state = explorer_rows.resume_refresh(project)
    assert state.annotator_pairs == disagreement.annotator_pairs(rows.values())
    checked = 0
    for measure in disagreement.MEASURES:
        for annotator_pair in ["", *state.annotator_pairs]:
            for ptype in ["", *state.types]:
                expected = disagreement.ordered_pairs(
                    rows, measure=measure, annotator_pair=annotator_pair, ptype=ptype
                )
                got, ordered = _stored(project, measure, annotator_pair, ptype)
                assert got == expected, (measure, annotator_pair, ptype)
                assert ordered.n_compared() == sum(1 for _, v in expected if v is not None)
                checked += bool(expected)
    assert checked > 20


def test_a_change_refreshes_the_rows_in_process(world):
    project = world["project"]
    before = dict(_stored(project, "labels")[0])
    pair = project.pairs.get(source_id="p1")
    version = make.version(pair, world["anna"])
    from annotator.annotation import services

    services.set_pair_label(pair, world["anna"], "non_paraphrase", base_version=version)
    after = dict(_stored(project, "labels")[0])
    assert before["p1"] == 1.0 and after["p1"] == 0.0


def test_with_a_broker_a_stale_page_sends_nothing_and_the_computation_asks_a_worker(
    world, task_queue, client
):
    project = world["project"]
    explorer_rows.refresh(project)
    pair = project.pairs.get(source_id="p1")
    from annotator.agreement.computation import recompute
    from annotator.annotation import services

    services.set_pair_label(
        pair, world["anna"], "non_paraphrase", base_version=make.version(pair, world["anna"])
    )
    client.force_login(world["lead"])
    from django.urls import reverse

    url = reverse("annotator:explorer", args=[project.pk])
    first, second = client.get(url), client.get(url)
    assert "recomputing…" in first.content.decode() and second.status_code == 200
    assert task_queue.args_of(explorer_rows.REFRESH_TASK) == []  # a read sends nothing
    assert ExplorerValue.objects.filter(project=project, annotators="", ptype="").count() == 6
    assert recompute(project.pk).startswith("stored")
    assert task_queue.args_of(explorer_rows.REFRESH_TASK) == [(project.pk,)]


def test_refresh_replaces_the_rows_and_counts(world):
    project = world["project"]
    stored = explorer_rows.refresh(project)
    assert explorer_rows.refresh(project) == stored == ExplorerValue.objects.filter(project=project).count()
    state = ExplorerState.objects.get(project=project)
    assert state.counts[""][""]["total"] == 6 and state.source == explorer_rows.source_mark(project)


def test_pairs_imported_without_annotations_appear_in_the_explorer(world):
    project = world["project"]
    assert _stored(project, "do_f1")[1].count() == 6
    from annotator.corpus import projects

    projects.add_pair(project, "p7", tokens1=["A", "."], tokens2=["B", "."])
    got, ordered = _stored(project, "do_f1")
    assert ordered.count() == 7 and got[-1] == ("p7", None)
