"""Accounts: creating them, API tokens (issue, revoke, expire), sign-in through the lockout, locks and the sign-in log.

Sign-in throttling is django-axes' (database handler): after AXES_FAILURE_LIMIT wrong passwords for a
username, that username is locked for AXES_COOLOFF_TIME, on the login page and on the token endpoint
alike, even with the right password. Admins see the locks and lift them (`unlock`); every successful and
failed sign-in is logged (axes' AccessLog and AccessFailureLog).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from axes.utils import reset
from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import Permission
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotator.accounts.usernames import check_new_username


@transaction.atomic
def create_account(
    username: str,
    password: str,
    *,
    email: str = "",
    is_admin: bool = False,
    may_create_projects: bool = False,
) -> Any:
    """A new user account, the one way an account with a password is made (the admin's and the lead's
    forms, sign-up through an invitation, the demo, the test world): the username must pass the
    username rule (`annotator.accounts.usernames`) and the password the site's password validators
    (AUTH_PASSWORD_VALIDATORS); the errors of both come together, by field."""
    User = get_user_model()
    username = username.strip()
    errors: dict[str, Any] = {}
    try:
        check_new_username(username)
    except ValidationError as error:
        errors.update(error.message_dict)
    try:
        validate_password(password, User(username=username, email=email))
    except ValidationError as error:
        errors["password"] = error.messages
    if errors:
        raise ValidationError(errors)
    user = User.objects.create_user(username=username, password=password, email=email)
    if is_admin:
        user.is_staff = user.is_superuser = True
        user.save(update_fields=["is_staff", "is_superuser"])
    if may_create_projects:
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label="annotator", codename="add_project")
        )
    return user


def account_without_password(username: str) -> Any:
    """The user with this name, created with an unusable password if new (users named in imported
    files: they sign in once an admin sets a password). A new name must pass the username rule
    (`ValidationError` with its reasons)."""
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        check_new_username(username)
        user = User(username=username)
        user.set_unusable_password()
        user.save()
    return user


class SignInRefused(Exception):
    """A sign-in that did not give a token: wrong credentials, an inactive user, or a locked username."""

    def __init__(self, message: str, *, locked: bool = False) -> None:
        super().__init__(message)
        self.locked = locked


WRONG_CREDENTIALS = "Wrong username or password."
LOCKED = (
    "Too many failed sign-ins for this username: it is locked for {minutes} minutes. "
    "An admin can lift the lock sooner."
)


def lockout_minutes() -> int:
    cool_off = settings.AXES_COOLOFF_TIME
    return int(cool_off.total_seconds() // 60) if isinstance(cool_off, timedelta) else 0


def token_lifetime() -> timedelta | None:
    """How long an API token is valid (API_TOKEN_TTL_DAYS; 0 or unset: until revoked)."""
    days = settings.API_TOKEN_TTL_DAYS
    return timedelta(days=days) if days > 0 else None


def token_expires_at(token: Token) -> datetime | None:
    lifetime = token_lifetime()
    return token.created + lifetime if lifetime else None


def token_expired(token: Token, now: datetime | None = None) -> bool:
    expires = token_expires_at(token)
    return expires is not None and (now or timezone.now()) >= expires


def api_token(user: Any) -> Token | None:
    """The user's current API token, if they have one."""
    return Token.objects.filter(user=user).first()


def issue_token(user: Any) -> Token:
    """A new API token for the user; the previous one (if any) stops working at once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


def revoke_token(user: Any) -> bool:
    """Revoke the user's API token; returns whether there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def token_for_credentials(request: HttpRequest, username: str, password: str) -> Token:
    """The user's API token for a correct username and password (issued on first use, or anew when
    the old one expired). Counts towards the username's lockout like the login page.

    Raises `SignInRefused` (with `locked=True` while the username is locked).
    """
    user = authenticate(request, username=username, password=password)
    if getattr(request, "axes_locked_out", False):
        raise SignInRefused(LOCKED.format(minutes=lockout_minutes()), locked=True)
    if user is None or not user.is_active:
        raise SignInRefused(WRONG_CREDENTIALS)
    token = api_token(user)
    if token is None or token_expired(token):
        token = issue_token(user)
    return token


@dataclass(frozen=True)
class Lock:
    username: str
    ip_address: str | None
    failures: int
    last_attempt: datetime
    locked_until: datetime | None


def locks(now: datetime | None = None) -> list[Lock]:
    """Usernames locked right now (failures at the limit, cool-off not yet over), newest first."""
    now = now or timezone.now()
    cool_off = settings.AXES_COOLOFF_TIME
    rows = AccessAttempt.objects.filter(failures_since_start__gte=settings.AXES_FAILURE_LIMIT).order_by(
        "-attempt_time"
    )
    found = []
    for row in rows:
        until = row.attempt_time + cool_off if isinstance(cool_off, timedelta) else None
        if until is None or until > now:
            found.append(
                Lock(row.username or "", row.ip_address, row.failures_since_start, row.attempt_time, until)
            )
    return found


def unlock(username: str) -> int:
    """Lift the lock (and forget the failed attempts) of a username; returns how many records went."""
    return reset(username=username)


@dataclass(frozen=True)
class SignInEvent:
    when: datetime
    username: str
    ip_address: str | None
    succeeded: bool
    path: str


def sign_in_log(limit: int = 100) -> list[SignInEvent]:
    """The most recent sign-ins and failed attempts, newest first."""
    succeeded = [
        SignInEvent(row.attempt_time, row.username or "", row.ip_address, True, row.path_info)
        for row in AccessLog.objects.order_by("-attempt_time")[:limit]
    ]
    failed = [
        SignInEvent(row.attempt_time, row.username or "", row.ip_address, False, row.path_info)
        for row in AccessFailureLog.objects.order_by("-attempt_time")[:limit]
    ]
    return sorted(succeeded + failed, key=lambda e: e.when, reverse=True)[:limit]


# ---- passwords: tokens die with the old password; guesses and reset mails are counted --------------


def revoke_tokens_if_password_changed(
    sender: Any, instance: Any, update_fields: Any = None, **_: Any
) -> None:
    """`pre_save` of the user model: a new password (changed, reset, set by an admin or a command)
    revokes the user's API token, so a token taken with the old password stops working."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    old = type(instance).objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if old is not None and old != instance.password:
        Token.objects.filter(user_id=instance.pk).delete()


GUESS_KEY = "password-change-guesses:{}"
GUESSES_LOCKED = (
    "Too many wrong current passwords: password changes are refused for {minutes} minutes. "
    "Sign out and use 'forgot your password' if you no longer know it."
)


def old_password_guess_allowed(user: Any) -> bool:
    """Whether the user may try their current password on the change form (AXES_FAILURE_LIMIT wrong
    tries lock it for AXES_COOLOFF_TIME, like sign-in)."""
    return int(cache.get(GUESS_KEY.format(user.pk)) or 0) < settings.AXES_FAILURE_LIMIT


def count_wrong_old_password(user: Any) -> None:
    key = GUESS_KEY.format(user.pk)
    cache.add(key, 0, lockout_minutes() * 60)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, lockout_minutes() * 60)


RESET_KEY = "password-reset-mails:{}"


def reset_mail_allowed(kind: str, value: str) -> bool:
    """Whether another reset mail may go out for this address or from this IP address: at most
    PASSWORD_RESET_MAILS_PER_HOUR an hour each (one counter per address, one per client)."""
    key = RESET_KEY.format(f"{kind}:{value.strip().casefold()}")
    cache.add(key, 0, 3600)
    try:
        sent = cache.incr(key)
    except ValueError:
        cache.set(key, 1, 3600)
        sent = 1
    return sent <= settings.PASSWORD_RESET_MAILS_PER_HOUR
