"""Home page, project overview and health check."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from annotator import access
from annotator.annotation import worklist
from annotator.core.counts import sizes
from annotator.corpus import tree_parsing
from annotator.evaluation.rounds import INITIAL_ROUND
from annotator.home import health
from annotator.models import Assignment, Membership, Project
from annotator.projects import guidelines


def _queue_counts(user, project: Project, session: Any = None) -> dict[str, int]:
    return _queue_counts_by_project(user, [project.pk], session).get(project.pk, _empty_counts())


def _empty_counts() -> dict[str, int]:
    return {
        "total": 0,
        "done": 0,
        "postponed": 0,
        "todo": 0,
        "percent": 0,
        "units": 0,
        "units_done": 0,
        "reevaluation_open": 0,
    }


def _queue_counts_by_project(user, project_ids: list[int], session: Any = None) -> dict[int, dict[str, int]]:
    """The user's own assignment counts per project, in two queries: pairs counted as the editor's queue
    counts them (`worklist.queue_counts`: postponed in the database or in this session and not done),
    evaluation units apart, as the rating queue counts them (a rater with units and no pairs is shown
    the units only) (the first round's units finalized of all;
    re-evaluation units still open apart)."""
    aside: set[int] = set()
    if session is not None:
        for project_id in project_ids:
            aside |= worklist.Postponed(session, project_id).pair_ids()
    postponed = Q(status=Assignment.Status.POSTPONED) | (
        Q(pair_id__in=sorted(aside)) & ~Q(status=Assignment.Status.DONE)
    )
    mine = Assignment.objects.filter(project_id__in=project_ids, annotator=user).order_by()
    # pairs and units apart, each counted on its own partial index (`assignment_pair_queue` is read
    # alone, without the table)
    pair_rows = (
        mine.filter(pair__isnull=False)
        .values("project_id")
        .annotate(
            total=Count("id"),
            done=Count("id", filter=Q(status=Assignment.Status.DONE)),
            postponed=Count("id", filter=postponed),
        )
    )
    unit_rows = (
        mine.filter(unit__isnull=False)
        .values("project_id")
        .annotate(
            units=Count("id", filter=Q(round=INITIAL_ROUND)),
            units_done=Count("id", filter=Q(round=INITIAL_ROUND, status=Assignment.Status.DONE)),
            reevaluation_open=Count("id", filter=~Q(round=INITIAL_ROUND) & ~Q(status=Assignment.Status.DONE)),
        )
    )
    units = {row["project_id"]: row for row in unit_rows}
    rows = [
        {**row, **units.pop(row["project_id"], {"units": 0, "units_done": 0, "reevaluation_open": 0})}
        for row in pair_rows
    ]
    rows += [{"project_id": pk, "total": 0, "done": 0, "postponed": 0, **row} for pk, row in units.items()]
    counts: dict[int, dict[str, int]] = {}
    for row in rows:
        total, done, postponed = row["total"], row["done"], row["postponed"]
        counts[row["project_id"]] = {
            "total": total,
            "done": done,
            "postponed": postponed,
            "todo": total - done - postponed,
            "percent": round(100 * done / total) if total else 0,
            "units": row["units"],
            "units_done": row["units_done"],
            "reevaluation_open": row["reevaluation_open"],
        }
    return counts


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Each role's starting page: the annotator's queues, the lead's projects, the admin's tools."""
    projects = list(access.visible_projects(request.user).select_related("tagset"))
    roles = access.roles_by_project(request.user, [p.pk for p in projects])
    counts = _queue_counts_by_project(request.user, [p.pk for p in projects], request.session)
    admin = access.is_admin(request.user)
    rows = [
        {
            "project": project,
            "is_lead": admin or Membership.Role.LEAD in roles.get(project.pk, set()),
            "is_annotator": Membership.Role.ANNOTATOR in roles.get(project.pk, set()),
            "is_rater": Membership.Role.RATER in roles.get(project.pk, set()),
            "queue": counts.get(project.pk, _empty_counts()),
        }
        for project in projects
    ]
    return render(request, "core/home.html", {"projects": rows})


@require_GET
def project_detail(request: HttpRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_member(request.user, project_pk)
    size = sizes(project)
    context = {
        "project": project,
        "is_project_lead": access.is_lead(request.user, project),
        "is_project_annotator": access.is_annotator(request.user, project),
        "queue": _queue_counts(request.user, project, request.session),
        "n_pairs": size.pairs,
        "n_units": size.units,
        "guidelines_unseen": guidelines.unseen_version(project, request.user),
    }
    if context["is_project_lead"]:
        context["wrong_trees"] = tree_parsing.wrong_language(project)
        context["english_typology"] = project.language != "en" and bool(
            project.tagset and project.tagset.builtin
        )
    return render(request, "core/project_detail.html", context)


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The database, the broker and the workers' last heartbeat, each reported (annotator.home.health);
    200 when the database and the broker answer, 503 otherwise. Anyone sees the states; worker and queue
    names and error details only admins."""
    status, body = health.report()
    if not access.is_admin(request.user):
        body = health.public(body)  # worker and queue names only for admins
    return JsonResponse(body, status=status)
