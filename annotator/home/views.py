"""Home page, project overview and health check."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from annotator import access
from annotator.annotation import worklist
from annotator.core import health
from annotator.core.counts import sizes
from annotator.corpus import tree_parsing
from annotator.evaluation.rounds import INITIAL_ROUND
from annotator.models import Assignment, AssignmentCount, Membership, Project
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
    """The user's own assignment counts per project, read from the tallies the database keeps
    (`AssignmentCount`, a row per status: no query counts assignments). Pairs are counted as the
    editor's queue counts them (`worklist.queue_counts`: postponed in the database or in this session
    and not done), evaluation units apart, as the rating queue counts them (a rater with units and no
    pairs is shown the units only) (the first round's units finalized of all; re-evaluation units
    still open apart)."""
    aside: set[int] = set()
    if session is not None:
        for project_id in project_ids:
            aside |= worklist.Postponed(session, project_id).pair_ids()
    held = worklist.held_open(user, project_ids, aside)
    pairs = worklist.pair_tallies(user, project_ids)
    units: dict[int, dict[str, int]] = {}
    unit_rows = (
        AssignmentCount.objects.filter(
            project_id__in=project_ids, annotator=user, kind=AssignmentCount.Kind.UNITS
        )
        .values_list("project_id", "round", "status")
        .annotate(n=Sum("n"))
        .order_by()
    )
    for project_id, unit_round, status, n in unit_rows:
        entry = units.setdefault(project_id, {"units": 0, "units_done": 0, "reevaluation_open": 0})
        done = status == Assignment.Status.DONE
        if unit_round == INITIAL_ROUND:
            entry["units"] += int(n)
            entry["units_done"] += int(n) if done else 0
        elif not done:
            entry["reevaluation_open"] += int(n)
    counts: dict[int, dict[str, int]] = {}
    for project_id in {*pairs, *units}:
        by_status = pairs.get(project_id, {})
        total = sum(by_status.values())
        done = by_status.get(Assignment.Status.DONE, 0)
        postponed = by_status.get(Assignment.Status.POSTPONED, 0) + held.get(project_id, 0)
        counts[project_id] = {
            **_empty_counts(),
            "total": total,
            "done": done,
            "postponed": postponed,
            "todo": total - done - postponed,
            "percent": round(100 * done / total) if total else 0,
            **units.get(project_id, {}),
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
    return render(request, "home/home.html", {"projects": rows})


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
    return render(request, "home/project_detail.html", context)


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The database, the broker and the workers' last heartbeat, each reported (annotator.core.health);
    200 when the database and the broker answer, 503 otherwise. Anyone sees the states; worker and queue
    names and error details only admins."""
    status, body = health.report()
    if not access.is_admin(request.user):
        body = health.public(body)  # worker and queue names only for admins
    return JsonResponse(body, status=status)
