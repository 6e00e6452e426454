"""Stored agreement snapshots."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.permissions import IsAuthenticated

from annotator import access
from annotator.api import serializers as s
from annotator.api.common import (
    Page,
    ServiceErrors,
    filtered,
    int_param,
)
from annotator.api.permissions import SeesAgreement
from annotator.models import (
    AgreementSnapshot,
)


@extend_schema_view(
    list=extend_schema(
        summary="Agreement snapshots of the projects you lead",
        parameters=[int_param("project", "Project id.")],
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
