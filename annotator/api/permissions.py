"""DRF permission classes of the REST API. Each one only asks `annotator.access`, the one permission
layer shared with the HTML views; none of them holds a rule of its own.

Most API checks are the same `access.*_for_*` calls the views make as their first line (they raise
404 for outsiders and 403 for the wrong role, which DRF turns into responses); these classes cover
what DRF checks before and around a view: list visibility is done by `access.visible_*` querysets.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from annotator import access


class MayCreateProject(BasePermission):
    """Creating a project: admins and users who lead a project already (they become its lead)."""

    message = "Only administrators and project leads may create projects."

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS or getattr(view, "action", None) != "create":
            return True
        return access.may_create_project(request.user)


class ChangesOwnAnnotation(BasePermission):
    """Reading follows the visibility querysets; changing a row is for the annotator who made it."""

    message = "Only the annotator who made this annotation may change it."

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return access.can_change_annotation(request.user, obj)


class SeesAgreement(BasePermission):
    """Agreement numbers reveal others' annotations: leads of the project and admins only."""

    message = "Only the project's leads may see its agreement."

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        project = getattr(obj, "project", obj)
        return access.can_see_agreement(request.user, project)
