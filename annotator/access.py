"""The only place that decides who may see or change what.

Roles: an admin (staff) may do everything; a project lead sees their projects' dashboards, assignments
and all annotations in them; an annotator sees only their own assignments and annotations (blind
annotation). Outsiders get 404 (the object's existence is not revealed); members in the wrong role 403.
Views and the API call these functions as their first line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q, QuerySet
from django.http import Http404

from annotator.core import sql
from annotator.models import Assignment, EvaluationUnit, Membership, Pair, Project, Tagset

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


def usable_tagsets(user: Any) -> QuerySet[Tagset]:
    """Tagsets a user may give a project: the built-in ones, their own, and those of the projects they
    lead (admins: every tagset). Another lead's private tagset is not among them: a project that took
    it could change its types."""
    if is_admin(user):
        return Tagset.objects.all()
    if not user.is_authenticated:
        return Tagset.objects.none()
    led = led_projects(user).filter(tagset__isnull=False).values("tagset_id")
    return Tagset.objects.filter(Q(builtin=True) | Q(owner=user) | Q(pk__in=led))


def may_use_tagset(user: Any, tagset: Tagset | None) -> bool:
    """Whether `user` may set `tagset` on a project (None: the language's built-in default)."""
    return tagset is None or usable_tagsets(user).filter(pk=tagset.pk).exists()


def shared_tagsets() -> QuerySet[Project, Mapping[str, Any]]:
    """Ids of the tagsets that more than one project uses."""
    return (
        Project.objects.filter(tagset__isnull=False)
        .values("tagset_id")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
        .values("tagset_id")
    )


def editable_tagsets(user: Any) -> QuerySet[Tagset]:
    """Tagsets the user may edit: not built-in, and theirs or used by a project they lead; a tagset that
    several projects share only by an admin (its page lists the projects a change affects)."""
    rows = Tagset.objects.filter(builtin=False)
    if is_admin(user):
        return rows
    led = led_projects(user).values("tagset_id")
    return (rows.filter(pk__in=led) | rows.filter(owner=user)).exclude(pk__in=shared_tagsets())


def may_edit_tagset(user: Any, tagset: Tagset) -> bool:
    return not tagset.builtin and editable_tagsets(user).filter(pk=tagset.pk).exists()


def tagset_to_edit(user: Any, tagset_pk: int) -> Tagset:
    """A tagset the user may change; built-in ones answer 403 with the reason (clone it instead)."""
    tagset = Tagset.objects.filter(pk=tagset_pk).first()
    if tagset is None or not user.is_authenticated:
        raise Http404("No such tagset.")
    if tagset.builtin:
        raise PermissionDenied("Built-in tagsets are read-only: clone it and edit the copy.")
    if not is_admin(user):
        sharing = Project.objects.filter(tagset=tagset).count()
        if sharing > 1:
            raise PermissionDenied(
                f"This tagset is used by {sharing} projects: only an admin may change it, since a change"
                " affects all of them. Clone it to edit a copy for your project."
            )
    if not may_edit_tagset(user, tagset):
        raise PermissionDenied("Only the tagset's owner and the leads of projects using it may edit it.")
    return tagset


def require_admin(user: Any, reason: str = "Only administrators may do this.") -> None:
    if not is_admin(user):
        raise PermissionDenied(reason)


def require_creator(user: Any, what: str) -> None:
    """Only administrators and project leads create projects and tagsets (`what`: "create projects")."""
    if not may_create_project(user):
        raise PermissionDenied(f"Only administrators and project leads may {what}.")


def require_lead(user: Any, project: Project, action: str) -> None:
    """A member who is not a lead of `project` gets 403 naming the `action` ("publish guidelines")."""
    if not is_lead(user, project):
        raise PermissionDenied(f"Only the project's leads may {action}.")


def pair_for_annotation(user: Any, project_pk: int, pair_pk: int) -> Pair:
    """A pair the user annotates: they must be an annotator of the project holding an assignment for it.

    Outsiders of the project, and a pair of another project, get 404. One statement
    (`pair_for_annotation_by_id`: every editor save starts here); the pair comes back with its project
    loaded (its description and guidelines deferred)."""
    pair = pair_for_annotation_by_id(user, pair_pk)
    if pair.project_id != int(project_pk):
        raise Http404("No such pair.")
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


def rating_assignment(user: Any, unit: EvaluationUnit, round: int) -> Assignment:
    """The user's assignment to rate `unit` in `round` (0: the initial judgements); 403 without one."""
    assignment = unit.assignments.filter(annotator=user, round=round).first()
    if assignment is None:
        raise PermissionDenied("This unit is not assigned to you for rating.")
    return assignment


def can_see_annotations_of(user: Any, project: Project, owner_id: int) -> bool:
    """Annotators see only their own work; leads and admins see everyone's in their projects."""
    return is_lead(user, project) or (user.is_authenticated and user.pk == owner_id)


def can_see_agreement(user: Any, project: Project) -> bool:
    """Agreement numbers reveal others' annotations, so only leads and admins see them."""
    return is_lead(user, project)


# ---- querysets for lists (the REST API and any view that lists rows across projects) ---------------
# Each returns only rows the user may see: admins everything, leads everything in the projects they
# lead, annotators their own work (never another annotator's, never the gold layer).


def _led_ids(user: Any) -> QuerySet[Project, Mapping[str, Any]]:
    return led_projects(user).values("pk")


def may_create_project(user: Any) -> bool:
    """Admins, users who already lead a project and users an admin allowed to (the `add_project`
    permission) may start new projects (and become their lead)."""
    return (
        is_admin(user)
        or is_lead_anywhere(user)
        or bool(user.is_authenticated and user.has_perm("annotator.add_project"))
    )


def visible_pairs(user: Any) -> QuerySet[Pair]:
    """Pairs of the projects the user leads, and the pairs assigned to the user as an annotator."""
    if is_admin(user):
        return Pair.objects.all()
    if not user.is_authenticated:
        return Pair.objects.none()
    assigned = Pair.objects.filter(
        assignments__annotator=user,
        project__memberships__user=user,
        project__memberships__role=Membership.Role.ANNOTATOR,
    ).values("pk")
    return Pair.objects.filter(Q(project__in=_led_ids(user)) | Q(pk__in=assigned))


def visible_annotations(user: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """Annotation rows (pair label, phenomenon, link, phrase alignment) the user may read."""
    if is_admin(user):
        return queryset
    if not user.is_authenticated:
        return queryset.none()
    return queryset.filter(Q(pair__project__in=_led_ids(user)) | Q(annotator=user, is_gold=False))


def visible_judgements(user: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """Judgements the user may read: a rater only their own, leads all in their projects."""
    if is_admin(user):
        return queryset
    if not user.is_authenticated:
        return queryset.none()
    return queryset.filter(Q(item__unit__project__in=_led_ids(user)) | Q(rater=user))


def visible_units(user: Any) -> QuerySet[EvaluationUnit]:
    """Evaluation units of led projects, and the units assigned to the user as a rater."""
    if is_admin(user):
        return EvaluationUnit.objects.all()
    if not user.is_authenticated:
        return EvaluationUnit.objects.none()
    assigned = EvaluationUnit.objects.filter(assignments__annotator=user).values("pk")
    return EvaluationUnit.objects.filter(Q(project__in=_led_ids(user)) | Q(pk__in=assigned))


def visible_assignments(user: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """Assignments: leads see their projects' queues, everyone else only their own."""
    if is_admin(user):
        return queryset
    if not user.is_authenticated:
        return queryset.none()
    return queryset.filter(Q(project__in=_led_ids(user)) | Q(annotator=user))


def visible_jobs(user: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """Import/export jobs: the user's own, and every job of the projects they lead."""
    if is_admin(user):
        return queryset
    if not user.is_authenticated:
        return queryset.none()
    return queryset.filter(Q(project__in=_led_ids(user)) | Q(created_by=user))


def can_change_annotation(user: Any, row: Any) -> bool:
    """Annotators change only their own (non-gold) rows; the gold layer belongs to adjudication."""
    return bool(user.is_authenticated and row.annotator_id == user.pk and not row.is_gold)


def units_with_original_hidden(user: Any, units: list[EvaluationUnit]) -> set[int]:
    """Units whose original (source sentence, phrase) the user may not see yet: a rater judges
    grammaticality without it, so it stays hidden until they submit step 1. Leads always see it."""

    if is_admin(user) or not units:
        return set()
    led = set(led_projects(user).filter(pk__in={u.project_id for u in units}).values_list("pk", flat=True))
    rows = Assignment.objects.filter(
        annotator=user, unit__in=[u.pk for u in units if u.project_id not in led], round=0
    ).values_list("unit_id", "step")
    return {unit_id for unit_id, step in rows if step == Assignment.Step.GRAMMATICALITY}


def pair_for_annotation_by_id(user: Any, pair_pk: int) -> Pair:
    """`pair_for_annotation` for a pair named by its id alone (the REST API), in one statement.

    The same rule: outsiders of the pair's project get 404 (admins are members of every project); a
    member who is not its annotator with an assignment for the pair gets 403. The pair comes back with
    its project loaded (the project's description and guidelines deferred). Every API save starts
    here, so the statement is hand-written (`annotator.core.sql`): the ORM version with its three EXISTS
    subqueries cost ~3 ms of CPU to compile, the query itself a tenth of that.
    """

    if not user.is_authenticated or not 0 < int(pair_pk) < 2**63:  # beyond bigint: no such row
        raise Http404("No such pair.")
    found = sql.pair_for_annotation(user.pk, int(pair_pk))
    if found is None:
        raise Http404("No such pair.")
    pair, is_member, is_annotator, is_assigned = found
    if not (is_member or is_admin(user)):
        raise Http404("No such pair.")
    if not is_annotator or not is_assigned:
        raise PermissionDenied("This pair is not assigned to you.")
    return pair
