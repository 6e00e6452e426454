"""The REST API's shared ground: thin DRF views over `annotator.access` (who may) and the areas'
services (what happens).

Every write calls the same service function as the UI, so the rules, the history, the optimistic
concurrency and the recompute trigger are the UI's. Errors map uniformly:

- `django.core.exceptions.ValidationError` from a service → 400 `{field: [message]}`;
- `ConflictError` (stale `base_version`) → 409 `{detail, current_version}`;
- `Http404` / `PermissionDenied` from `access` → 404 (not yours to know about) / 403 (wrong role).

List endpoints are paginated (`page`, `page_size` ≤ 500) and take simple query-parameter filters
(`?project=`, `?pair=` …), always applied on top of the `access.visible_*` queryset.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Literal, overload

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error

from annotator import access
from annotator.annotation.services import ConflictError
from annotator.api import serializers as s
from annotator.models import (
    Pair,
    Project,
)

CONFLICT = OpenApiResponse(s.ConflictSerializer, description="Stale base_version: the current version.")
ERRORS = {400: OpenApiResponse(description="Invalid input: {field: [message]}."), 409: CONFLICT}


class Page(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


def int_param(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.INT, OpenApiParameter.QUERY, description=description)


def str_param(name: str, description: str, enum: list[str] | None = None) -> OpenApiParameter:
    return OpenApiParameter(
        name, OpenApiTypes.STR, OpenApiParameter.QUERY, description=description, enum=enum
    )


BASE_VERSION_PARAM = OpenApiParameter(
    "base_version",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    required=True,
    description="The sheet version the deletion is based on; stale → 409.",
)


def int_query(request: Request, name: str, *, required: bool = False) -> int | None:
    """A whole-number query parameter, or a 400 that names it."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        if required:
            raise ValidationError({name: ["This query parameter is required."]})
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({name: [f"Expected a whole number, got {raw!r}."]}) from None
    if not -(2**63) <= value < 2**63:
        raise ValidationError({name: [f"{raw} is out of range."]})
    return value


@overload
def int_query_value(raw: Any, name: str, *, required: Literal[True]) -> int: ...
@overload
def int_query_value(raw: Any, name: str, *, required: bool = False) -> int | None: ...
def int_query_value(raw: Any, name: str, *, required: bool = False) -> int | None:
    """A whole number sent as a form or JSON value, or a 400 that names it."""
    if raw is None or raw == "":
        if required:
            raise ValidationError({name: ["This field is required."]})
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ValidationError({name: [f"Expected a whole number, got {raw!r}."]}) from None


def signed_in(request: Request) -> User:
    """The request's user, who is signed in (the views' IsAuthenticated has made sure of it)."""
    user = request.user
    if not isinstance(user, get_user_model()):
        raise NotAuthenticated()
    return user


def body_fields(request: Request) -> Mapping[str, Any]:
    """The request's body as field → value (form fields or a JSON object), or a 400 if it is not that."""
    data = request.data
    if not isinstance(data, Mapping):
        raise ValidationError({"non_field_errors": ["Expected an object of fields."]})
    return data


def form_errors(form: Any) -> dict[str, list[str]]:
    """A UI form's errors as the API's `{field: [message]}` (form-wide ones under non_field_errors)."""
    errors = form.errors.get_json_data()
    return {
        ("non_field_errors" if field == "__all__" else field): [e["message"] for e in items]
        for field, items in errors.items()
    }


def filtered(request: Request, queryset: QuerySet[Any], filters: dict[str, str]) -> QuerySet[Any]:
    """Apply `?param=value` filters (param → ORM lookup); integer lookups end in `_id` or `pk`."""
    for param, lookup in filters.items():
        if lookup.endswith(("_id", "pk", "round")):
            value: Any = int_query(request, param)
        else:
            value = request.query_params.get(param) or None
        if value is not None:
            queryset = queryset.filter(**{lookup: value})
    return queryset


class ServiceErrors:
    """Turn the services' exceptions into API responses (mixed into every view); ids are numbers."""

    lookup_value_regex = "[0-9]+"

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, ConflictError):
            return Response(
                {"detail": str(exc), "current_version": exc.current_version}, status=status.HTTP_409_CONFLICT
            )
        if isinstance(exc, RequestDataTooBig):
            exc = ValidationError({"body": [f"{exc}: at most {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes"]})
        if isinstance(exc, DjangoValidationError):
            detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
            exc = ValidationError(detail)
        return super().handle_exception(exc)  # type: ignore[misc]  # a mixin: its view class has it


@cache
def _shared(serializer_class: type[serializers.Serializer]) -> serializers.Serializer:
    """One instance per serializer class, its fields built once (see `validated` and `represent`)."""
    return serializer_class()


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """`serializer_class(data=data)`'s validated data, or the same 400 as `is_valid(raise_exception=True)`.

    Serializer fields validate without keeping state, so one instance per class serves every request
    instead of a new one that deep-copies its declared fields each time (the costliest part of
    validating a save). Only for serializers whose validation does not read `context`/`instance`.
    """
    try:
        return dict(_shared(serializer_class).run_validation(data))
    except ValidationError as exc:
        raise ValidationError(as_serializer_error(exc)) from exc


def represent(serializer_class: type[serializers.Serializer], instance: Any) -> dict[str, Any]:
    """`serializer_class(instance).data` of a save's result, with the serializer's fields built once.

    A ModelSerializer introspects its model and deep-copies its fields for every new instance, which
    cost more than the rest of the response; its bound fields only read while representing, so one
    instance per class serves every request (no request-dependent fields in these serializers).
    """
    return dict(_shared(serializer_class).to_representation(instance))


def user_by_name(username: str, field: str) -> Any:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ValidationError({field: [f"No user named {username!r}."]})
    return user


def pair_to_annotate(user: Any, pair_pk: int) -> Pair:
    """The pair the user annotates (`access.pair_for_annotation`'s rule, by pair id, in one query)."""
    return access.pair_for_annotation_by_id(user, pair_pk)


def project_to_lead(user: Any, project_pk: int) -> Project:
    return access.project_for_lead(user, project_pk)


# ---- authentication -------------------------------------------------------------------------------
