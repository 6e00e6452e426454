"""Hand-written statements of the save path (`annotator.core.sql`) give what the ORM gives.

Rows read with `sql.instance` must be indistinguishable from queryset results (converted values,
datetimes with time zone on SQLite as on PostgreSQL, JSON decoded, deferred fields loading on access);
the token authentication and the pair access check built on them keep DRF's and the ORM version's
rules and messages.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.http import Http404
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from annotator import access
from annotator.annotation import services as annotation_services
from annotator.core import sql
from annotator.models import AlignmentLink, Pair, PairLabel, Project
from tests import make
from tests.make import api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return make.two_projects()


def _model_dict(instance):
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_instance_equals_the_orm_row_with_every_value_converted(world):
    pair = world.pair
    annotation_services.set_links(pair, world.anna, [(0, 0)], sure=True, base_version=0)
    query = f"SELECT {sql.columns(Pair, 'p')} FROM {sql.table(Pair)} p WHERE p.{sql.quote('id')} = %s"
    loaded = sql.instance(Pair, sql.fetch_one(query, [pair.pk]))
    assert _model_dict(loaded) == _model_dict(Pair.objects.get(pk=pair.pk))
    assert loaded.tokens1 == ["The", "film", "opened", "on", "Friday", "."]  # JSON decoded
    sheet_sql = f"SELECT {sql.columns(PairLabel, 's')} FROM {sql.table(PairLabel)} s"
    sheet = sql.instance(PairLabel, sql.fetch_one(sheet_sql, []))
    assert sheet.updated_at == PairLabel.objects.get().updated_at and sheet.updated_at.tzinfo is not None
    assert not sheet._state.adding and sheet._state.db == "default"


def test_a_subset_of_columns_leaves_the_rest_deferred(world):
    names = ("id", "name", "tagset")
    query = f"SELECT {sql.columns(Project, 'p', names)} FROM {sql.table(Project)} p WHERE p.{sql.quote('id')} = %s"
    project = sql.instance(Project, sql.fetch_one(query, [world.project.pk]), names)
    assert project.get_deferred_fields() >= {"description", "guidelines"}
    assert project.name == "Alpha" and project.tagset_id == world.project.tagset_id
    assert project.guidelines == world.project.guidelines  # loads on access, as a deferred ORM field


def test_unknown_field_names_are_refused():
    with pytest.raises(ValueError, match="Project: no concrete field 'nope'"):
        sql.columns(Project, "p", ("id", "nope"))


def test_pair_access_is_one_query_with_the_orm_rules(world):
    pair_pk = world.pair.pk
    with CaptureQueriesContext(connection) as queries:
        pair = access.pair_for_annotation_by_id(world.anna, pair_pk)
    assert len(queries) == 1
    assert pair.pk == pair_pk and pair.project.pk == world.project.pk
    assert _model_dict(pair) == _model_dict(Pair.objects.get(pk=pair.pk))
    with pytest.raises(PermissionDenied):
        access.pair_for_annotation_by_id(world.lead, world.pair.pk)  # a lead is not its annotator
    for outsider in (world.outsider, world.other_lead):
        with pytest.raises(Http404):
            access.pair_for_annotation_by_id(outsider, world.pair.pk)
    with pytest.raises(PermissionDenied):
        access.pair_for_annotation_by_id(world.admin, world.pair.pk)  # admins see it, but annotate nothing
    for missing in (10**9, 2**63, 10**30, 0, -1):
        with pytest.raises(Http404):
            access.pair_for_annotation_by_id(world.anna, missing)


def test_token_authentication_reads_token_and_user_in_one_query(world):
    client = api_client(world.anna)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/api/pairs/{world.pair.pk}/")
    assert response.status_code == 200
    token_queries = [q for q in queries if "authtoken_token" in q["sql"]]
    assert len(token_queries) == 1 and "auth_user" in token_queries[0]["sql"]


def test_unknown_token_and_inactive_user_get_drfs_messages(world):
    bad = api_client(None)
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = bad.get("/api/projects/")
    assert response.status_code == 403 and response.json()["detail"] == "Invalid token."
    client = api_client(world.anna)
    world.anna.is_active = False
    world.anna.save(update_fields=["is_active"])
    response = client.get("/api/projects/")
    assert response.status_code == 403 and response.json()["detail"] == "User inactive or deleted."
    assert Token.objects.filter(user=world.anna).exists()


def test_the_sheet_bump_is_rolled_back_with_a_conflict(world):
    pair = world.pair
    version = annotation_services.set_links(pair, world.anna, [(0, 0)], sure=True, base_version=0)
    with pytest.raises(annotation_services.ConflictError) as conflict:
        annotation_services.set_links(pair, world.anna, [(1, 1)], sure=True, base_version=version - 1)
    assert conflict.value.current_version == version
    assert annotation_services.sheet_version(pair, world.anna) == version
    assert not AlignmentLink.objects.filter(pair=pair, annotator=world.anna, i=1).exists()
    assert (
        annotation_services.set_links(pair, world.anna, [(1, 1)], sure=True, base_version=version)
        == version + 1
    )
