"""API token authentication with the token and its user read in one hand-written statement.

DRF's `TokenAuthentication` runs `Token.objects.select_related("user").get(key=…)` on every request;
scripts and the load of many annotators make that the most frequent query of the API. Same rules and
messages as DRF's class (unknown token, inactive user), plus expiry (API_TOKEN_TTL_DAYS); only the lookup is `annotator.core.sql`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from annotator.accounts.services import token_expired
from annotator.core import sql


class FastTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, as DRF's TokenAuthentication (same schema, same errors)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        user_model = get_user_model()
        row = sql.fetch_one(_token_sql(), [key])
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        n = sql.width(Token)
        token = sql.instance(Token, row[:n])
        user = sql.instance(user_model, row[n:])
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if token_expired(token):
            raise exceptions.AuthenticationFailed(
                "Token expired: get a new one at /account/ or POST /api/token/."
            )
        token.user = user
        return user, token


@cache
def _token_sql() -> str:
    user_model = get_user_model()
    return (
        f"SELECT {sql.columns(Token, 't')}, {sql.columns(user_model, 'u')} "
        f"FROM {sql.table(Token)} t JOIN {sql.table(user_model)} u "
        f"ON u.{sql.column(user_model._meta.pk)} = t.{sql.column(Token._meta.get_field('user'))} "
        f"WHERE t.{sql.column(Token._meta.get_field('key'))} = %s"
    )
