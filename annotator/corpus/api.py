"""REST endpoints of the project's aligner: `GET/POST /api/projects/{project_pk}/aligner/` (leads, admins).

GET lists the runs (newest first, with their progress) and the baseline κ_C uses; POST starts a run
(`{"symmetrize": "intersection"|"grow-diag-final"}`) → 202 with the run, to poll at its `poll` URL.
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from ..api_leadtools import INVALID, PROJECT_PK, LeadTool
from ..core.statistical_aligner import SYMMETRIZATIONS
from ..models import AlignerRun
from . import aligner_training as training


class AlignerRunSerializer(serializers.ModelSerializer):
    source = serializers.CharField(read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = AlignerRun
        fields = [
            "id",
            "version",
            "source",
            "settings",
            "status",
            "stage",
            "progress",
            "total",
            "report",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields


class AlignerStateSerializer(serializers.Serializer):
    runs = AlignerRunSerializer(many=True)
    baseline = serializers.DictField()


class TrainRequestSerializer(serializers.Serializer):
    symmetrize = serializers.ChoiceField(choices=SYMMETRIZATIONS, default="intersection")


@extend_schema(parameters=[PROJECT_PK])
class AlignerViewSet(LeadTool):
    """The project's statistical word aligner: its runs and a new run."""

    @extend_schema(
        summary="Runs of the project's aligner, newest first, and the baseline κ_C uses (leads only)",
        responses=AlignerStateSerializer,
    )
    def list(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        runs = AlignerRun.objects.filter(project=project).select_related("created_by").order_by("-version")
        return Response(
            {
                "runs": AlignerRunSerializer(runs, many=True).data,
                "baseline": training.baseline_summary(project),
            }
        )

    @extend_schema(
        summary="Train the aligner on the project's pairs and store a new version (a task; leads only)",
        request=TrainRequestSerializer,
        responses={202: AlignerRunSerializer, **INVALID},
    )
    def create(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        data = TrainRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            run = training.start_training(project, request.user, symmetrize=data.validated_data["symmetrize"])
        except training.TrainingError as exc:
            raise ValidationError({"project": [str(exc)]}) from exc
        body = dict(AlignerRunSerializer(run).data)
        body["poll"] = request.build_absolute_uri(
            reverse("api-aligner-list", kwargs={"project_pk": project.pk})
        )
        return Response(body, status=status.HTTP_202_ACCEPTED)
