"""Fuzzing the REST API with schemathesis against its own OpenAPI schema.

Every operation of `/api/schema/` gets a bounded number of generated requests (valid and invalid
data), sent through the WSGI app as an annotator and as a lead, against a small world of projects,
pairs and annotations so that generated ids hit real rows. Two promises are checked on every response:
no 5xx, and the response conforms to the schema (documented content type and body schema).

`API_FUZZ_EXAMPLES` sets the examples per operation and user (default 8: well under a minute).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance

from annotator.wsgi import application
from tests import make
from tests.make import annotate_marked

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "8"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def _token(user) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return f"Token {token.key}"


def _fuzz(schema, authorization: str) -> Counter:
    statuses: Counter = Counter()
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        def run(case) -> None:
            response = case.call_and_validate(headers={"Authorization": authorization}, checks=CHECKS)
            statuses[response.status_code // 100] += 1

        run()
    return statuses


def test_no_server_errors_and_schema_conformant_responses(settings_, eager_celery):
    # No worker serves this test (eager_celery): work queued by a generated request runs in-process,
    # rather than waiting on the shared broker for a later worker to run it in another test's project.
    make.isolate_cache(settings_)
    world = make.two_projects()
    annotate_marked(world, world.anna)
    annotate_marked(world, world.ben, marker=5)
    schema = schemathesis.openapi.from_wsgi(
        "/api/schema/?format=json", application, headers={"Authorization": _token(world.anna)}
    )
    for user in (world.anna, world.lead):
        statuses = _fuzz(schema, _token(user))
        print(user, dict(statuses))
        assert statuses[5] == 0
        assert statuses[2] > 0 and statuses[4] > 0  # both accepted and rejected requests were made


@pytest.fixture
def settings_(settings):
    """Allow any host, and keep the test's database connection open across WSGI requests (as Django's
    test client does): Django closes connections at the end of each request, which on PostgreSQL
    would close the connection holding the test's transaction."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    settings.ALLOWED_HOSTS = ["*"]
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield settings
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
