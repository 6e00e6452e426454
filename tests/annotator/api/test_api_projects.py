"""REST API: authentication, projects, members, tagsets, pairs and assignments."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from annotator.models import Assignment, Membership, Pair, Project
from annotator.projects import services as project_setup
from tests import make
from tests.make import api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return make.two_projects()


def test_anonymous_gets_401_or_403_never_data(world):
    client = api_client(None)
    for url in ("/api/projects/", "/api/pairs/", "/api/phenomena/", f"/api/projects/{world.project.pk}/"):
        assert client.get(url).status_code in (401, 403), url


def test_token_endpoint_exchanges_password_for_token(world):
    client = api_client(None)
    response = client.post("/api/token/", {"username": "anna", "password": "test-pass-123"}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    assert token == Token.objects.get(user=world.anna).key
    wrong = client.post("/api/token/", {"username": "anna", "password": "nope"}, format="json")
    assert wrong.status_code == 400 and "Wrong username or password" in str(wrong.json())
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/projects/").status_code == 200


def test_api_token_command_prints_a_token(world, capsys):
    call_command("api_token", "lena")
    printed = capsys.readouterr().out.strip()
    assert printed == Token.objects.get(user=world.lead).key
    call_command("api_token", "lena", "--rotate")
    assert capsys.readouterr().out.strip() != printed


def test_session_authenticated_writes_need_csrf(world):
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world.anna)
    assert client.get("/api/projects/").status_code == 200
    body = {"pair": world.pair.pk, "label": "paraphrase", "base_version": 0}
    response = client.post("/api/pair-labels/", body, format="json")
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]


def test_projects_list_shows_only_memberships_with_my_roles(world):
    body = api_client(world.anna).get("/api/projects/").json()
    assert [(p["name"], p["my_roles"]) for p in body["results"]] == [("Alpha", ["annotator"])]
    admin = api_client(world.admin).get("/api/projects/").json()
    assert {p["name"] for p in admin["results"]} == {"Alpha", "Beta"}
    assert api_client(world.outsider).get(f"/api/projects/{world.project.pk}/").status_code == 404


def test_projects_list_query_count_is_constant(world, django_assert_max_num_queries):
    for n in range(5):
        project_setup.create_project(None, name=f"extra{n}", annotators=[world.anna])
    client = api_client(world.anna)
    with django_assert_max_num_queries(5):
        assert client.get("/api/projects/").json()["count"] == 6


def test_lead_creates_project_and_becomes_its_lead(world):
    body = {"name": "Gamma", "tagset": world.project.tagset_id, "layer_phrase_alignment": True}
    response = api_client(world.lead).post("/api/projects/", body, format="json")
    assert response.status_code == 201, response.json()
    project = Project.objects.get(name="Gamma")
    assert project.layer_phrase_alignment
    assert Membership.objects.filter(project=project, user=world.lead, role="lead").exists()
    assert response.json()["my_roles"] == ["lead"]
    duplicate = api_client(world.lead).post("/api/projects/", body, format="json")
    assert duplicate.status_code == 400 and "name" in duplicate.json()


def test_annotator_may_not_create_projects(world):
    response = api_client(world.anna).post("/api/projects/", {"name": "Mine"}, format="json")
    assert response.status_code == 403 and not Project.objects.filter(name="Mine").exists()


def test_members_are_for_leads(world):
    url = f"/api/projects/{world.project.pk}/members/"
    assert api_client(world.anna).get(url).status_code == 403
    assert api_client(world.other_lead).get(url).status_code == 404
    rows = api_client(world.lead).get(url).json()
    assert [(r["username"], r["role"]) for r in rows] == [
        ("anna", "annotator"),
        ("ben", "annotator"),
        ("lena", "lead"),
    ]
    added = api_client(world.lead).post(url, {"username": "olga", "role": "annotator"}, format="json")
    assert added.status_code == 201 and added.json()["username"] == "olga"
    unknown = api_client(world.lead).post(url, {"username": "nobody", "role": "annotator"}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["username"] == [
        "No user named 'nobody': create the account or send an invitation link."
    ]  # the members page's message: both add a member through members.add_member
    bad_role = api_client(world.lead).post(url, {"username": "olga", "role": "owner"}, format="json")
    assert bad_role.status_code == 400 and bad_role.json()["role"] == [
        "Unknown role 'owner'; choose lead, annotator or rater."
    ]


def test_tagsets_are_listed_with_their_types(world):
    body = api_client(world.anna).get("/api/tagsets/").json()
    names = [t["name"] for t in body["results"]]
    assert "Vila et al. 2015" in names
    vila = next(t for t in body["results"] if t["name"] == "Vila et al. 2015")
    assert len(vila["types"]) > 20 and {"projection_required", "scope_sides"} <= set(vila["types"][0])


def test_annotator_lists_only_assigned_pairs(world):
    from annotator.corpus import projects

    extra = projects.add_pair(world.project, "unassigned", tokens1=["a"], tokens2=["b"])
    body = api_client(world.anna).get("/api/pairs/").json()
    assert {p["source_id"] for p in body["results"]} == {"p1", "p2"}
    assert api_client(world.anna).get(f"/api/pairs/{extra.pk}/").status_code == 404
    lead = api_client(world.lead).get(f"/api/pairs/?project={world.project.pk}").json()
    assert {p["source_id"] for p in lead["results"]} == {"p1", "p2", "unassigned"}


def test_lead_adds_pair_with_initial_alignment_from_own_aligner(world):
    body = {
        "project": world.project.pk,
        "source_id": "new-1",
        "tokens1": ["A", "cat", "sat"],
        "tokens2": ["The", "cat", "was", "sitting"],
        "initial_alignment": [[1, 1], [2, 3]],
        "initial_alignment_source": "my-aligner",
        "tree1": "(S (NP (DT A) (NN cat)) (VP (VBD sat)))",
    }
    response = api_client(world.lead).post("/api/pairs/", body, format="json")
    assert response.status_code == 201, response.json()
    pair = Pair.objects.get(source_id="new-1")
    assert pair.initial_alignment == [[1, 1], [2, 3]] and pair.nodes1 and pair.text1 == "A cat sat"
    again = api_client(world.lead).post("/api/pairs/", body, format="json")
    assert again.status_code == 400 and "already exists" in again.json()["source_id"][0]


def test_pair_with_bad_tree_or_alignment_is_400_naming_the_field(world):
    base = {"project": world.project.pk, "source_id": "x", "tokens1": ["a", "b"], "tokens2": ["c"]}
    client = api_client(world.lead)
    bad_tree = client.post("/api/pairs/", {**base, "tree1": "(S (X a) (Y z))"}, format="json")
    assert bad_tree.status_code == 400 and "tree1" in bad_tree.json()
    bad_link = client.post("/api/pairs/", {**base, "initial_alignment": [[0, 0], [1, 5]]}, format="json")
    assert bad_link.status_code == 400
    assert bad_link.json()["initial_alignment"][0].startswith("Link 1 (1, 5): Token 5 is outside member 2")
    assert api_client(world.anna).post("/api/pairs/", base, format="json").status_code == 403


def test_lead_assigns_pairs_and_annotators_see_only_their_own(world):
    from annotator.corpus import projects

    new = projects.add_pair(world.project, "p3", tokens1=["a"], tokens2=["b"])
    body = {"project": world.project.pk, "annotators": ["anna", "olga"], "pairs": [new.pk]}
    response = api_client(world.lead).post("/api/assignments/", body, format="json")
    assert response.status_code == 201 and response.json() == {"created": 2, "plan": None}
    assert Assignment.objects.filter(pair=new).count() == 2
    mine = api_client(world.anna).get("/api/assignments/").json()["results"]
    assert {a["annotator"] for a in mine} == {world.anna.pk} and len(mine) == 3
    foreign = {
        "project": world.project.pk,
        "annotators": ["anna"],
        "pairs": [world.other_project.pairs.first().pk],
    }
    bad = api_client(world.lead).post("/api/assignments/", foreign, format="json")
    assert bad.status_code == 400 and "is not in project" in bad.json()["pairs"][0]
    assert api_client(world.anna).post("/api/assignments/", body, format="json").status_code == 403


def test_browsable_docs_load_without_a_cdn(world):
    from django.test import Client

    client = Client()
    client.force_login(world.anna)
    html = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in html and "cdn" not in html.lower() and "/static/drf_spectacular_sidecar/" in html
