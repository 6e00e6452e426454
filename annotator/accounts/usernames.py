"""The one username rule, for every way an account is made (the lead's and the admin's create-account
forms, sign-up through an invitation, users named in imported files).

A new username must pass Django's validators of the user model's username field (letters, digits and
@ . + - _; at most 150 characters), so markup, spaces and invisible characters such as a zero-width
space are refused; it must be in Unicode NFKC form (a fullwidth `ｌｅｎａ` is refused, naming `lena`);
and no existing username may equal it after NFKC and case folding (`LENA` beside `lena`).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models


def username_key(username: str) -> str:
    """What two usernames must not share: the name in NFKC form, case-folded."""
    return unicodedata.normalize("NFKC", username).casefold()


def username_problems(username: str) -> list[str]:
    """Why `username` may not be a new account's name (empty: it may), without the taken check."""
    if not username:
        return ["Choose a user name."]
    field = get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD)
    if not isinstance(field, models.Field):
        raise TypeError("the user model's username is not a field of its own")
    try:
        field.run_validators(username)
    except ValidationError as error:
        return list(error.messages)
    normal = unicodedata.normalize("NFKC", username)
    if normal != username:
        return [f"Write the user name in plain characters: {normal!r}."]
    return []


def taken_by(username: str) -> Any:
    """The existing user whose name equals `username` after NFKC and case folding (None: free)."""
    key = username_key(username)
    candidates = get_user_model().objects.filter(username__iexact=unicodedata.normalize("NFKC", username))
    return next((user for user in candidates if username_key(user.get_username()) == key), None)


def check_new_username(username: str) -> str:
    """`username` if it may name a new account; else ValidationError on "username" saying why."""
    problems = username_problems(username)
    if not problems:
        existing = taken_by(username)
        if existing is not None:
            problems = [f"The user name {username!r} is taken ({existing.get_username()!r})."]
    if problems:
        raise ValidationError({"username": problems})
    return username
