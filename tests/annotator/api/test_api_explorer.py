"""REST API: the disagreement explorer (pairs ordered by agreement, one pair's two versions compared).

The world (tests/make.py): p1 and p4 agreed by anna, ben and cat; p2 labels differ (ben);
p3 phenomena differ (ben: Semantics, cat: Same polarity global) and ben misses the link film→Film.
"""

from __future__ import annotations

import pytest

from annotator.leadtools import disagreement
from tests import make
from tests.make import api_client

# The explorer's rows are refreshed by a task: in-process here also when the suite has a broker.
pytestmark = pytest.mark.usefixtures("eager_celery")


@pytest.fixture(scope="module")
def team(module_world):
    return module_world(make.team)


@pytest.fixture
def world(team, db):
    return make.fresh(team)


def url(world, **query):
    from urllib.parse import urlencode

    return f"/api/projects/{world['project'].pk}/explorer/" + ("?" + urlencode(query) if query else "")


def pair_url(world, source_id, **query):
    from urllib.parse import urlencode

    pair = world["project"].pairs.get(source_id=source_id)
    base = f"/api/projects/{world['project'].pk}/explorer/{pair.pk}/"
    return base + ("?" + urlencode(query) if query else "")


def get(world, path, user="lead"):
    return api_client(world[user]).get(path)


def test_pairs_come_lowest_agreement_first_with_the_services_values(world):
    response = get(world, url(world))
    assert response.status_code == 200
    body = response.json()
    assert body["measure"] == "do_f1" and body["count"] == 4 and body["n_compared"] == 4
    _, rows = disagreement.project_rows(world["project"])
    expected = disagreement.ordered_pairs(rows, measure="do_f1")
    assert [(r["source_id"], r["value"]) for r in body["results"]] == expected
    assert [r["source_id"] for r in body["results"]][:2] == ["p3", "p2"]
    first = body["results"][0]
    assert first["pair"] == world["project"].pairs.get(source_id="p3").pk
    assert {v["annotators"]: v["value"] for v in first["per_annotator_pair"]} == rows["p3"]["do_f1"]
    assert body["annotator_pairs"] == ["anna|ben", "anna|cat", "ben|cat"]


def test_label_measure_puts_the_label_disagreement_first(world):
    body = get(world, url(world, measure="labels")).json()
    assert body["results"][0]["source_id"] == "p2" and body["results"][0]["value"] == 0.0
    assert body["results"][0]["labels"]["ben"] == "non_paraphrase"


def test_type_and_annotator_pair_filters(world):
    by_type = get(world, url(world, type="Semantics")).json()
    assert [r["source_id"] for r in by_type["results"]] == ["p3"] and by_type["type"] == "Semantics"
    by_pair = get(world, url(world, annotators="anna|cat")).json()
    values = {r["source_id"]: r["value"] for r in by_pair["results"]}
    assert values["p3"] == 0.75 and values["p2"] == 1.0
    assert all(len(r["per_annotator_pair"]) == 1 for r in by_pair["results"])


def test_pages(world):
    body = get(world, url(world, page_size=3)).json()
    assert body["count"] == 4 and len(body["results"]) == 3 and body["next"] and body["previous"] is None
    second = get(world, body["next"]).json()
    assert len(second["results"]) == 1 and second["previous"]


@pytest.mark.parametrize(
    ("query", "field"), [({"measure": "kappa"}, "measure"), ({"annotators": "anna"}, "annotators")]
)
def test_unknown_measure_or_malformed_annotator_pair_is_400(world, query, field):
    response = get(world, url(world, **query))
    assert response.status_code == 400 and field in response.json()


def test_pair_comparison_defaults_to_the_two_who_agree_least(world):
    response = get(world, pair_url(world, "p3"))
    assert response.status_code == 200
    body = response.json()
    assert body["workers"] == ["anna", "ben", "cat"] and (body["a"], body["b"]) == ("anna", "ben")
    assert body["key"] == "anna|ben" and body["row"]["do_f1"]["anna|ben"] == 0.0
    by_type = {row["ptype_name"]: row for row in body["phenomena"]}
    assert by_type["Semantics"]["b"][0]["status"] == "only" and by_type["Semantics"]["a"] == []
    assert body["links"]["only_a"] == [{"i": 1, "j": 0, "token1": "film", "token2": "Film", "sure": True}]
    assert body["links"]["only_b"] == [] and body["links"]["both"] == 3


def test_pair_comparison_of_two_chosen_annotators(world):
    body = get(world, pair_url(world, "p3", a="cat", b="anna")).json()
    assert (body["a"], body["b"], body["key"]) == ("cat", "anna", "anna|cat")
    same_polarity = next(row for row in body["phenomena"] if row["ptype_name"] == "Same polarity")
    # identical scopes ("same"); only the projection differs (cat: global), which DO F1 counts
    assert {v["status"] for v in same_polarity["a"] + same_polarity["b"]} == {"same"}
    assert (
        same_polarity["a"][0]["phenomenon"]["projection"] == "global"
        and body["row"]["do_f1"]["anna|cat"] == 0.75
    )
    assert body["links"]["only_a"] == body["links"]["only_b"] == []


def test_pair_comparison_refuses_annotators_who_did_not_work_on_it(world):
    response = get(world, pair_url(world, "p3", a="anna", b="lead"))
    assert response.status_code == 400 and "anna, ben, cat" in response.json()["a"][0]


def test_pair_nobody_worked_on_has_nothing_to_compare(world):
    from annotator.corpus import projects

    pair = projects.add_pair(world["project"], "new", tokens1=["a"], tokens2=["b"])
    body = get(world, f"/api/projects/{world['project'].pk}/explorer/{pair.pk}/").json()
    assert body["workers"] == [] and body["a"] == body["b"] == "" and body["links"] is None


def test_annotators_cannot_read_the_explorer(world):
    """Agreement per pair reveals the others' annotations: like the page, leads and admins only."""
    for path in (url(world), pair_url(world, "p3")):
        response = get(world, path, user="anna")
        assert response.status_code == 403
        assert "non_paraphrase" not in response.content.decode() and "ben" not in response.content.decode()
        assert get(world, path, user="other_lead").status_code == 404
        assert get(world, path, user="admin").status_code == 200
        assert api_client(None).get(path).status_code in (401, 403)


def test_another_projects_pair_is_not_found_under_this_project(world):
    other_pair = world["other"].pairs.first()
    path = f"/api/projects/{world['project'].pk}/explorer/{other_pair.pk}/"
    assert get(world, path).status_code == 404


def test_explorer_page_takes_a_bounded_number_of_queries(world, django_assert_max_num_queries):
    client = api_client(world["lead"])
    client.get(url(world))  # the per-pair computation is cached after the first call
    with django_assert_max_num_queries(25):
        assert client.get(url(world, page=2, page_size=2)).status_code == 200
