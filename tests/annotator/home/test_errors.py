"""A lost database connection gives a clean 503 (no traceback); other errors Django's plain 500."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.test import Client

from annotator import access

pytestmark = pytest.mark.django_db


@pytest.fixture
def anna(settings, cast):
    settings.DEBUG = False
    return cast.anna


def _failing(exc: Exception):
    def fail(*args, **kwargs):
        raise exc

    return fail


def test_database_error_in_api_is_503_json_with_retry_after(anna, monkeypatch):
    monkeypatch.setattr(
        access, "visible_projects", _failing(OperationalError("server closed the connection"))
    )
    client = Client(raise_request_exception=False)
    client.force_login(anna)
    response = client.get("/api/projects/")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "try again" in response.json()["detail"]
    assert "server closed" not in response.content.decode() and "Traceback" not in response.content.decode()


def test_database_error_on_a_page_is_503_html(anna, monkeypatch):
    monkeypatch.setattr(access, "visible_projects", _failing(OperationalError("connection refused")))
    client = Client(raise_request_exception=False)
    client.force_login(anna)
    response = client.get("/")
    assert response.status_code == 503 and b"Try again in a moment" in response.content
    assert b"connection refused" not in response.content


def test_other_errors_stay_500_without_details(anna, monkeypatch):
    monkeypatch.setattr(access, "visible_projects", _failing(RuntimeError("secret internals")))
    client = Client(raise_request_exception=False)
    client.force_login(anna)
    response = client.get("/api/projects/")
    assert response.status_code == 500 and b"secret internals" not in response.content
