"""REST endpoints of the project's aligner: `GET/POST /api/projects/{project_pk}/aligner/` (leads, admins),
of its automatic parse trees: `GET/POST /api/projects/{project_pk}/trees/` (the job's state and progress;
POST `{"parser": "spacy"|"benepar"}` → 202, a queue that cannot be reached gives status "failed" at once),
and of registered alignment systems: `GET/POST /api/projects/{project_pk}/systems/`.

GET lists the runs (newest first, with their progress) and the baseline κ_C uses; POST starts a run
(`{"symmetrize": "per-kind"|"intersection"|"grow-diag-final"}`) → 202 with the run, to poll at its `poll` URL.
`POST …/aligner/cancel/` and `POST …/trees/cancel/` stop the project's queued or running run or parsing
(a queued one at once, a running one at its next progress report; nothing is written).
"""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Count
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.agreement import current_figures
from annotator.api.leadtools import INVALID, PROJECT_PK, LeadTool
from annotator.core import machine_alignments
from annotator.core.auto_trees import BACKENDS as PARSERS
from annotator.core.statistical_aligner import SYMMETRIZATIONS
from annotator.corpus import aligner_training as training
from annotator.corpus import systems, tree_parsing
from annotator.models import AlignerRun, AlignmentSystem


class AlignerRunSerializer(serializers.ModelSerializer):
    # a declared field named like Field.source: DRF's metaclass takes it out of the class attributes
    source = serializers.CharField(read_only=True)  # type: ignore[assignment]
    created_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

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
    symmetrize = serializers.ChoiceField(choices=SYMMETRIZATIONS, default="per-kind")


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
                "baseline": machine_alignments.baseline_summary(project),
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

    @extend_schema(
        summary="Cancel the project's queued or running aligner run (leads only)",
        request=None,
        responses={200: AlignerRunSerializer, **INVALID},
    )
    @action(detail=False, methods=["post"])
    def cancel(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        run = (
            AlignerRun.objects.filter(project=project, status__in=training.ACTIVE)
            .order_by("-version")
            .first()
        )
        if run is None:
            raise ValidationError({"project": ["No aligner run is queued or running."]})
        training.cancel_training(run)
        run.refresh_from_db()
        return Response(AlignerRunSerializer(run).data)


class TreesStateSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["never", "queued", "running", "succeeded", "failed", "cancelled"],
        help_text="never: no parsing has run in the last day.",
    )
    done = serializers.IntegerField(help_text="Members parsed so far.")
    total = serializers.IntegerField(help_text="Members to parse (0 while queued).")
    percent = serializers.IntegerField()
    summary = serializers.CharField(allow_blank=True)
    backend = serializers.CharField(allow_blank=True)
    started_by = serializers.CharField(allow_blank=True)
    started_at = serializers.CharField(allow_blank=True)


class ParseRequestSerializer(serializers.Serializer):
    parser = serializers.ChoiceField(choices=PARSERS, default="spacy")


def _trees_state(project_id: int) -> dict[str, Any]:
    state = tree_parsing.tree_progress(project_id) or {"status": "never"}
    defaults = {
        "done": 0,
        "total": 0,
        "percent": 0,
        "summary": "",
        "backend": "",
        "started_by": "",
        "started_at": "",
    }
    return {key: state.get(key, default) for key, default in {"status": "never", **defaults}.items()}


@extend_schema(parameters=[PROJECT_PK])
class TreesViewSet(LeadTool):
    """Automatic parse trees for the members without an imported tree: the job's state and a new job."""

    @extend_schema(
        summary="State and progress of the project's tree parsing (leads only)",
        responses=TreesStateSerializer,
    )
    def list(self, request: Request, project_pk: str) -> Response:
        return Response(_trees_state(self.project().pk))

    @extend_schema(
        summary="Parse the members without an imported tree (a task; leads only)",
        request=ParseRequestSerializer,
        responses={202: TreesStateSerializer, **INVALID},
    )
    def create(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        data = ParseRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            tree_parsing.start_parsing(project, request.user, backend=data.validated_data["parser"])
        except tree_parsing.ParsingError as exc:
            raise ValidationError({"project": [str(exc)]}) from exc
        body = _trees_state(project.pk)
        body["poll"] = request.build_absolute_uri(
            reverse("api-trees-list", kwargs={"project_pk": project.pk})
        )
        return Response(body, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="Cancel the project's queued or running tree parsing (leads only)",
        request=None,
        responses={200: TreesStateSerializer, **INVALID},
    )
    @action(detail=False, methods=["post"])
    def cancel(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        state = tree_parsing.tree_progress(project.pk)
        if state is None or state.get("status") not in tree_parsing.ACTIVE:
            raise ValidationError({"project": ["No tree parsing is queued or running."]})
        tree_parsing.cancel_parsing(project)
        return Response(_trees_state(project.pk))


class SystemImportSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=60)
    format = serializers.ChoiceField(choices=systems.FORMATS, default="native")
    alignments = serializers.DictField(
        required=False, help_text="native: {pair id: {sure, possible, phrases}} (the file's `pairs`)."
    )
    text = serializers.CharField(required=False, help_text="pharaoh: the file's text.")

    def validate(self, data: dict) -> dict:
        if data["format"] == "native" and "alignments" not in data:
            raise ValidationError({"alignments": ["Give the alignments for the native format."]})
        if data["format"] == "pharaoh" and not data.get("text"):
            raise ValidationError({"text": ["Give the Pharaoh text."]})
        return data


class SystemScoresSerializer(serializers.Serializer):
    systems = serializers.ListField(child=serializers.DictField())
    aligner = serializers.ListField(child=serializers.DictField())


class SystemImportedSerializer(serializers.Serializer):
    name = serializers.CharField()
    pairs = serializers.IntegerField()


@extend_schema(parameters=[PROJECT_PK])
class SystemViewSet(LeadTool):
    """Registered alignment systems: their pairs and their scores in the current agreement."""

    @extend_schema(
        summary="The project's alignment systems and their scores (leads only)",
        responses=SystemScoresSerializer,
    )
    def list(self, request: Request, project_pk: str) -> Response:

        project = self.project()
        now = current_figures(project)
        machine = (now.results.get("machine") if now else None) or {}
        scores = {row["system"]: row["against"] for row in machine.get("systems", [])}
        rows = AlignmentSystem.objects.filter(project=project).annotate(n_pairs=Count("alignments"))
        return Response(
            {
                "systems": [{"name": s.name, "pairs": s.n_pairs, "scores": scores.get(s.name)} for s in rows],
                "aligner": machine.get("aligner", []),
            }
        )

    @extend_schema(
        summary="Register a system (when new) and import its alignments, all or nothing (leads only)",
        request=SystemImportSerializer,
        responses={201: SystemImportedSerializer, **INVALID},
    )
    def create(self, request: Request, project_pk: str) -> Response:
        project = self.project()
        data = SystemImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        if fields["format"] == "native":
            payload = json.dumps({"pairs": fields["alignments"]}).encode()
        else:
            payload = fields["text"].encode()
        try:
            n = systems.import_for(
                project, fields["name"], "request", payload, fields["format"], user=request.user
            )
        except systems.SystemImportError as exc:
            raise ValidationError({"alignments": exc.problems}) from exc
        return Response({"name": fields["name"].strip(), "pairs": n}, status=status.HTTP_201_CREATED)
