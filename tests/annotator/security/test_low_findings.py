"""The probe's low findings: one username rule for every way an account is made; no open redirect after
acknowledging guidelines; a NUL in a URL is a 400, not a 500; /healthz names no worker or queue to
anyone but admins."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotator.accounts import services as account_services
from annotator.corpus import writing
from annotator.projects import guidelines, members
from tests import make
from tests.make import api_client, logged_in

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-secret-123"
BAD_NAMES = ["<b>lena</b>", "lena\u200b", "\uff4c\uff45\uff4e\uff41", "LENA", "le na"]


@pytest.fixture
def world(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    w = make.two_projects()
    make.user("lena")
    return w


def accounts() -> set[str]:
    return set(get_user_model().objects.values_list("username", flat=True))


@pytest.mark.parametrize("name", BAD_NAMES)
def test_the_leads_create_account_form_applies_the_username_rule(world, name):
    before = accounts()
    answer = logged_in(world.lead).post(
        reverse("annotator:member-create", args=[world.project.pk]),
        {"username": name, "password": PASSWORD, "email": "", "role": "annotator"},
    )
    assert answer.status_code == 422 and accounts() == before


@pytest.mark.parametrize("name", BAD_NAMES)
def test_invitation_sign_up_applies_the_username_rule(world, name):
    invitation = members.create_invitation(world.project, "annotator", world.lead)
    before = accounts()
    answer = Client().post(
        reverse("annotator:invitation-accept", args=[invitation.token]),
        {"username": name, "password": PASSWORD, "email": ""},
    )
    assert answer.status_code == 422 and accounts() == before


@pytest.mark.parametrize("name", BAD_NAMES[:4])
def test_an_import_cannot_create_a_user_the_rule_refuses(world, name):
    with pytest.raises(writing.InvalidUsername):
        writing.ensure_user(name)
    assert writing.ensure_user("lena").username == "lena"  # an existing name is used as it is


def test_a_good_name_still_makes_an_account(world):
    user = account_services.create_account("lena.m-2", PASSWORD)
    assert user.username == "lena.m-2"


def test_acknowledging_guidelines_never_redirects_off_site(world):
    guidelines.publish(world.project, "Be kind.", world.lead)
    url = reverse("annotator:guidelines-acknowledge", args=[world.project.pk])
    client = logged_in(world.anna)
    for target in ("https://evil.example/", "//evil.example/x", "https:evil.example"):
        answer = client.post(url, {"next": target})
        assert answer.status_code == 302 and "evil" not in answer["Location"]
    inside = f"/projects/{world.project.pk}/"
    assert client.post(url, {"next": inside})["Location"] == inside


@pytest.mark.parametrize(
    "path",
    [
        "/invitations/%00/",
        "/api/jobs/?status=%00",
        "/api/jobs/?kind=a%00",
        "/api/assignments/?status=%00",
        "/api/assignments/?phase=%00",
        "/api/assignments/?step=%00",
        "/api/pairs/?source_id=%00",
        "/api/judgements/?step=%00",
        "/api/judgements/?phase=a%00",
        "/api/units/?status=%00",
    ],
)
def test_a_nul_in_the_url_is_a_clear_400(world, path):
    answer = api_client(world.lead).get(path)
    assert answer.status_code == 400 and "NUL" in answer.content.decode()


def test_healthz_names_no_worker_or_queue_to_anonymous_callers(world, monkeypatch):
    from annotator.core import health

    full = {
        "ok": True,
        "database": "ok",
        "broker": "ok",
        "worker": {"state": "ok", "ok": True, "queue": "secret-queue", "workers": {"celery@host-7": 1.0}},
    }
    monkeypatch.setattr(health, "report", lambda: (200, full))
    anonymous = Client().get("/healthz").content.decode()
    assert "secret-queue" not in anonymous and "celery@host-7" not in anonymous
    assert Client().get("/healthz").json()["worker"]["state"] == "ok"
    assert "celery@host-7" in logged_in(world.admin).get("/healthz").content.decode()
