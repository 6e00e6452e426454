"""Projects, tagsets, pairs (with an annotator's sheet) and assignments."""

from __future__ import annotations

import functools
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotator import access
from annotator.agreement import current
from annotator.annotation import services as annotation_services
from annotator.annotation import worklist as work
from annotator.api import serializers as s
from annotator.api.common import (
    CONFLICT,
    ERRORS,
    Page,
    ServiceErrors,
    filtered,
    int_param,
    int_query,
    project_to_lead,
    signed_in,
    str_param,
    user_by_name,
)
from annotator.api.permissions import MayCreateProject, SeesAgreement
from annotator.core import counts
from annotator.core.counts import KnownCountPaginator
from annotator.corpus import projects
from annotator.leadtools import planning
from annotator.models import (
    AgreementState,
    AlignmentLink,
    Assignment,
    Pair,
    PairLabel,
    Phenomenon,
    PhraseAlignment,
    Project,
    Tagset,
)
from annotator.projects import members as project_members
from annotator.projects import services as project_setup


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
    mixins.UpdateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = s.ProjectSerializer
    pagination_class = Page
    permission_classes = [IsAuthenticated, MayCreateProject]
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet[Project]:
        return access.visible_projects(self.request.user).order_by("name")

    def get_serializer_context(self) -> dict[str, Any]:
        ids = (
            list(self.get_queryset().values_list("pk", flat=True))
            if self.request.user.is_authenticated
            else []
        )
        return {**super().get_serializer_context(), "roles": access.roles_by_project(self.request.user, ids)}

    def create(self, request: Request) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        project = project_setup.create_project(request.user, **serializer.validated_data)
        return Response(self.get_serializer(project).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a project's settings (leads only); unset fields stay",
        request=s.ProjectSerializer,
        responses={200: s.ProjectSerializer, **ERRORS},
    )
    def partial_update(self, request: Request, pk: str) -> Response:
        project = project_to_lead(request.user, int(pk))
        serializer = self.get_serializer(project, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        project = project_setup.update_project(project, **serializer.validated_data)
        return Response(self.get_serializer(project).data)

    @extend_schema(summary="Members of the project (leads only)", responses=s.MembershipSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def members(self, request: Request, pk: str) -> Response:
        project = project_to_lead(request.user, int(pk))
        rows = project.memberships.select_related("user").order_by("user__username", "role")
        return Response(s.MembershipSerializer(rows, many=True).data)

    @extend_schema(
        summary="Add a member (leads only)",
        request=s.MemberAddSerializer,
        responses={201: s.MembershipSerializer, **ERRORS},
    )
    @members.mapping.post
    def add_member(self, request: Request, pk: str) -> Response:
        project = project_to_lead(request.user, int(pk))
        data = s.MemberAddSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = project_members.add_member(
            project, data.validated_data["username"], data.validated_data["role"]
        )
        return Response(s.MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="The current agreement and whether it is behind (leads only)",
        description="`behind` is true while a newer change has not been computed yet (dashboards show "
        "'recomputing…'); `enqueue_failed` while the task queue was unreachable (the periodic catch-up "
        "re-sends the recompute once it is back). Reading changes nothing.",
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
        now = current.current(project)
        return Response(
            {
                "project": project.pk,
                "behind": bool(state and state.is_behind),
                "enqueue_failed": bool(state and state.enqueue_failed),
                "changed_at": state.changed_at if state else None,
                "finished_at": state.finished_at if state else None,
                "last_error": state.last_error if state else "",
                "snapshot": s.CurrentAgreementSerializer({**vars(now), "project": project.pk}).data
                if now
                else None,
            }
        )


# ---- pairs and assignments ------------------------------------------------------------------------

PAIR_FILTERS = {"project": "project_id", "source_id": "source_id"}


@extend_schema_view(
    list=extend_schema(
        summary="Pairs of the projects you lead, and the pairs assigned to you",
        parameters=[
            int_param("project", "Project id."),
            str_param("source_id", "Id in the source corpus."),
        ],
    ),
)
class PairViewSet(ServiceErrors, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = s.PairSerializer
    pagination_class = Page

    def get_queryset(self) -> QuerySet[Pair]:
        rows = access.visible_pairs(self.request.user).order_by("project_id", "position", "pk")
        return filtered(self.request, rows, PAIR_FILTERS) if self.action == "list" else rows

    def paginate_queryset(self, queryset: Any) -> list[Any] | None:
        """A lead's (or an admin's) list of one whole project is as long as the project's stored pair
        count: the page is read without counting the project's pairs."""
        project_pk = int_query(self.request, "project")
        if project_pk is not None and not self.request.query_params.get("source_id"):
            project = Project.objects.filter(pk=project_pk).first()
            if project is not None and (
                access.is_admin(self.request.user) or access.is_lead(self.request.user, project)
            ):
                self.paginator.django_paginator_class = functools.partial(  # type: ignore[union-attr]
                    KnownCountPaginator, count=counts.n_pairs(project)
                )
        return super().paginate_queryset(queryset)

    @extend_schema(
        summary="Add a pair to a project (leads only)",
        request=s.PairCreateSerializer,
        responses={201: s.PairSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = s.PairCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        project = project_to_lead(request.user, fields.pop("project"))
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
        parameters=[int_param("annotator", "User id; default you. Another annotator's sheet: leads only.")],
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
            annotator_pk = signed_in(request).pk
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
        pair = _pair_to_annotate(request, pk)
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
            version = annotation_services.sheet_version(pair, request.user)
        return Response({"pair": pair.pk, "source": source, "suggestions": pending, "version": version})

    @extend_schema(
        methods=["GET"],
        summary=(
            "Your pending phrase suggestions on the pair: the automatic tree-node alignments "
            "you have not made, [[node1, node2], …] (nothing stored)"
        ),
        responses=s.SuggestionsSerializer,
    )
    @extend_schema(
        methods=["POST"],
        summary="Accept the phrase suggestions as your sure phrase alignments: all, or those in `phrases`",
        request=s.AcceptPhraseSuggestionsSerializer,
        responses={200: s.SuggestionsSerializer, **ERRORS, 409: CONFLICT},
    )
    @action(detail=True, methods=["get", "post"], pagination_class=None, url_path="phrase-suggestions")
    def phrase_suggestions(self, request: Request, pk: str) -> Response:
        pair = _pair_to_annotate(request, pk)
        version = None
        if request.method == "POST":
            data = s.AcceptPhraseSuggestionsSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            only = data.validated_data.get("phrases")
            version = work.accept_phrase_suggestions(
                pair,
                request.user,
                base_version=data.validated_data["base_version"],
                only=[(a, b) for a, b in only] if only is not None else None,
            )
        pending, source = work.phrase_suggestions(pair, request.user)
        if version is None:
            version = annotation_services.sheet_version(pair, request.user)
        body = {"pair": pair.pk, "source": source, "suggestions": [list(p) for p in pending]}
        return Response({**body, "version": version})


def _pair_to_annotate(request: Request, pk: str) -> Pair:
    """The pair `pk` as the requesting annotator may annotate it (404 when they cannot see it)."""
    visible = access.visible_pairs(request.user).filter(pk=int(pk)).first()
    if visible is None:
        raise Http404("No such pair.")
    return access.pair_for_annotation(request.user, visible.project_id, visible.pk)


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
            int_param("project", "Project id."),
            int_param("annotator", "Annotator's user id."),
            int_param("pair", "Pair id."),
            int_param("unit", "Evaluation unit id."),
            str_param("status", "Status.", enum=list(Assignment.Status.values)),
            int_param("round", "0 = first pass; n = n-th re-annotation round."),
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
        description="Without `pairs` every pair of the project goes to every annotator through the "
        "planner's stored plan (`plan`): 201 once written, 202 while a worker computes the plan "
        "(send the same request again).",
        request=s.AssignPairsSerializer,
        responses={201: s.AssignPairsResultSerializer, 202: s.AssignPairsResultSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = s.AssignPairsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        project = project_to_lead(request.user, fields["project"])
        users = [user_by_name(name, "annotators") for name in fields["annotators"]]
        phase = fields.get("phase") or None
        if fields["pairs"] is None:  # the whole project: through a stored plan, never in memory
            plan, created = planning.assign_whole_project(
                project, users, request.user, phase=phase, round=fields["round"]
            )
            body = {"created": created, "plan": plan.pk}
            return Response(
                body, status=status.HTTP_202_ACCEPTED if created is None else status.HTTP_201_CREATED
            )
        pairs = project.pairs.filter(pk__in=fields["pairs"])
        missing = sorted(set(fields["pairs"]) - set(pairs.values_list("pk", flat=True)))
        if missing:
            raise ValidationError({"pairs": [f"Pair {missing[0]} is not in project {project.pk}."]})
        created = projects.assign_pairs(project, users, pairs, phase=phase, round=fields["round"])
        return Response({"created": created, "plan": None}, status=status.HTTP_201_CREATED)


# ---- annotations ----------------------------------------------------------------------------------
