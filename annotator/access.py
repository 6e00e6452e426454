"""The only place that decides who may see or change what.

Roles: an admin (staff) may do everything; a project lead sees their projects' dashboards, assignments
and all annotations in them; an annotator sees only their own assignments and annotations (blind
annotation). Outsiders get 404 (the object's existence is not revealed); members in the wrong role 403.
Views and the API call these functions as their first line.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from .models import EvaluationUnit, Membership, Pair, Project

User = AbstractBaseUser | AnonymousUser


def is_admin(user: Any) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.is_superuser))


def is_lead_anywhere(user: Any) -> bool:
    return bool(
        user.is_authenticated and Membership.objects.filter(user=user, role=Membership.Role.LEAD).exists()
    )


def roles_in(user: Any, project: Project) -> set[str]:
    if not user.is_authenticated:
        return set()
    return set(Membership.objects.filter(user=user, project=project).values_list("role", flat=True))


def roles_by_project(user: Any, project_ids: list[int]) -> dict[int, set[str]]:
    """The user's roles in each of the given projects, in one query."""
    roles: dict[int, set[str]] = {}
    if not user.is_authenticated:
        return roles
    rows = Membership.objects.filter(user=user, project_id__in=project_ids).values_list("project_id", "role")
    for project_id, role in rows:
        roles.setdefault(project_id, set()).add(role)
    return roles


def is_lead(user: Any, project: Project) -> bool:
    return is_admin(user) or Membership.Role.LEAD in roles_in(user, project)


def is_annotator(user: Any, project: Project) -> bool:
    return Membership.Role.ANNOTATOR in roles_in(user, project)


def visible_projects(user: Any) -> QuerySet[Project]:
    """Projects the user may open at all (any role)."""
    if is_admin(user):
        return Project.objects.all()
    if not user.is_authenticated:
        return Project.objects.none()
    return Project.objects.filter(memberships__user=user).distinct()


def led_projects(user: Any) -> QuerySet[Project]:
    if is_admin(user):
        return Project.objects.all()
    return Project.objects.filter(memberships__user=user, memberships__role=Membership.Role.LEAD).distinct()


def project_for_member(user: Any, project_pk: int) -> Project:
    """Any member (or admin); outsiders get 404."""
    project = visible_projects(user).filter(pk=project_pk).first()
    if project is None:
        raise Http404("No such project.")
    return project


def project_for_lead(user: Any, project_pk: int) -> Project:
    """Leads of the project and admins; other members 403, outsiders 404."""
    project = project_for_member(user, project_pk)
    if not is_lead(user, project):
        raise PermissionDenied("Only the project's leads may do this.")
    return project


def require_admin(user: Any) -> None:
    if not is_admin(user):
        raise PermissionDenied("Only administrators may do this.")


def pair_for_annotation(user: Any, project_pk: int, pair_pk: int) -> Pair:
    """A pair the user annotates: they must be an annotator of the project holding an assignment for it."""
    project = project_for_member(user, project_pk)
    pair = Pair.objects.filter(project=project, pk=pair_pk).first()
    if pair is None:
        raise Http404("No such pair.")
    if not is_annotator(user, project) or not pair.assignments.filter(annotator=user).exists():
        raise PermissionDenied("This pair is not assigned to you.")
    return pair


def pair_for_lead(user: Any, project_pk: int, pair_pk: int) -> Pair:
    project = project_for_lead(user, project_pk)
    pair = Pair.objects.filter(project=project, pk=pair_pk).first()
    if pair is None:
        raise Http404("No such pair.")
    return pair


def unit_for_rating(user: Any, project_pk: int, unit_pk: int) -> EvaluationUnit:
    project = project_for_member(user, project_pk)
    unit = EvaluationUnit.objects.filter(project=project, pk=unit_pk).first()
    if unit is None:
        raise Http404("No such unit.")
    if not unit.assignments.filter(annotator=user).exists():
        raise PermissionDenied("This unit is not assigned to you.")
    return unit


def can_see_annotations_of(user: Any, project: Project, owner_id: int) -> bool:
    """Annotators see only their own work; leads and admins see everyone's in their projects."""
    return is_lead(user, project) or (user.is_authenticated and user.pk == owner_id)


def can_see_agreement(user: Any, project: Project) -> bool:
    """Agreement numbers reveal others' annotations, so only leads and admins see them."""
    return is_lead(user, project)
