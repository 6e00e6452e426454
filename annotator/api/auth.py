"""API token authentication with the token and its user read in one hand-written statement.

DRF's `TokenAuthentication` runs `Token.objects.select_related("user").get(key=…)` on every request;
scripts and the load of many annotators make that the most frequent query of the API. Same rules and
messages as DRF's class (unknown token, inactive user), plus expiry (API_TOKEN_TTL_DAYS); only the lookup is `annotator.core.sql`.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from annotator.accounts.services import token_expired
from annotator.core import sql


class FastTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, as DRF's TokenAuthentication (same schema, same errors)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        token = sql.token_with_user(key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if token_expired(token):
            raise exceptions.AuthenticationFailed(
                "Token expired: get a new one at /account/ or POST /api/token/."
            )
        return token.user, token
