"""Accounts: a new password revokes the API token; wrong current passwords on the change form are
counted; reset mails are throttled; a new token is shown once; a lockout is per client address and
username, so a stranger's wrong passwords do not lock the owner out (forwarded headers not believed)."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.accounts import services as accounts

pytestmark = pytest.mark.django_db
PASSWORD = "right-password-123"


@pytest.fixture(autouse=True)
def fast(settings):
    settings.AXES_FAILURE_LIMIT = 3
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from tests import make

    make.isolate_cache(settings)


@pytest.fixture
def anna():
    return accounts.create_account("anna", PASSWORD, email="anna@example.org")


def token_of(user) -> str:
    return Token.objects.create(user=user).key


def works(key: str) -> bool:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api.get("/api/projects/").status_code == 200


def signed_in_as(person) -> Client:
    client = Client()
    client.force_login(person)
    return client


def test_a_password_change_revokes_the_api_token(anna):
    key = token_of(anna)
    assert works(key)
    answer = signed_in_as(anna).post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": "a-new-secret-456", "new_password2": "a-new-secret-456"},
    )
    assert answer.status_code == 302
    assert not works(key) and not Token.objects.filter(user=anna).exists()


def test_a_password_reset_revokes_the_api_token(anna):
    key = token_of(anna)
    client = Client()
    client.post(reverse("password_reset"), {"email": "anna@example.org"})
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    client.post(
        form.redirect_chain[-1][0], {"new_password1": "reset-secret-789", "new_password2": "reset-secret-789"}
    )
    assert not works(key)


def test_signing_in_keeps_the_token(anna):
    key = token_of(anna)
    assert Client().post(reverse("login"), {"username": "anna", "password": PASSWORD}).status_code == 302
    assert works(key)


def test_wrong_current_passwords_are_counted_and_then_refused(anna):
    client = signed_in_as(anna)
    change = {"new_password1": "a-new-secret-456", "new_password2": "a-new-secret-456"}
    for _ in range(3):
        wrong = client.post(reverse("password_change"), {"old_password": "guess", **change})
        assert wrong.status_code == 200
    right = client.post(reverse("password_change"), {"old_password": PASSWORD, **change})
    assert right.status_code == 200 and "Too many wrong current passwords" in right.content.decode()
    anna.refresh_from_db()
    assert anna.check_password(PASSWORD)


def test_reset_mails_are_throttled(anna, settings):
    for _ in range(20):
        assert Client().post(reverse("password_reset"), {"email": "anna@example.org"}).status_code == 302
    assert len(mail.outbox) == settings.PASSWORD_RESET_MAILS_PER_HOUR


def test_a_new_token_is_shown_once(anna):
    client = signed_in_as(anna)
    page = client.post(reverse("annotator:account-token-issue"), follow=True).content.decode()
    key = Token.objects.get(user=anna).key
    assert key in page
    assert key not in client.get(reverse("annotator:account")).content.decode()


def log_in(username: str, password: str, address: str, **headers):
    return Client(REMOTE_ADDR=address, **headers).post(
        reverse("login"), {"username": username, "password": password}
    )


def test_a_strangers_wrong_passwords_do_not_lock_the_owner_out(anna):
    for _ in range(5):
        log_in("anna", "wrong", "203.0.113.9")
    assert log_in("anna", PASSWORD, "203.0.113.9").status_code == 429  # locked for the stranger's address
    assert log_in("anna", PASSWORD, "198.51.100.7").status_code == 302  # the owner signs in


def test_a_forwarded_header_does_not_give_new_tries(anna):
    for n in range(5):
        log_in("anna", "wrong", "203.0.113.9", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}")
    assert log_in("anna", PASSWORD, "203.0.113.9", HTTP_X_FORWARDED_FOR="10.0.0.99").status_code == 429
