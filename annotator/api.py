"""The REST API: thin DRF views over `annotator.access` (who may) and `annotator.services` (what happens).

Every write calls the same service function as the UI, so the rules, the history, the optimistic
concurrency and the recompute trigger are the UI's. Errors map uniformly:

- `django.core.exceptions.ValidationError` from a service → 400 `{field: [message]}`;
- `ConflictError` (stale `base_version`) → 409 `{detail, current_version}`;
- `Http404` / `PermissionDenied` from `access` → 404 (not yours to know about) / 403 (wrong role).

List endpoints are paginated (`page`, `page_size` ≤ 500) and take simple query-parameter filters
(`?project=`, `?pair=` …), always applied on top of the `access.visible_*` queryset.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.http import FileResponse, Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.views import APIView

from . import access, agreement, rows
from . import serializers as s
from .api_permissions import ChangesOwnAnnotation, MayCreateProject, SeesAgreement
from .models import (
    AgreementSnapshot,
    AgreementState,
    AlignmentLink,
    Assignment,
    CorpusJob,
    EvaluationItem,
    EvaluationUnit,
    Judgement,
    Pair,
    PairLabel,
    Phenomenon,
    PhraseAlignment,
    Project,
    Tagset,
)
from .services import annotations, evaluation, projects
from .services.annotations import ConflictError

CONFLICT = OpenApiResponse(s.ConflictSerializer, description="Stale base_version: the current version.")
ERRORS = {400: OpenApiResponse(description="Invalid input: {field: [message]}."), 409: CONFLICT}


class Page(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


def _int_param(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.INT, OpenApiParameter.QUERY, description=description)


def _str_param(name: str, description: str, enum: list[str] | None = None) -> OpenApiParameter:
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
        if isinstance(exc, DjangoValidationError):
            detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
            exc = ValidationError(detail)
        return super().handle_exception(exc)  # type: ignore[misc]


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


def _user_by_name(username: str, field: str) -> Any:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ValidationError({field: [f"No user named {username!r}."]})
    return user


def _pair_to_annotate(user: Any, pair_pk: int) -> Pair:
    """The pair the user annotates (`access.pair_for_annotation`'s rule, by pair id, in one query)."""
    return access.pair_for_annotation_by_id(user, pair_pk)


def _project_to_lead(user: Any, project_pk: int) -> Project:
    return access.project_for_lead(user, project_pk)


# ---- authentication -------------------------------------------------------------------------------


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


@extend_schema_view(list=extend_schema(summary="Tagsets (typologies) with their paraphrase types"))
class TagsetViewSet(ServiceErrors, viewsets.ReadOnlyModelViewSet):
    serializer_class = s.TagsetSerializer
    pagination_class = Page
    queryset = Tagset.objects.prefetch_related("types").order_by("name")


@extend_schema_view(
    list=extend_schema(summary="Projects you are a member of (all, for admins)"),
    create=extend_schema(
        summary="Create a project; you become its lead", responses={201: s.ProjectSerializer}
    ),
)
class ProjectViewSet(
    ServiceErrors,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = s.ProjectSerializer
    pagination_class = Page
    permission_classes = [IsAuthenticated, MayCreateProject]

    def get_queryset(self) -> QuerySet[Project]:
        return access.visible_projects(self.request.user).order_by("name")

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        ids = (
            list(self.get_queryset().values_list("pk", flat=True))
            if self.request.user.is_authenticated
            else []
        )
        context["roles"] = access.roles_by_project(self.request.user, ids)
        return context

    def create(self, request: Request) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fields = dict(serializer.validated_data)
        project = projects.create_project(fields.pop("name"), leads=[request.user], **fields)
        return Response(self.get_serializer(project).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Members of the project (leads only)", responses=s.MembershipSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def members(self, request: Request, pk: str) -> Response:
        project = _project_to_lead(request.user, int(pk))
        rows = project.memberships.select_related("user").order_by("user__username", "role")
        return Response(s.MembershipSerializer(rows, many=True).data)

    @extend_schema(
        summary="Add a member (leads only)",
        request=s.MemberAddSerializer,
        responses={201: s.MembershipSerializer, **ERRORS},
    )
    @members.mapping.post
    def add_member(self, request: Request, pk: str) -> Response:
        project = _project_to_lead(request.user, int(pk))
        data = s.MemberAddSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = projects.add_member(
            project, data.validated_data["username"], data.validated_data["role"]
        )
        return Response(s.MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="The latest agreement snapshot and whether it is behind (leads only)",
        description="`behind` is true while a newer change has not been computed yet (dashboards show "
        "'recomputing…'); `enqueue_failed` while the task queue was unreachable. Asking re-sends a "
        "recompute the queue refused earlier.",
        responses=s.AgreementSerializer,
    )
    @action(
        detail=True,
        methods=["get"],
        pagination_class=None,
        permission_classes=[IsAuthenticated, SeesAgreement],
    )
    def agreement(self, request: Request, pk: str) -> Response:
        project = access.project_for_member(request.user, int(pk))
        self.check_object_permissions(request, project)
        state = AgreementState.objects.filter(project=project).first()
        agreement.catch_up(state)  # like the dashboard's poll: re-send a recompute the broker refused
        if state is not None:
            state.refresh_from_db()
        snapshot = agreement.latest_snapshot(project)
        return Response(
            {
                "project": project.pk,
                "behind": bool(state and state.is_behind),
                "enqueue_failed": bool(state and state.enqueue_failed),
                "changed_at": state.changed_at if state else None,
                "finished_at": state.finished_at if state else None,
                "last_error": state.last_error if state else "",
                "snapshot": s.SnapshotSerializer(snapshot).data if snapshot else None,
            }
        )


# ---- pairs and assignments ------------------------------------------------------------------------

PAIR_FILTERS = {"project": "project_id", "source_id": "source_id"}


@extend_schema_view(
    list=extend_schema(
        summary="Pairs of the projects you lead, and the pairs assigned to you",
        parameters=[
            _int_param("project", "Project id."),
            _str_param("source_id", "Id in the source corpus."),
        ],
    ),
)
class PairViewSet(ServiceErrors, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = s.PairSerializer
    pagination_class = Page

    def get_queryset(self) -> QuerySet[Pair]:
        rows = access.visible_pairs(self.request.user).order_by("project_id", "position", "pk")
        return filtered(self.request, rows, PAIR_FILTERS) if self.action == "list" else rows

    @extend_schema(
        summary="Add a pair to a project (leads only)",
        request=s.PairCreateSerializer,
        responses={201: s.PairSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = s.PairCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        project = _project_to_lead(request.user, fields.pop("project"))
        if Pair.objects.filter(project=project, source_id=fields["source_id"]).exists():
            raise ValidationError(
                {"source_id": [f"Pair {fields['source_id']!r} already exists in this project."]}
            )
        try:
            with transaction.atomic():
                pair = projects.add_pair(project, fields.pop("source_id"), **fields)
        except IntegrityError:
            raise ValidationError({"source_id": ["A pair with this id was just added."]}) from None
        return Response(s.PairSerializer(pair).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="One annotator's complete work on the pair, with its version",
        parameters=[_int_param("annotator", "User id; default you. Another annotator's sheet: leads only.")],
        responses=s.SheetSerializer,
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def sheet(self, request: Request, pk: str) -> Response:
        pair = access.visible_pairs(request.user).filter(pk=int(pk)).first()
        if pair is None:
            raise Http404("No such pair.")
        annotator_pk = int_query(request, "annotator")
        if annotator_pk is None or annotator_pk == request.user.pk:
            pair = access.pair_for_annotation(request.user, pair.project_id, pair.pk)
            annotator_pk = request.user.pk
        else:
            pair = access.pair_for_lead(request.user, pair.project_id, pair.pk)
        return Response(_sheet(pair, annotator_pk))

    @extend_schema(
        methods=["GET"],
        summary="Your pending suggestions on the pair: the automatic links you have not made (nothing stored)",
        responses=s.SuggestionsSerializer,
    )
    @extend_schema(
        methods=["POST"],
        summary="Accept the suggestions as your sure links: all, or the ones in `links`",
        request=s.AcceptSuggestionsSerializer,
        responses={200: s.SuggestionsSerializer, **ERRORS, 409: CONFLICT},
    )
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def suggestions(self, request: Request, pk: str) -> Response:
        from .services import work

        visible = access.visible_pairs(request.user).filter(pk=int(pk)).first()
        if visible is None:
            raise Http404("No such pair.")
        pair = access.pair_for_annotation(request.user, visible.project_id, visible.pk)
        version = None
        if request.method == "POST":
            data = s.AcceptSuggestionsSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            only = data.validated_data.get("links")
            version = work.accept_suggestions(
                pair,
                request.user,
                base_version=data.validated_data["base_version"],
                only=[(i, j) for i, j in only] if only is not None else None,
            )
        pending, source = work.suggestions(pair, request.user)
        if version is None:
            version = annotations.sheet_version(pair, request.user)
        return Response({"pair": pair.pk, "source": source, "suggestions": pending, "version": version})


def _sheet(pair: Pair, annotator_pk: int) -> dict[str, Any]:
    label = PairLabel.objects.filter(pair=pair, annotator_id=annotator_pk, is_gold=False).first()
    rows = {"pair": pair, "annotator_id": annotator_pk, "is_gold": False}
    return {
        "pair": pair.pk,
        "annotator": annotator_pk,
        "version": label.version if label else 0,
        "label": label.label if label else "",
        "comment": label.comment if label else "",
        "phenomena": s.PhenomenonSerializer(Phenomenon.objects.filter(**rows), many=True).data,
        "links": s.AlignmentLinkSerializer(AlignmentLink.objects.filter(**rows), many=True).data,
        "phrase_alignments": s.PhraseAlignmentSerializer(
            PhraseAlignment.objects.filter(**rows), many=True
        ).data,
    }


ASSIGNMENT_FILTERS = {
    "project": "project_id",
    "annotator": "annotator_id",
    "pair": "pair_id",
    "unit": "unit_id",
    "status": "status",
    "round": "round",
}


@extend_schema_view(
    list=extend_schema(
        summary="Assignments: your own, and every assignment of the projects you lead",
        parameters=[
            _int_param("project", "Project id."),
            _int_param("annotator", "Annotator's user id."),
            _int_param("pair", "Pair id."),
            _int_param("unit", "Evaluation unit id."),
            _str_param("status", "Status.", enum=list(Assignment.Status.values)),
            _int_param("round", "0 = first pass; n = n-th re-annotation round."),
        ],
    ),
)
class AssignmentViewSet(
    ServiceErrors, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = s.AssignmentSerializer
    pagination_class = Page

    def get_queryset(self) -> QuerySet[Assignment]:
        rows = access.visible_assignments(self.request.user, Assignment.objects.order_by("project_id", "pk"))
        return filtered(self.request, rows, ASSIGNMENT_FILTERS) if self.action == "list" else rows

    @extend_schema(
        summary="Assign pairs to annotators (leads only; existing assignments are kept)",
        request=s.AssignPairsSerializer,
        responses={201: s.AssignResultSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = s.AssignPairsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        project = _project_to_lead(request.user, fields["project"])
        users = [_user_by_name(name, "annotators") for name in fields["annotators"]]
        pairs = project.pairs.all()
        if fields["pairs"] is not None:
            pairs = pairs.filter(pk__in=fields["pairs"])
            missing = sorted(set(fields["pairs"]) - set(pairs.values_list("pk", flat=True)))
            if missing:
                raise ValidationError({"pairs": [f"Pair {missing[0]} is not in project {project.pk}."]})
        created = projects.assign_pairs(
            project, users, pairs, phase=fields.get("phase") or None, round=fields["round"]
        )
        return Response({"created": created}, status=status.HTTP_201_CREATED)


# ---- annotations ----------------------------------------------------------------------------------

ANNOTATION_FILTER_PARAMS = [
    _int_param("project", "Project id."),
    _int_param("pair", "Pair id."),
    _int_param("annotator", "Annotator's user id (others' rows: leads only)."),
]
ANNOTATION_FILTERS = {"project": "pair__project_id", "pair": "pair_id", "annotator": "annotator_id"}


class AnnotationViewSet(
    ServiceErrors, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Common read side of the annotation layers: only rows `access.visible_annotations` allows."""

    model: type[Any]
    pagination_class = Page
    permission_classes = [IsAuthenticated, ChangesOwnAnnotation]

    def get_queryset(self) -> QuerySet[Any]:
        rows = access.visible_annotations(self.request.user, self.model.objects.order_by("pair_id", "pk"))
        return filtered(self.request, rows, ANNOTATION_FILTERS) if self.action == "list" else rows

    def changeable(self) -> Any:
        """The row to change: visible (else 404), yours (else 403), its pair still assigned to you."""
        row = self.get_object()
        _pair_to_annotate(self.request.user, row.pair_id)
        return row


@extend_schema_view(
    list=extend_schema(summary="Pair labels (annotators' sheets)", parameters=ANNOTATION_FILTER_PARAMS)
)
class PairLabelViewSet(AnnotationViewSet):
    model = PairLabel
    serializer_class = s.PairLabelSerializer

    @extend_schema(
        summary="Set your label and/or comment for a pair",
        request=s.PairLabelWriteSerializer,
        responses={200: s.PairLabelSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.PairLabelWriteSerializer, request.data)
        pair = _pair_to_annotate(request.user, fields["pair"])
        version = fields["base_version"]
        with transaction.atomic():
            if "label" in fields:
                version = annotations.set_pair_label(
                    pair, request.user, fields["label"], base_version=version
                )
            if "comment" in fields:
                annotations.set_comment(pair, request.user, fields["comment"], base_version=version)
        sheet = PairLabel.objects.get(pair=pair, annotator=request.user, is_gold=False)
        return Response(s.PairLabelSerializer(sheet).data)


@extend_schema_view(
    list=extend_schema(
        summary="Phenomena (paraphrase-type annotations)",
        parameters=[*ANNOTATION_FILTER_PARAMS, _int_param("ptype", "Paraphrase type id.")],
    )
)
class PhenomenonViewSet(AnnotationViewSet):
    model = Phenomenon
    serializer_class = s.PhenomenonSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self) -> QuerySet[Any]:
        rows = super().get_queryset()
        return filtered(self.request, rows, {"ptype": "ptype_id"}) if self.action == "list" else rows

    @extend_schema(
        summary="Add a phenomenon to your sheet of a pair",
        request=s.PhenomenonCreateSerializer,
        responses={201: s.PhenomenonResultSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.PhenomenonCreateSerializer, request.data)
        pair = _pair_to_annotate(request.user, fields.pop("pair"))
        phenomenon, version = annotations.add_phenomenon(
            pair, request.user, fields.pop("ptype"), base_version=fields.pop("base_version"), **fields
        )
        body = {"version": version, "phenomenon": represent(s.PhenomenonSerializer, phenomenon)}
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a phenomenon of yours (validated as a whole)",
        request=s.PhenomenonUpdateSerializer,
        responses={200: s.PhenomenonResultSerializer, **ERRORS},
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        phenomenon = self.changeable()
        changes = validated(s.PhenomenonUpdateSerializer, request.data)
        phenomenon, version = annotations.update_phenomenon(
            phenomenon, base_version=changes.pop("base_version"), actor=request.user, **changes
        )
        return Response({"version": version, "phenomenon": represent(s.PhenomenonSerializer, phenomenon)})

    @extend_schema(
        summary="Delete a phenomenon of yours",
        parameters=[BASE_VERSION_PARAM],
        responses={200: s.VersionSerializer, **ERRORS},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        base_version = int_query(request, "base_version", required=True)
        phenomenon = self.changeable()
        version = annotations.delete_phenomenon(phenomenon, base_version=base_version, actor=request.user)
        return Response({"version": version})


@extend_schema_view(
    list=extend_schema(summary="Word-alignment links (sure/possible)", parameters=ANNOTATION_FILTER_PARAMS)
)
class AlignmentLinkViewSet(AnnotationViewSet):
    model = AlignmentLink
    serializer_class = s.AlignmentLinkSerializer
    http_method_names = ["get", "post", "delete", "head", "options"]

    def _result(self, pair: Pair, version: int) -> Response:
        links = rows.select(AlignmentLink, {"pair": pair, "annotator": self.request.user, "is_gold": False})
        links_data = [represent(s.AlignmentLinkSerializer, link) for link in links]
        return Response({"version": version, "links": links_data})

    @extend_schema(
        summary="Add a block of links to your sheet (or re-mark them sure/possible)",
        request=s.LinksWriteSerializer,
        responses={200: s.LinksResultSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.LinksWriteSerializer, request.data)
        pair = _pair_to_annotate(request.user, fields["pair"])
        version = annotations.set_links(
            pair,
            request.user,
            [tuple(link) for link in fields["links"]],
            sure=fields["sure"],
            base_version=fields["base_version"],
        )
        return self._result(pair, version)

    @extend_schema(
        summary="Remove a block of links from your sheet",
        request=s.LinksRemoveSerializer,
        responses={200: s.LinksResultSerializer, **ERRORS},
    )
    @action(detail=False, methods=["post"], pagination_class=None)
    def remove(self, request: Request) -> Response:
        fields = validated(s.LinksRemoveSerializer, request.data)
        pair = _pair_to_annotate(request.user, fields["pair"])
        version = annotations.remove_links(
            pair, request.user, [tuple(link) for link in fields["links"]], base_version=fields["base_version"]
        )
        return self._result(pair, version)

    @extend_schema(
        summary="Remove one link of yours",
        parameters=[BASE_VERSION_PARAM],
        responses={200: s.VersionSerializer, **ERRORS},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        base_version = int_query(request, "base_version", required=True)
        link = self.changeable()
        version = annotations.remove_links(
            link.pair, request.user, [(link.i, link.j)], base_version=base_version
        )
        return Response({"version": version})


@extend_schema_view(
    list=extend_schema(
        summary="Phrase alignments between parse-tree nodes", parameters=ANNOTATION_FILTER_PARAMS
    )
)
class PhraseAlignmentViewSet(AnnotationViewSet):
    model = PhraseAlignment
    serializer_class = s.PhraseAlignmentSerializer
    http_method_names = ["get", "post", "delete", "head", "options"]

    @extend_schema(
        summary="Align a node of tree 1 with a node of tree 2 (or with nothing: null)",
        request=s.PhraseAlignmentCreateSerializer,
        responses={201: s.PhraseAlignmentResultSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.PhraseAlignmentCreateSerializer, request.data)
        pair = _pair_to_annotate(request.user, fields["pair"])
        alignment, version = annotations.add_phrase_alignment(
            pair,
            request.user,
            fields["node1"],
            fields["node2"],
            sure=fields["sure"],
            base_version=fields["base_version"],
        )
        body = {"version": version, "phrase_alignment": represent(s.PhraseAlignmentSerializer, alignment)}
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Remove a phrase alignment of yours",
        parameters=[BASE_VERSION_PARAM],
        responses={200: s.VersionSerializer, **ERRORS},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        base_version = int_query(request, "base_version", required=True)
        alignment = self.changeable()
        version = annotations.remove_phrase_alignment(
            alignment, base_version=base_version, actor=request.user
        )
        return Response({"version": version})


# ---- evaluation -----------------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(
        summary="Evaluation units of the projects you lead, and the units assigned to you to rate",
        parameters=[_int_param("project", "Project id.")],
    )
)
class EvaluationUnitViewSet(
    ServiceErrors, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = s.EvaluationUnitSerializer
    pagination_class = Page

    def get_queryset(self) -> QuerySet[EvaluationUnit]:
        rows = (
            access.visible_units(self.request.user)
            .prefetch_related("items")
            .order_by("project_id", "position", "pk")
        )
        return filtered(self.request, rows, {"project": "project_id"}) if self.action == "list" else rows

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        serializer = super().get_serializer(*args, **kwargs)
        if args and self.request.user.is_authenticated:
            units = list(args[0]) if kwargs.get("many") else [args[0]]
            serializer.context["hide_original"] = access.units_with_original_hidden(self.request.user, units)
        return serializer

    @extend_schema(
        summary="Create a unit with its substitutions (leads only)",
        request=s.EvaluationUnitCreateSerializer,
        responses={201: s.EvaluationUnitSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = s.EvaluationUnitCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        project = _project_to_lead(request.user, fields["project"])
        unit = evaluation.create_unit(
            project,
            fields["source_id"],
            fields["source_sentence"],
            fields["phrase"],
            fields["phrase_start"],
            fields["phrase_end"],
            [(sub["id"], sub["paraphrase"], sub["candidate_source"]) for sub in fields["substitutions"]],
        )
        return Response(s.EvaluationUnitSerializer(unit).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Give each unrated unit of a project to r raters (leads only)",
        request=s.AssignUnitsSerializer,
        responses={201: s.AssignResultSerializer, **ERRORS},
    )
    @action(detail=False, methods=["post"], pagination_class=None)
    def assign(self, request: Request) -> Response:
        data = s.AssignUnitsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        project = _project_to_lead(request.user, fields["project"])
        raters = [_user_by_name(name, "raters") for name in fields["raters"]]
        created = evaluation.assign_units(project, raters, fields["r"], fields["seed"])
        return Response({"created": created}, status=status.HTTP_201_CREATED)

    def _step(self, request: Request, pk: str, service: Any) -> Response:
        unit = _unit_to_rate(request.user, int(pk))
        assignment = service(unit, request.user, actor=request.user)
        return Response(s.UnitStepSerializer(assignment).data)

    @extend_schema(
        summary="Submit step 1 (grammaticality): the meaning step opens",
        request=None,
        responses={200: s.UnitStepSerializer, **ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="submit-grammaticality")
    def submit_grammaticality(self, request: Request, pk: str) -> Response:
        return self._step(request, pk, evaluation.submit_grammaticality)

    @extend_schema(
        summary="Finalize the unit (step 2 done): its labels become final",
        request=None,
        responses={200: s.UnitStepSerializer, **ERRORS},
    )
    @action(detail=True, methods=["post"])
    def finalize(self, request: Request, pk: str) -> Response:
        return self._step(request, pk, evaluation.finalize_unit)

    @extend_schema(
        summary="Postpone the unit to the end of your queue",
        request=None,
        responses={200: s.UnitStepSerializer, **ERRORS},
    )
    @action(detail=True, methods=["post"])
    def postpone(self, request: Request, pk: str) -> Response:
        return self._step(request, pk, evaluation.postpone_unit)


def _unit_to_rate(user: Any, unit_pk: int) -> EvaluationUnit:
    project_pk = (
        EvaluationUnit.objects.filter(pk=unit_pk).order_by().values_list("project_id", flat=True).first()
    )
    if project_pk is None:
        raise Http404("No such unit.")
    return access.unit_for_rating(user, project_pk, unit_pk)


JUDGEMENT_FILTERS = {
    "project": "item__unit__project_id",
    "unit": "item__unit_id",
    "item": "item_id",
    "rater": "rater_id",
    "step": "step",
    "phase": "phase",
}


@extend_schema_view(
    list=extend_schema(
        summary="Judgements: your own, and every judgement of the projects you lead",
        parameters=[
            _int_param("project", "Project id."),
            _int_param("unit", "Unit id."),
            _int_param("item", "Item id."),
            _int_param("rater", "Rater's user id (others': leads only)."),
            _str_param("step", "Step.", enum=list(Judgement.Step.values)),
            _str_param("phase", "Phase.", enum=list(Judgement.Phase.values)),
        ],
    )
)
class JudgementViewSet(
    ServiceErrors, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = s.JudgementSerializer
    pagination_class = Page

    def get_queryset(self) -> QuerySet[Judgement]:
        rows = access.visible_judgements(self.request.user, Judgement.objects.order_by("item_id", "pk"))
        return filtered(self.request, rows, JUDGEMENT_FILTERS) if self.action == "list" else rows

    @extend_schema(
        summary="Record or revise your judgement of an item (answers give the label)",
        request=s.JudgementWriteSerializer,
        responses={200: s.JudgementSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        fields = validated(s.JudgementWriteSerializer, request.data)
        item = EvaluationItem.objects.filter(pk=fields["item"]).select_related("unit").first()
        if item is None:
            raise Http404("No such item.")
        _unit_to_rate(request.user, item.unit_id)
        judgement = evaluation.record_judgement(
            item,
            request.user,
            fields["step"],
            answers=fields["answers"],
            label=fields["label"],
            phase=fields["phase"],
            base_version=fields["base_version"],
            actor=request.user,
        )
        return Response(s.JudgementSerializer(judgement).data)


# ---- agreement and jobs ---------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(
        summary="Agreement snapshots of the projects you lead",
        parameters=[_int_param("project", "Project id.")],
    )
)
class SnapshotViewSet(ServiceErrors, viewsets.ReadOnlyModelViewSet):
    serializer_class = s.SnapshotSerializer
    pagination_class = Page
    permission_classes = [IsAuthenticated, SeesAgreement]

    def get_queryset(self) -> QuerySet[AgreementSnapshot]:
        if getattr(self, "swagger_fake_view", False):  # schema generation: no user
            return AgreementSnapshot.objects.none()
        # Agreement reveals everyone's annotations: `access.can_see_agreement` = lead, so led projects.
        rows = AgreementSnapshot.objects.filter(project__in=access.led_projects(self.request.user))
        return filtered(self.request, rows, {"project": "project_id"}) if self.action == "list" else rows


@extend_schema_view(
    list=extend_schema(
        summary="Import/export jobs with their progress: yours, and those of the projects you lead",
        parameters=[
            _int_param("project", "Project id."),
            _str_param("kind", "Kind.", enum=list(CorpusJob.Kind.values)),
            _str_param("status", "Status.", enum=list(CorpusJob.Status.values)),
        ],
    )
)
class CorpusJobViewSet(ServiceErrors, viewsets.ReadOnlyModelViewSet):
    """Import/export jobs. Starting, cancelling and downloading go through `annotator.corpus_jobs` and
    the upload/export forms of the corpus pages, so the API accepts exactly what the UI accepts."""

    serializer_class = s.CorpusJobSerializer
    pagination_class = Page

    def get_queryset(self) -> QuerySet[CorpusJob]:
        rows = access.visible_jobs(self.request.user, CorpusJob.objects.order_by("-created_at", "-pk"))
        filters = {"project": "project_id", "kind": "kind", "status": "status"}
        return filtered(self.request, rows, filters) if self.action == "list" else rows

    @extend_schema(
        summary="Import files into a project (its leads) or into a new project (admins)",
        description="Small uploads run within the request (the job comes back finished, with its report); "
        "large ones run on a worker: follow `progress`/`total`/`status` at /api/jobs/{id}/.",
        request={"multipart/form-data": s.ImportRequestSerializer},
        responses={201: s.CorpusJobSerializer, **ERRORS},
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="import",
        url_name="import",
        parser_classes=[MultiPartParser, FormParser],
    )
    def start_import(self, request: Request) -> Response:
        from . import corpus_jobs
        from .views import corpus_forms

        project_pk = int_query_value(request.data.get("project"), "project")
        if project_pk is not None:
            project: Project | None = access.project_for_lead(request.user, project_pk)
            form = corpus_forms.ImportForm(request.data, request.FILES)
        else:
            access.require_admin(request.user)
            project, form = None, corpus_forms.NewProjectImportForm(request.data, request.FILES)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        data = form.cleaned_data
        job = corpus_jobs.start_import(
            request.user,
            data["format"],
            project.name if project else data["project_name"],
            form.uploads(),
            project=project,
            annotator=data["annotator"] or None,
            dry_run=data["dry_run"],
            skip_invalid=data["skip_invalid"],
        )
        return Response(s.CorpusJobSerializer(job).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Export a project (its leads); the file is written by a worker",
        request=s.ExportRequestSerializer,
        responses={201: s.CorpusJobSerializer, **ERRORS},
    )
    @action(detail=False, methods=["post"], url_path="export", url_name="export")
    def start_export(self, request: Request) -> Response:
        from . import corpus_jobs
        from .views import corpus_forms

        project_pk = int_query_value(request.data.get("project"), "project", required=True)
        project = access.project_for_lead(request.user, project_pk)
        form = corpus_forms.ExportForm(request.data)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        job = corpus_jobs.start_export(request.user, project, form.cleaned_data["format"], **form.options())
        return Response(s.CorpusJobSerializer(job).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Cancel a queued or running job", request=None, responses=s.CorpusJobSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        from . import corpus_jobs

        job = self._managed_job(request, int(pk))
        corpus_jobs.request_cancel(job)
        job.refresh_from_db()
        return Response(s.CorpusJobSerializer(job).data)

    @extend_schema(
        summary="The file an export job wrote",
        responses={
            (200, "application/octet-stream"): OpenApiTypes.BINARY,
            404: OpenApiResponse(description="No file."),
        },
    )
    @action(detail=True, methods=["get"])
    def download(self, request: Request, pk: str) -> FileResponse:
        job = self._managed_job(request, int(pk))
        path = Path(job.output_file) if job.output_file else None
        if job.kind != CorpusJob.Kind.EXPORT or job.status != CorpusJob.Status.SUCCEEDED or not path:
            raise Http404("This job has no file to download.")
        if not path.is_file():
            raise Http404("The exported file is gone; export again.")
        content_type = job.report.get("content_type", "application/octet-stream")
        return FileResponse(
            path.open("rb"), as_attachment=True, filename=path.name, content_type=content_type
        )

    def _managed_job(self, request: Request, pk: int) -> CorpusJob:
        """A job its project's leads manage (admins: also imports into new projects)."""
        job = self.get_queryset().filter(pk=pk).first()
        if job is None:
            raise Http404("No such job.")
        if job.project_id is not None:
            access.project_for_lead(request.user, job.project_id)
        else:
            access.require_admin(request.user)
        return job
