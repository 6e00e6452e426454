"""Evaluation units and judgements (the two-step evaluation of substitutions)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from annotator import access
from annotator.api import serializers as s
from annotator.api.common import (
    ERRORS,
    Page,
    ServiceErrors,
    filtered,
    int_param,
    project_to_lead,
    str_param,
    user_by_name,
    validated,
)
from annotator.corpus.projects import create_unit
from annotator.evaluation import services as evaluation
from annotator.models import (
    EvaluationItem,
    EvaluationUnit,
    Judgement,
)


@extend_schema_view(
    list=extend_schema(
        summary="Evaluation units of the projects you lead, and the units assigned to you to rate",
        parameters=[int_param("project", "Project id.")],
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
        if args and self.request.user.is_authenticated:
            units = list(args[0]) if kwargs.get("many") else [args[0]]
            hidden = access.units_with_original_hidden(self.request.user, units)
            context = kwargs.pop("context", None) or self.get_serializer_context()
            kwargs["context"] = {**context, "hide_original": hidden}
        return super().get_serializer(*args, **kwargs)

    @extend_schema(
        summary="Create a unit with its substitutions (leads only)",
        request=s.EvaluationUnitCreateSerializer,
        responses={201: s.EvaluationUnitSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = s.EvaluationUnitCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        project = project_to_lead(request.user, fields["project"])
        unit = create_unit(
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
        project = project_to_lead(request.user, fields["project"])
        raters = [user_by_name(name, "raters") for name in fields["raters"]]
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
            int_param("project", "Project id."),
            int_param("unit", "Unit id."),
            int_param("item", "Item id."),
            int_param("rater", "Rater's user id (others': leads only)."),
            str_param("step", "Step.", enum=list(Judgement.Step.values)),
            str_param("phase", "Phase.", enum=list(Judgement.Phase.values)),
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
