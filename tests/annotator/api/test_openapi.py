"""The OpenAPI 3 schema generates without warnings or errors and validates against the OpenAPI 3 spec."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from drf_spectacular.validation import validate_schema

from tests.make import api_client

pytestmark = pytest.mark.django_db


def test_schema_generates_without_warnings_and_validates(tmp_path):
    out = tmp_path / "schema.json"
    # --fail-on-warn turns every drf-spectacular warning (untyped field, unresolved path parameter,
    # enum collision …) into an error; --validate checks the result against the OpenAPI 3 JSON schema.
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", str(out)
    )
    schema = json.loads(out.read_text())
    validate_schema(schema)
    assert schema["openapi"].startswith("3.")


def test_schema_is_served_and_covers_every_resource(cast):
    client = api_client(cast.anna)
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    for resource in (
        "projects",
        "tagsets",
        "pairs",
        "assignments",
        "pair-labels",
        "phenomena",
        "links",
        "phrase-alignments",
        "units",
        "judgements",
        "snapshots",
        "jobs",
    ):
        assert f"/api/{resource}/" in paths, resource
    assert "/api/projects/{id}/agreement/" in paths
    assert "409" in paths["/api/phenomena/"]["post"]["responses"]


def test_schema_covers_the_lead_tools_and_their_gold_conflicts():
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    lead = "/api/projects/{project_pk}/"
    gold = lead + "pairs/{pair_pk}/adjudication/"
    for path in (
        lead + "planner/",
        lead + "planner/plan/",
        lead + "planner/reassign/",
        lead + "explorer/",
        lead + "explorer/{pair_pk}/",
        lead + "reannotation/",
        gold,
        gold + "take/",
        gold + "merge/",
        gold + "label/",
        gold + "phenomena/",
        gold + "phenomena/{phenomenon_pk}/",
        gold + "links/",
        gold + "links/{link_pk}/",
        gold + "phrase-alignments/{alignment_pk}/",
    ):
        assert path in paths, path
    for path in (gold + "take/", gold + "merge/", gold + "label/", gold + "phenomena/", gold + "links/"):
        assert "409" in paths[path]["post"]["responses"], path
    assert "409" in paths[gold + "phenomena/{phenomenon_pk}/"]["delete"]["responses"]
    assert "202" in paths[lead + "reannotation/"]["post"]["responses"]


def test_write_endpoints_document_conflicts_and_base_version():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    body = schema["components"]["schemas"]["PhenomenonCreate"]
    assert "base_version" in body["required"] and body["properties"]["base_version"]["nullable"] is True
    assert schema["components"]["schemas"]["Conflict"]["properties"]["current_version"]["type"] == "integer"
