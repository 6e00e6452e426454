"""API token authentication: DRF's `TokenAuthentication` with the tokens' expiry.

Same lookup, rules and messages as DRF's class (unknown token, inactive user), plus expiry
(API_TOKEN_TTL_DAYS).
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from annotator.accounts.services import token_expired


class ExpiringTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, as DRF's TokenAuthentication (same schema, same errors); a token
    older than API_TOKEN_TTL_DAYS is refused."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise exceptions.AuthenticationFailed(
                "Token expired: get a new one at /account/ or POST /api/token/."
            )
        return user, token
