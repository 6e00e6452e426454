"""Home page, project overview and health check."""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .. import access
from ..models import Assignment, Project


def _queue_counts(user, project: Project) -> dict[str, int]:
    counts = Assignment.objects.filter(project=project, annotator=user).aggregate(
        total=Count("id"),
        done=Count("id", filter=Q(status=Assignment.Status.DONE)),
        postponed=Count("id", filter=Q(status=Assignment.Status.POSTPONED)),
    )
    counts["todo"] = counts["total"] - counts["done"] - counts["postponed"]
    counts["percent"] = round(100 * counts["done"] / counts["total"]) if counts["total"] else 0
    return counts


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Each role's starting page: the annotator's queues, the lead's projects, the admin's tools."""
    projects = []
    for project in access.visible_projects(request.user).select_related("tagset"):
        projects.append(
            {
                "project": project,
                "is_lead": access.is_lead(request.user, project),
                "is_annotator": access.is_annotator(request.user, project),
                "queue": _queue_counts(request.user, project),
            }
        )
    return render(request, "core/home.html", {"projects": projects})


@require_GET
def project_detail(request: HttpRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_member(request.user, project_pk)
    context = {
        "project": project,
        "is_project_lead": access.is_lead(request.user, project),
        "is_project_annotator": access.is_annotator(request.user, project),
        "queue": _queue_counts(request.user, project),
        "n_pairs": project.pairs.count(),
        "n_units": project.units.count(),
    }
    return render(request, "core/project_detail.html", context)


def broker_status() -> tuple[bool, str]:
    """Whether the Celery broker answers (in-process mode counts as up)."""
    if not settings.REDIS_URL:
        return True, "in-process (no REDIS_URL)"
    import redis

    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1).ping()
    except Exception as exc:
        return False, f"unreachable: {exc.__class__.__name__}"
    return True, "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Checks the database and the broker; 200 when both answer, 503 otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        db_ok, db_msg = True, "ok"
    except Exception as exc:
        db_ok, db_msg = False, f"unreachable: {exc.__class__.__name__}"
    broker_ok, broker_msg = broker_status()
    status = 200 if db_ok and broker_ok else 503
    return JsonResponse({"database": db_msg, "broker": broker_msg, "ok": status == 200}, status=status)
