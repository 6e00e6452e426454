"""REST API: pair labels, phenomena, links, phrase alignments and an annotator's sheet of a pair."""

from __future__ import annotations

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import AlignmentLink, AnnotationHistory, Pair, PairLabel, Phenomenon, PhraseAlignment
from tests import make
from tests.make import annotate_marked, api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return make.two_projects()


def _phenomenon_body(world, **extra):
    body = {"pair": world.pair.pk, "ptype": world.any_ptype().pk, "scope1": [1], "scope2": [0]}
    body.update(extra)
    body.setdefault("base_version", 0)
    return body


def test_annotator_adds_a_phenomenon_through_the_service(world):
    response = api_client(world.anna).post("/api/phenomena/", _phenomenon_body(world), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["version"] == 2
    assert body["phenomenon"]["scope1"] == [1] and body["phenomenon"]["annotator"] == world.anna.pk
    # The service's side effects: history row of the save's batch and the bumped sheet version.
    history = AnnotationHistory.objects.get(model="phenomenon", object_id=body["phenomenon"]["id"])
    assert history.action == "create" and history.batch == 2
    assert annotation_services.sheet_version(world.pair, world.anna) == 2


def test_stale_version_gets_conflict_with_current_version(world):
    annotation_services.add_phenomenon(
        world.pair, world.anna, world.any_ptype(), scope1=[0], scope2=[0], base_version=0
    )
    response = api_client(world.anna).post("/api/phenomena/", _phenomenon_body(world), format="json")
    assert response.status_code == 409
    assert response.json()["current_version"] == 2
    assert "another tab or device" in response.json()["detail"]
    assert Phenomenon.objects.filter(annotator=world.anna).count() == 1


def test_invalid_scope_gets_400_naming_field_and_token(world):
    response = api_client(world.anna).post(
        "/api/phenomena/", _phenomenon_body(world, scope1=[31]), format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"scope1": ["Token 31 is outside member 1, which has 6 tokens (0–5)."]}


def test_projection_rule_comes_from_the_shared_validation(world):
    body = _phenomenon_body(world, ptype=world.projected_ptype().pk)
    response = api_client(world.anna).post("/api/phenomena/", body, format="json")
    assert response.status_code == 400
    assert "requires a projection" in response.json()["projection"][0]
    body["projection"] = "local"
    assert api_client(world.anna).post("/api/phenomena/", body, format="json").status_code == 201


def test_type_outside_the_project_tagset_is_rejected(world):
    from annotator.models import ParaphraseType

    foreign = ParaphraseType.objects.exclude(tagset=world.project.tagset).first()
    response = api_client(world.anna).post(
        "/api/phenomena/", _phenomenon_body(world, ptype=foreign.pk), format="json"
    )
    assert response.status_code == 400 and "not in this project's tagset" in response.json()["ptype"][0]


def test_annotator_cannot_write_on_unassigned_pair_or_foreign_project(world):
    other_pair = world.other_project.pairs.first()
    response = api_client(world.anna).post(
        "/api/phenomena/", _phenomenon_body(world, pair=other_pair.pk), format="json"
    )
    assert response.status_code == 404
    response = api_client(world.lead).post("/api/phenomena/", _phenomenon_body(world), format="json")
    assert response.status_code == 403  # a lead is not an annotator of the pair


def test_update_and_delete_phenomenon_are_version_checked(world):
    phenomenon, version = annotation_services.add_phenomenon(
        world.pair, world.anna, world.any_ptype(), scope1=[0], scope2=[0], base_version=0
    )
    client = api_client(world.anna)
    url = f"/api/phenomena/{phenomenon.pk}/"
    stale = client.patch(url, {"scope1": [2], "base_version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["current_version"] == version
    ok = client.patch(url, {"scope1": [2], "base_version": version}, format="json")
    assert ok.status_code == 200 and ok.json()["phenomenon"]["scope1"] == [2]
    assert client.delete(f"{url}?base_version={version}").status_code == 409
    assert client.delete(url).status_code == 400  # base_version is required
    gone = client.delete(f"{url}?base_version={ok.json()['version']}")
    assert gone.status_code == 200 and not Phenomenon.objects.filter(pk=phenomenon.pk).exists()


def test_annotator_cannot_change_or_see_anothers_phenomenon(world):
    phenomenon, version = annotation_services.add_phenomenon(
        world.pair, world.ben, world.any_ptype(), scope1=[0], scope2=[0], base_version=0
    )
    client = api_client(world.anna)
    assert client.get(f"/api/phenomena/{phenomenon.pk}/").status_code == 404
    patch = client.patch(f"/api/phenomena/{phenomenon.pk}/", {"base_version": version}, format="json")
    assert patch.status_code == 404
    assert client.get("/api/phenomena/").json()["results"] == []


def test_lead_reads_everyones_phenomena_but_cannot_change_them(world):
    annotate_marked(world, world.anna)
    annotate_marked(world, world.ben)
    client = api_client(world.lead)
    rows = client.get(f"/api/phenomena/?project={world.project.pk}").json()["results"]
    assert {row["annotator"] for row in rows} == {world.anna.pk, world.ben.pk}
    only_ben = client.get(f"/api/phenomena/?annotator={world.ben.pk}").json()["results"]
    assert [row["annotator"] for row in only_ben] == [world.ben.pk]
    response = client.patch(f"/api/phenomena/{rows[0]['id']}/", {"base_version": None}, format="json")
    assert response.status_code == 403


def test_other_lead_sees_nothing_of_this_project(world):
    annotate_marked(world, world.anna)
    client = api_client(world.other_lead)
    assert client.get(f"/api/phenomena/?project={world.project.pk}").json()["results"] == []
    assert client.get(f"/api/pair-labels/?project={world.project.pk}").json()["results"] == []


def test_bad_filter_value_is_a_400_naming_the_parameter(world):
    response = api_client(world.anna).get("/api/phenomena/?pair=abc")
    assert response.status_code == 400 and "pair" in response.json()


def test_phenomena_list_is_paginated_in_constant_queries(world, django_assert_max_num_queries):
    for n in range(6):
        annotation_services.add_phenomenon(
            world.pair, world.anna, world.any_ptype(), scope1=[n], scope2=[0], base_version=None
        )
    client = api_client(world.anna)
    with django_assert_max_num_queries(4):
        body = client.get("/api/phenomena/?page_size=4").json()
    assert body["count"] == 6 and len(body["results"]) == 4 and body["next"]


def test_save_phenomenon_query_count(world, django_assert_num_queries):
    client = api_client(world.anna)
    client.post("/api/phenomena/", _phenomenon_body(world), format="json")  # sheet and state rows exist
    body = _phenomenon_body(world, base_version=2)
    # token, access (one query), type, sheet locked and its version bumped (one UPDATE … RETURNING),
    # the annotator's assignment put in progress if it was to do (one UPDATE), insert, history,
    # the agreement sums (the pair's inputs and kept part read in one statement, the part written, the
    # totals moved: three), agreement state marked changed, and the transaction's savepoint/release
    with django_assert_num_queries(13):
        response = client.post("/api/phenomena/", body, format="json")
    assert response.status_code == 201


def test_save_pair_label_query_count(world, django_assert_num_queries):
    client = api_client(world.anna)
    first = {"pair": world.pair.pk, "label": "non_paraphrase", "base_version": 0}
    version = client.post("/api/pair-labels/", first, format="json").json()["version"]
    body = {"pair": world.pair.pk, "label": "paraphrase", "base_version": version}
    # token, access (one query), the service's savepoint/release (one transaction), sheet locked and its
    # version bumped, the assignment put in progress if it was to do, history, the label, the agreement
    # sums moved by the label's difference (one statement), agreement state marked changed: 10 (the
    # answer is the sheet the service saved, not read again)
    with django_assert_num_queries(10):
        response = client.post("/api/pair-labels/", body, format="json")
    assert response.status_code == 200 and response.json()["label"] == "paraphrase"


def test_first_label_save_of_a_pair_query_count(world, django_assert_num_queries):
    client = api_client(world.anna)
    first = {"pair": world.pair.pk, "label": "paraphrase", "base_version": None}
    assert client.post("/api/pair-labels/", first, format="json").status_code == 200
    other = Pair.objects.filter(project=world.project).exclude(pk=world.pair.pk).first()
    body = {"pair": other.pk, "label": "non_paraphrase", "base_version": None}
    # the 10 of a label save above, and for the sheet not there yet: the bump that finds none and the
    # one INSERT that creates it: 12
    with django_assert_num_queries(12):
        response = client.post("/api/pair-labels/", body, format="json")
    assert response.status_code == 200 and response.json()["version"] == 2
    assert PairLabel.objects.get(pair=other, annotator=world.anna).label == "non_paraphrase"


def test_links_block_is_set_and_removed(world):
    client = api_client(world.anna)
    body = {"pair": world.pair.pk, "links": [[0, 0], [1, 0], [4, 2]], "sure": True, "base_version": 0}
    response = client.post("/api/links/", body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["version"] == 2
    assert sorted((link["i"], link["j"]) for link in response.json()["links"]) == [(0, 0), (1, 0), (4, 2)]
    possible = client.post(
        "/api/links/",
        {"pair": world.pair.pk, "links": [[4, 2]], "sure": False, "base_version": 2},
        format="json",
    )
    assert [link["sure"] for link in possible.json()["links"] if link["i"] == 4] == [False]
    removed = client.post(
        "/api/links/remove/", {"pair": world.pair.pk, "links": [[0, 0]], "base_version": 3}, format="json"
    )
    assert removed.status_code == 200 and len(removed.json()["links"]) == 2
    link = AlignmentLink.objects.get(annotator=world.anna, i=1)
    assert client.delete(f"/api/links/{link.pk}/?base_version=4").json() == {"version": 5}
    assert AlignmentLink.objects.filter(annotator=world.anna).count() == 1


def test_link_outside_member_is_400(world):
    response = api_client(world.anna).post(
        "/api/links/", {"pair": world.pair.pk, "links": [[0, 9]], "base_version": 0}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"j": ["Token 9 is outside member 2, which has 4 tokens (0–3)."]}


def test_phrase_alignment_create_and_delete(world):
    client = api_client(world.anna)
    body = {"pair": world.pair.pk, "node1": 1, "node2": 1, "sure": True, "base_version": 0}
    response = client.post("/api/phrase-alignments/", body, format="json")
    assert response.status_code == 201, response.json()
    alignment_id = response.json()["phrase_alignment"]["id"]
    none_none = client.post(
        "/api/phrase-alignments/", {**body, "node1": None, "node2": None, "base_version": 2}, format="json"
    )
    assert none_none.status_code == 400 and "node1" in none_none.json()
    out_of_tree = client.post(
        "/api/phrase-alignments/", {**body, "node1": 99, "base_version": 2}, format="json"
    )
    assert "outside tree 1" in out_of_tree.json()["node1"][0]
    deleted = client.delete(f"/api/phrase-alignments/{alignment_id}/?base_version=2")
    assert deleted.status_code == 200 and not PhraseAlignment.objects.exists()


def test_pair_label_and_comment_in_one_request(world):
    client = api_client(world.anna)
    body = {"pair": world.pair.pk, "label": "paraphrase", "comment": "clear case", "base_version": 0}
    response = client.post("/api/pair-labels/", body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["label"] == "paraphrase" and response.json()["comment"] == "clear case"
    assert response.json()["version"] == 3  # two changes, two versions
    bad = client.post(
        "/api/pair-labels/", {"pair": world.pair.pk, "label": "maybe", "base_version": 3}, format="json"
    )
    assert bad.status_code == 400 and "label" in bad.json()
    empty = client.post("/api/pair-labels/", {"pair": world.pair.pk, "base_version": 3}, format="json")
    assert empty.status_code == 400
    assert PairLabel.objects.get(annotator=world.anna).label == "paraphrase"


def test_sheet_returns_own_work_and_version(world):
    annotate_marked(world, world.anna)
    annotate_marked(world, world.ben, marker=5)
    body = api_client(world.anna).get(f"/api/pairs/{world.pair.pk}/sheet/").json()
    assert body["version"] == 4 and body["label"] == "paraphrase"
    assert [p["scope1"] for p in body["phenomena"]] == [[3]]
    assert [(link["i"], link["j"], link["sure"]) for link in body["links"]] == [(3, 1, False)]


def test_sheet_of_another_annotator_is_for_leads_only(world):
    annotate_marked(world, world.ben, marker=5)
    url = f"/api/pairs/{world.pair.pk}/sheet/?annotator={world.ben.pk}"
    assert api_client(world.anna).get(url).status_code == 403
    assert api_client(world.other_lead).get(url).status_code == 404
    lead_view = api_client(world.lead).get(url)
    assert lead_view.status_code == 200 and lead_view.json()["phenomena"][0]["scope1"] == [5]


def test_malformed_save_bodies_get_drfs_field_errors(world):
    """The save endpoints validate with one shared serializer per class (`api.validated`): the 400s
    are exactly what a fresh serializer's `is_valid(raise_exception=True)` gives, request after request."""
    import json

    from annotator.api import serializers as s

    client = api_client(world.anna)
    bodies = [
        (
            "/api/phenomena/",
            s.PhenomenonCreateSerializer,
            {"pair": "x", "scope1": "nope", "base_version": -1},
        ),
        ("/api/links/", s.LinksWriteSerializer, {"pair": world.pair.pk, "links": [[1]], "base_version": 0}),
        ("/api/links/", s.LinksWriteSerializer, {"links": []}),
        ("/api/pair-labels/", s.PairLabelWriteSerializer, {"pair": world.pair.pk, "base_version": 0}),
    ]
    for _ in range(2):
        for url, serializer_class, body in bodies:
            response = client.post(url, body, format="json")
            expected = serializer_class(data=body)
            assert not expected.is_valid()
            assert response.status_code == 400, (url, response.json())
            assert response.json() == json.loads(json.dumps(expected.errors))  # as JSON: keys are strings
