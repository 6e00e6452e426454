"""/healthz checks the database and the broker: 200 when both answer, 503 when either is down."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_healthz_is_ok_in_process_mode(settings):
    settings.REDIS_URL = ""
    response = Client().get("/healthz")
    assert response.status_code == 200 and response.json()["ok"] is True


def test_healthz_is_503_when_broker_is_down(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"].startswith("unreachable") and response.json()["database"] == "ok"


def test_healthz_needs_no_login_and_is_never_cached(settings):
    settings.REDIS_URL = ""
    response = Client().get("/healthz")
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
