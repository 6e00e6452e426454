"""The API token endpoint: a username and password in, the user's token out."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.accounts import services
from annotator.api import serializers as s
from annotator.api.common import (
    ServiceErrors,
)


class TokenView(ServiceErrors, APIView):
    """Exchange a username and password for the user's API token (created on first use)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        request=s.TokenRequestSerializer,
        responses={
            200: s.TokenSerializer,
            400: OpenApiResponse(description="Wrong username or password."),
            429: OpenApiResponse(description="Too many failed sign-ins: the username is locked for a while."),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            token = services.token_for_credentials(request._request, **data.validated_data)
        except services.SignInRefused as refused:
            if refused.locked:
                return Response({"detail": str(refused)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
            raise ValidationError({"non_field_errors": [str(refused)]}) from refused
        return Response({"token": token.key})
