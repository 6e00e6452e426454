"""Import, export and lexicon build jobs: upload, progress, cancel, download."""

from __future__ import annotations

from pathlib import Path

from django.db.models import QuerySet
from django.http import FileResponse, Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotator import access
from annotator.api import serializers as s
from annotator.api.common import (
    ERRORS,
    Page,
    ServiceErrors,
    body_fields,
    filtered,
    form_errors,
    int_param,
    int_query_value,
    str_param,
)
from annotator.corpus import forms as corpus_forms
from annotator.corpus import jobs as corpus_jobs
from annotator.corpus import retention
from annotator.corpus.retention import UploadLimitExceeded, UploadTooLarge
from annotator.evaluation import lexicon_jobs
from annotator.evaluation.forms import LexiconBuildForm
from annotator.models import (
    CorpusJob,
    Project,
)


@extend_schema_view(
    list=extend_schema(
        summary="Import/export jobs with their progress: yours, and those of the projects you lead",
        parameters=[
            int_param("project", "Project id."),
            str_param("kind", "Kind.", enum=list(CorpusJob.Kind.values)),
            str_param("status", "Status.", enum=list(CorpusJob.Status.values)),
        ],
    )
)
class CorpusJobViewSet(ServiceErrors, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    """Import/export jobs. Starting, cancelling and downloading go through `annotator.corpus.jobs` and
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
        fields = body_fields(request)
        project_pk = int_query_value(fields.get("project"), "project")
        if project_pk is not None:
            project: Project | None = access.project_for_lead(request.user, project_pk)
            form = corpus_forms.ImportForm(fields, request.FILES)
        else:
            access.require_admin(request.user)
            project, form = None, corpus_forms.NewProjectImportForm(fields, request.FILES)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        data = form.cleaned_data
        try:
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
        except UploadLimitExceeded as exc:
            return Response({"files": [str(exc)]}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        return Response(s.CorpusJobSerializer(job).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Build evaluation units from a lexicon and a sentence file (Fujita), or preview them",
        description="For the project's leads. Small files are built within the request (the job comes back "
        "finished; bad input is a 400 naming file, line and field); large ones on a worker: follow "
        "`status` and `report` at /api/jobs/{id}/. `preview`: plan and report, write nothing.",
        request={"multipart/form-data": s.LexiconBuildRequestSerializer},
        responses={201: s.CorpusJobSerializer, **ERRORS},
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="lexicon",
        url_name="lexicon",
        parser_classes=[MultiPartParser, FormParser],
    )
    def start_lexicon_build(self, request: Request) -> Response:
        fields = body_fields(request)
        project_pk = int_query_value(fields.get("project"), "project", required=True)
        project = access.project_for_lead(request.user, project_pk)
        form = LexiconBuildForm(fields, request.FILES)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        preview = str(fields.get("preview", "")).strip().lower() in ("1", "true", "on", "yes")
        try:
            job = lexicon_jobs.start_build(
                request.user,
                project,
                form.upload("lexicon_file"),
                form.upload("sentence_file"),
                form.rule(),
                preview=preview,
            )
        except UploadLimitExceeded as exc:
            return Response({"lexicon_file": [str(exc)]}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        except UploadTooLarge as exc:
            raise ValidationError({"lexicon_file": [str(exc)]}) from exc
        if job.status == CorpusJob.Status.FAILED:
            stored = job.report.get("errors") or {"__all__": [job.report.get("summary", "")]}
            errors = {("non_field_errors" if k == "__all__" else k): v for k, v in stored.items()}
            raise ValidationError({**errors, "job": [str(job.pk)]})
        return Response(s.CorpusJobSerializer(job).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Export a project (its leads); the file is written by a worker",
        request=s.ExportRequestSerializer,
        responses={201: s.CorpusJobSerializer, **ERRORS},
    )
    @action(detail=False, methods=["post"], url_path="export", url_name="export")
    def start_export(self, request: Request) -> Response:
        fields = body_fields(request)
        project_pk = int_query_value(fields.get("project"), "project", required=True)
        project = access.project_for_lead(request.user, project_pk)
        form = corpus_forms.ExportForm(fields)
        if not form.is_valid():
            raise ValidationError(form_errors(form))
        job = corpus_jobs.start_export(request.user, project, form.cleaned_data["format"], **form.options())
        return Response(s.CorpusJobSerializer(job).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Cancel a queued or running job", request=None, responses=s.CorpusJobSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:

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

    @extend_schema(
        summary="Delete a finished job with its uploaded files and its export file (leads)",
        responses={204: None, 409: OpenApiResponse(description="The job is queued or running: cancel it.")},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        job = self._managed_job(request, int(pk))
        try:
            retention.delete_job(job)
        except retention.JobBusy as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)

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
