"""Hostile API bodies: 400 `{"field": [...]}` for depth, number size, string length and types — never a 500."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.models import Phenomenon
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(settings):
    return make.two_projects()


def post_raw(world, path: str, body: str):
    return make.api_client(world.anna).post(path, body, content_type="application/json")


def body(world, **extra) -> dict:
    out = {
        "pair": world.pair.pk,
        "ptype": world.any_ptype().pk,
        "scope1": [1],
        "scope2": [0],
        "base_version": 0,
    }
    out.update(extra)
    return out


def test_nesting_100000_levels_deep(world):
    response = post_raw(world, "/api/phenomena/", '{"scope1": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert response.status_code == 400
    assert response.json() == {"json": ["nested more than 64 levels deep (line 1)"]}


def test_integer_of_5000_digits(world):
    text = json.dumps(body(world)).replace('"base_version": 0', '"base_version": ' + "9" * 5000)
    response = post_raw(world, "/api/phenomena/", text)
    assert response.status_code == 400
    assert response.json() == {"number": ["an integer of 5000 digits; at most 19 are allowed (line 1)"]}


def test_position_beyond_64_bits_and_beyond_the_column(world):
    for value in ("9223372036854775808", str(2**40)):
        text = json.dumps(body(world, scope1=[1])).replace('"scope1": [1]', f'"scope1": [{value}]')
        response = post_raw(world, "/api/phenomena/", text)
        assert response.status_code == 400, (value, response.content)
        assert set(response.json()) & {"number", "scope1"}
    assert not Phenomenon.objects.exists()


def test_wrong_types_name_the_field(world):
    response = post_raw(world, "/api/phenomena/", json.dumps(body(world, scope1="all", base_version="x")))
    assert response.status_code == 400
    assert set(response.json()) >= {"scope1", "base_version"}


def test_overlong_comment_and_nan(world):
    response = post_raw(world, "/api/phenomena/", json.dumps(body(world, comment="x" * 1_000_001)))
    assert response.status_code == 400 and "comment" in response.json()
    response = post_raw(world, "/api/phenomena/", json.dumps(body(world)).replace("0}", "NaN}"))
    assert response.status_code == 400 and response.json() == {
        "number": ["NaN is not a JSON number (line 1)"]
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
        ),
        max_leaves=12,
    ),
    field=st.sampled_from(
        ["pair", "ptype", "scope1", "scope2", "base_version", "projection", "key1", "comment"]
    ),
)
def test_fuzz_phenomenon_bodies_never_500(world, value, field):
    response = post_raw(world, "/api/phenomena/", json.dumps(body(world, **{field: value})))
    assert response.status_code < 500, response.content


ENDPOINTS = {
    "/api/pair-labels/": ("lead", ["pair", "label", "comment", "base_version"]),
    "/api/links/": ("anna", ["pair", "links", "sure", "base_version"]),
    "/api/links/remove/": ("anna", ["pair", "links", "base_version"]),
    "/api/phrase-alignments/": ("anna", ["pair", "node1", "node2", "sure", "base_version"]),
    "/api/pairs/": (
        "lead",
        ["project", "source_id", "tokens1", "tokens2", "tree1", "position", "initial_alignment"],
    ),
    "/api/assignments/": ("lead", ["project", "annotators", "pairs", "round", "phase"]),
}
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.text(max_size=200),
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3),
    st.lists(st.lists(st.integers(-(2**40), 2**40), max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(endpoint=st.sampled_from(sorted(ENDPOINTS)), data=st.data())
def test_fuzz_write_endpoints_never_500(world, endpoint, data):
    who, fields = ENDPOINTS[endpoint]
    user = {"lead": world.lead, "anna": world.anna}[who]
    valid = {"pair": world.pair.pk, "project": world.project.pk, "base_version": 0}
    chosen = data.draw(st.lists(st.sampled_from(fields), min_size=1, max_size=len(fields), unique=True))
    body = {name: valid.get(name) for name in fields if name in valid}
    body.update({name: data.draw(HOSTILE) for name in chosen})
    response = make.api_client(user).post(endpoint, json.dumps(body), content_type="application/json")
    assert response.status_code < 500, (endpoint, body, response.content[:300])
