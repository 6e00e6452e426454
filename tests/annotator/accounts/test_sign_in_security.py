"""Sign-in security: throttled login form and token endpoint, admins' locks and log, revocable and
expiring tokens, password change and reset by e-mail — through the pages and endpoints people use."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.accounts import services as accounts

pytestmark = pytest.mark.django_db
PASSWORD = "right-password-123"


@pytest.fixture(autouse=True)
def lockout_after_three(settings):
    settings.AXES_FAILURE_LIMIT = 3
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def anna():
    return accounts.create_account("anna", PASSWORD, email="anna@example.org")


@pytest.fixture
def admin():
    return accounts.create_account("root", PASSWORD, is_admin=True)


def log_in(client: Client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def token_request(username: str, password: str):
    return APIClient().post("/api/token/", {"username": username, "password": password}, format="json")


def test_wrong_passwords_lock_the_login_form_even_for_the_right_one(anna):
    client = Client()
    for _ in range(2):
        assert log_in(client, "anna", "wrong").status_code == 200  # the form again, with its error
    assert log_in(client, "anna", "wrong").status_code == 429  # the third failure locks
    response = log_in(client, "anna", PASSWORD)
    assert response.status_code == 429 and "locked for 15 minutes" in response.content.decode()
    assert not signed_in(client)


def test_the_token_endpoint_counts_and_refuses_in_the_same_way(anna):
    for _ in range(2):
        response = token_request("anna", "wrong")
        assert response.status_code == 400
        assert response.json()["non_field_errors"] == ["Wrong username or password."]
    assert token_request("anna", "wrong").status_code == 429  # the third failure locks
    response = token_request("anna", PASSWORD)
    assert response.status_code == 429 and "locked" in response.json()["detail"]
    assert not Token.objects.filter(user=anna).exists()


def test_failures_on_one_door_lock_the_other(anna):
    for _ in range(3):
        token_request("anna", "wrong")
    assert log_in(Client(), "anna", PASSWORD).status_code == 429


def test_a_right_password_before_the_limit_resets_the_count(anna):
    client = Client()
    for _ in range(2):
        log_in(client, "anna", "wrong")
    assert log_in(client, "anna", PASSWORD).status_code == 302 and signed_in(client)
    other = Client()
    for _ in range(2):
        log_in(other, "anna", "wrong")
    assert log_in(other, "anna", PASSWORD).status_code == 302


def test_admins_see_the_lock_and_lift_it(anna, admin):
    for _ in range(3):
        log_in(Client(), "anna", "wrong")
    staff = Client()
    staff.force_login(admin)
    page = staff.get(reverse("annotator:security")).content.decode()
    assert "Lift the lock of anna" in page and "failed" in page
    response = staff.post(reverse("annotator:security-unlock"), {"username": "anna"}, follow=True)
    assert "anna can sign in again." in response.content.decode()
    client = Client()
    assert log_in(client, "anna", PASSWORD).status_code == 302 and signed_in(client)
    assert "signed in" in staff.get(reverse("annotator:security")).content.decode()


def test_only_admins_see_sign_in_security(anna):
    client = Client()
    client.force_login(anna)
    assert client.get(reverse("annotator:security")).status_code == 403
    assert client.post(reverse("annotator:security-unlock"), {"username": "anna"}).status_code == 403


def test_owner_revokes_the_token_in_the_ui_and_scripts_are_refused(anna):
    key = token_request("anna", PASSWORD).json()["token"]
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/projects/").status_code == 200
    client = Client()
    client.force_login(anna)
    assert "created" in client.get(reverse("annotator:account")).content.decode()
    client.post(reverse("annotator:account-token-revoke"))
    assert api.get("/api/projects/").status_code in (401, 403)


def test_a_new_token_from_the_ui_replaces_the_old_one(anna):
    old = token_request("anna", PASSWORD).json()["token"]
    client = Client()
    client.force_login(anna)
    page = client.post(reverse("annotator:account-token-issue"), follow=True).content.decode()
    new = Token.objects.get(user=anna).key
    assert new != old and new in page  # shown once, to copy
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {old}")
    assert api.get("/api/projects/").status_code in (401, 403)


def test_tokens_expire_when_a_lifetime_is_set(anna, settings):
    settings.API_TOKEN_TTL_DAYS = 30
    key = token_request("anna", PASSWORD).json()["token"]
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = api.get("/api/projects/")
    assert response.status_code in (401, 403) and "expired" in response.json()["detail"]
    fresh = token_request("anna", PASSWORD).json()["token"]  # signing in again gives a new one
    assert fresh != key
    api.credentials(HTTP_AUTHORIZATION=f"Token {fresh}")
    assert api.get("/api/projects/").status_code == 200


def test_password_change(anna):
    client = Client()
    client.force_login(anna)
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": "a-new-secret-456", "new_password2": "a-new-secret-456"},
    )
    assert response.status_code == 302 and response["Location"] == reverse("password_change_done")
    assert log_in(Client(), "anna", "a-new-secret-456").status_code == 302


def test_password_reset_by_e_mail(anna):
    client = Client()
    assert "Forgot your password?" in client.get(reverse("login")).content.decode()
    client.post(reverse("password_reset"), {"email": "anna@example.org"})
    assert len(mail.outbox) == 1 and "anna" in mail.outbox[0].body
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": "reset-secret-789", "new_password2": "reset-secret-789"}
    )
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    assert log_in(Client(), "anna", "reset-secret-789").status_code == 302
    assert "no longer valid" in Client().get(link, follow=True).content.decode()  # single use


def test_the_api_schema_and_docs_are_behind_sign_in(anna):
    assert APIClient().get("/api/schema/").status_code in (401, 403)
    assert APIClient().get("/api/docs/").status_code in (401, 403)
    client = Client()
    client.force_login(anna)
    assert client.get("/api/schema/").status_code == 200
