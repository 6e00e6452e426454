"""REST API: re-annotation rounds (list with before/after, queue through the Celery task → 202)."""

from __future__ import annotations

import pytest

from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.leadtools import reannotation
from annotator.models import Assignment, ReannotationRound
from tests import make
from tests.make import api_client

# The explorer's rows are refreshed by a task: in-process here also when the suite has a broker.
pytestmark = pytest.mark.usefixtures("eager_celery")


@pytest.fixture(scope="module")
def team(module_world):
    return module_world(make.team, n_pairs=6)


@pytest.fixture
def world(team, db):
    return make.fresh(team)


def url(world):
    return f"/api/projects/{world['project'].pk}/reannotation/"


def queue(world, user="lead", **body):
    return api_client(world[user]).post(url(world), body, format="json")


def test_queue_returns_202_and_the_round_appears_where_it_says(world):
    with make.eager_tasks():
        response = queue(world, rule="label_disagreement", seed=8)
    assert response.status_code == 202, response.json()
    body = response.json()
    assert body["queued"] is True and body["draw"]["flagged"] == ["p2"] and body["draw"]["seed"] == 8
    assert body["poll"].endswith(url(world) + "?seed=8")
    rounds = api_client(world["lead"]).get(body["poll"]).json()
    assert rounds["count"] == 1
    round_ = rounds["results"][0]
    assert round_["round"] == 1 and round_["order"] == body["draw"]["order"]
    assert round_["created_by"] == world["lead"].pk and round_["compare"]["total"] == 3
    assert Assignment.objects.filter(project=world["project"], round=1).count() == 3


def test_the_task_gets_the_draws_inputs(world, task_queue):
    response = queue(world, rule="do_f1_below", params={"threshold": 0.5}, seed=3)
    assert response.status_code == 202
    assert task_queue.args_of("annotator.queue_reannotation") == [
        (world["project"].pk, "do_f1_below", {"threshold": 0.5}, 3, world["lead"].pk)
    ]
    assert ReannotationRound.objects.count() == 0  # nothing until a worker runs the task


def test_dry_run_shows_the_draw_and_queues_nothing(world, task_queue):
    response = queue(world, rule="selected", params={"pairs": ["p5", "p1"]}, seed=2, dry_run=True)
    assert task_queue.args_of("annotator.queue_reannotation") == []
    assert response.status_code == 200
    assert response.json()["queued"] is False and response.json()["draw"]["flagged"] == ["p1", "p5"]
    assert ReannotationRound.objects.count() == 0 and not Assignment.objects.filter(round__gt=0).exists()


def test_omitted_seed_is_chosen_and_returned(world):
    body = queue(world, rule="label_disagreement", dry_run=True).json()
    assert isinstance(body["draw"]["seed"], int)


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"rule": "do_f1_below"}, "threshold", "Give the DO F1 threshold"),
        ({"rule": "do_f1_below", "params": {"threshold": 1.5}}, "threshold", "must be in (0, 1]"),
        ({"rule": "selected", "params": {"pairs": ["nope"]}}, "pairs", "'nope' is not in this project"),
        ({"rule": "selected"}, "pairs", "Select at least one pair."),
    ],
)
def test_the_services_rules_give_400(world, body, field, message):
    response = queue(world, seed=1, **body)
    assert response.status_code == 400
    assert message in response.json()[field][0]
    assert ReannotationRound.objects.count() == 0


def test_unreachable_broker_is_503_and_queues_nothing(world, task_queue):
    task_queue.refuse_with = ConnectionError("broker down")
    response = queue(world, rule="label_disagreement", seed=8)
    assert response.status_code == 503 and "nothing was queued" in response.json()["detail"]
    assert ReannotationRound.objects.count() == 0


def test_rounds_show_agreement_before_and_now(world):
    project = world["project"]
    reannotation.queue_reannotation(project, "label_disagreement", {}, seed=3, actor=world["lead"])
    pair = project.pairs.get(source_id="p2")
    annotation_services.set_pair_label(pair, world["ben"], "paraphrase", base_version=None)
    recompute(project.pk)
    body = api_client(world["lead"]).get(url(world)).json()
    compare = body["results"][0]["compare"]
    assert compare["pairs"]["labels_before"] == 1 and compare["pairs"]["labels_after"] == 0
    assert {h["label"] for h in compare["headlines"]} >= {"Phenomena DO F1"}


def test_rounds_list_filters_by_round_and_seed_newest_first(world):
    project = world["project"]
    reannotation.queue_reannotation(project, "label_disagreement", {}, seed=3)
    reannotation.queue_reannotation(project, "do_f1_below", {"threshold": 0.5}, seed=4)
    client = api_client(world["lead"])
    assert [r["round"] for r in client.get(url(world)).json()["results"]] == [2, 1]
    assert [r["round"] for r in client.get(url(world) + "?seed=3").json()["results"]] == [1]
    assert client.get(url(world) + "?round=2").json()["results"][0]["rule"] == "do_f1_below"
    assert client.get(url(world) + "?round=x").status_code == 400


def test_only_the_projects_leads_and_admins_see_and_queue_rounds(world, task_queue):
    reannotation.queue_reannotation(world["project"], "label_disagreement", {}, seed=3)
    for user, expected in (("anna", 403), ("other_lead", 404)):
        response = api_client(world[user]).get(url(world))
        assert response.status_code == expected and "p2" not in response.content.decode()
        assert queue(world, user, rule="label_disagreement", seed=9).status_code == expected
    assert api_client(None).get(url(world)).status_code in (401, 403)
    assert api_client(world["admin"]).get(url(world)).status_code == 200
    assert task_queue.args_of("annotator.queue_reannotation") == []


def test_rounds_list_queries_grow_slowly_with_rounds(world, django_assert_max_num_queries):
    project = world["project"]
    client = api_client(world["lead"])
    reannotation.queue_reannotation(project, "label_disagreement", {}, seed=1)
    with django_assert_max_num_queries(40) as few:
        client.get(url(world))
    reannotation.queue_reannotation(project, "do_f1_below", {"threshold": 0.5}, seed=2)
    with django_assert_max_num_queries(len(few.captured_queries) + 3):
        client.get(url(world))
