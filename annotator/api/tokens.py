"""The API token endpoint: a username and password in, the user's token out."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

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
        responses={200: s.TokenSerializer, 400: OpenApiResponse(description="Wrong username or password.")},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, **data.validated_data)
        if user is None or not user.is_active:
            raise ValidationError({"non_field_errors": ["Wrong username or password."]})
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


# ---- tagsets and projects -------------------------------------------------------------------------
