"""The lead's live agreement dashboard (URL name `annotator:dashboard`).

One view serves the page and, for htmx requests, the panel named by `HX-Target` (one template partial
per panel, named after its DOM id). `#snapshot-status` polls while the tab is visible; when it sees a
computation newer than the one the page shows (its `AgreementHeadline` row) it triggers
`snapshot-updated`, on which every other panel reloads itself; the agreement panels also reload every
3 s while their figures' confidence intervals are still being computed ("intervals updating…"), and
each reload asks for them (`intervals_view`, a POST: `computation.ask_for_intervals`). The
panels show the current agreement (`annotator.agreement.current`: the report's section rows and the
summary every computation rewrites), not the latest full report, which is stored at a slower cadence. Nothing is computed during a request.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from django.db.models import Field
from django.http import HttpResponse, HttpResponseNotModified
from django.shortcuts import render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template, render_to_string
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from annotator import access
from annotator.agreement import computation, current, kappa_c_chunks, retention
from annotator.agreement.statistics import latest_statistics
from annotator.annotation import phenomenon_suggestions, recommender
from annotator.core import health
from annotator.core.web_request import SignedInRequest
from annotator.dashboard import tables as dashboard
from annotator.dashboard.comparison import compare_type_frequencies
from annotator.dashboard.paper_tables import statistics_tables
from annotator.evaluation.stats import lead_summary_context, project_precision, rater_progress
from annotator.models import Project

TEMPLATE = "dashboard/dashboard.html"
PANELS = (
    "progress",
    "phenomena-agreement",
    "alignment-agreement",
    "label-agreement",
    "evaluation",
    "trend",
    "heatmap",
)
LEAD_SUMMARY = "evaluation/_lead_summary.html"


@require_GET
def dashboard_view(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Lead / admin: progress, agreement tables, heatmaps and trend of the project's current agreement."""
    project = access.project_for_lead(request.user, project_pk)
    target = request.htmx.target if request.htmx else None
    if target == "snapshot-status":
        return _status_response(request, project)
    if target in PANELS:
        return render(request, f"{TEMPLATE}#{target}", _context(project, {target}))
    return render(request, TEMPLATE, _context(project, set(PANELS) | {"snapshot-status"}))


@require_POST
def pin_view(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Lead / admin: pin a report (kept for good by retention, with a note) or release a pin; answers
    the trend panel (where the pins are listed) with the outcome. `computation` pins the report of that
    computation (the current agreement: stored now when the cadence has not stored it), `snapshot` a
    stored report."""
    project = access.project_for_lead(request.user, project_pk)
    error = ""
    try:
        if request.POST.get("action") == "unpin":
            retention.unpin(project, int(request.POST.get("snapshot", "")))
        elif "computation" in request.POST:
            note = request.POST.get("note", "")
            retention.pin_computation(project, int(request.POST["computation"]), note)
        else:
            retention.pin(project, int(request.POST.get("snapshot", "")), request.POST.get("note", ""))
    except ValueError as exc:  # PinError, or a missing / non-numeric report id
        error = (
            str(exc) if isinstance(exc, retention.PinError) else "Which report? The form sent no report id."
        )
    context = {**_context(project, {"trend"}), "pin_error": error}
    return render(request, f"{TEMPLATE}#trend", context, status=400 if error else 200)


@require_POST
def intervals_view(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Lead / admin: ask for the confidence intervals of the current figures and, when they are sent,
    the corpus statistics of the same annotations (`computation.ask_for_intervals`); `when=now` is the
    lead's "compute the intervals now", anything else the panels' periodic ask. Answers the outcome as
    a line of text (the panels show the intervals and the statistics once they are stored)."""
    project = access.project_for_lead(request.user, project_pk)
    outcome = computation.ask_for_intervals(project.pk, at_once=request.POST.get("when") == "now")
    text = {
        "sent": "computing the intervals…",
        "waiting": "intervals follow when the saves stop",
        "none": "",
        "failed": "the task queue is unreachable: the intervals could not be asked for",
    }[outcome]
    return HttpResponse(
        text, content_type="text/plain; charset=utf-8", status=503 if outcome == "failed" else 200
    )


def _status_response(request: SignedInRequest, project: Project) -> HttpResponse:
    """The status line; a poll that finds nothing new (same ETag) gets an empty 304 — the browser
    revalidates the cached line (Cache-Control: no-cache) and htmx swaps the same content."""
    context = _status_context(project)
    etag = status_etag(context, request.GET.get("seen", ""))
    if etag in request.headers.get("If-None-Match", ""):
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = render(request, f"{TEMPLATE}#snapshot-status", context)
        latest = context["status"]["latest"]
        if latest is not None and request.GET.get("seen") != str(latest["id"]):
            trigger_client_event(response, "snapshot-updated")
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    patch_vary_headers(response, ("HX-Request", "HX-Target"))
    return response


def status_etag(context: dict[str, Any], seen: str) -> str:
    """What the status line shows, as an ETag: the latest computation (its headline row's id — a new one
    for every computation stored — and pending sections), the pipeline's state (changed, started,
    finished, error, behind), the computation the page shows (`seen`) and the minute (the line says how
    long ago it was computed), and κ_C's parts done while it is pending."""
    latest, state = context["status"]["latest"], context["state"]
    parts = (
        latest and (latest["id"], tuple(latest["pending"])),
        state
        and (state.changed_at, state.started_at, state.finished_at, state.last_error, state.enqueue_failed),
        seen,
        # "stale: no worker has answered for N min" changes the line too (the age is in the minute)
        (context["status"].get("freshness") or {}).get("reason"),
        context["status"].get("kappa_c_parts"),
        int(time.time() // 60),
    )
    return '"' + hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest() + '"'


def _status_context(project: Project) -> dict[str, Any]:
    """State and latest snapshot (`dashboard.status_rows`): every poll reads them."""
    state, latest = dashboard.status_rows(project.pk)
    status = dashboard.status(state, latest)
    status["freshness"] = health.figures_freshness(state, latest["computed_at"] if latest else None)
    if "kappa_c" in status["pending"]:  # κ_C's Monte Carlo computed in parts by the workers: how far
        status["kappa_c_parts"] = kappa_c_chunks.progress(project.pk)
    return {"project": project, "state": state, "status": status}


def _layer_name(layer: str) -> str:
    """The layer as its switch on the project is labelled ("word alignment")."""
    field = Project._meta.get_field(f"layer_{layer}")
    return str(field.verbose_name) if isinstance(field, Field) else layer


def _context(project: Project, parts: set[str]) -> dict[str, Any]:
    context: dict[str, Any] = {
        "project": project,
        "layer_names": [_layer_name(n) for n in project.layers],
    }
    if "snapshot-status" in parts:
        context.update(_status_context(project))
    if "progress" in parts:
        context["work_progress"] = computation.progress(project)
    if "alignment-agreement" in parts:  # the recommender's scores, stored by its last training run
        run = context["recommender_run"] = recommender.current_run(project)
        # the annotators' decisions on its suggestions (none can exist before a run succeeded)
        context["suggestion_rates"] = phenomenon_suggestions.rates(project) if run else []
    if "trend" in parts:
        context["trend_svg"] = dashboard.trend(project.pk)
        context["pinned_reports"] = retention.pinned_reports(project)
        status = context.get("status")
        context["latest_report"] = status["latest"] if status else dashboard.status_rows(project.pk)[1]
    needs_results = parts & {
        "phenomena-agreement",
        "alignment-agreement",
        "label-agreement",
        "evaluation",
        "heatmap",
    }
    if not needs_results:
        return context
    now = current.current(project)
    context["has_snapshot"] = now is not None
    if now is None:
        return context
    results: dict[str, Any] = {
        "report": now.results.get("report") or {"measures": {}},
        "pair_labels": now.results.get("pair_labels"),
        "pending": now.results.get("pending") or [],
    }
    names = now.results.get("annotators") or []
    measures = results["report"]["measures"]
    context.update(
        {
            "snapshot": {"id": now.computation, "computed_at": now.computed_at},
            # the panels reload themselves until the figures' own intervals are there (none are shown)
            "intervals_updating": now.intervals == "updating" and not results["pending"],
            "names": names,
            "phenomena": dashboard.phenomena_tables(measures, names),
            "alignment": dashboard.alignment_tables(measures, names, results["pending"]),
            "labels": dashboard.label_tables(results, names),
            "evaluation_rows": dashboard.evaluation_rows(measures),
            "heatmaps": dashboard.heatmaps(results, names),
            "machine": now.results.get("machine") or {},
            "kappa_c_baseline": now.results.get("kappa_c_baseline") or {},
            "system_spade": dashboard.system_spade_rows(measures),
        }
    )
    if "evaluation" in parts and project.layer_evaluation:
        context.update(_lead_summary(project, measures))
    return context


def _lead_summary(project: Project, measures: dict[str, Any]) -> dict[str, Any]:
    """The evaluation area's lead summary partial, when that area provides it."""
    try:
        get_template(LEAD_SUMMARY)
    except (TemplateDoesNotExist, ImportError):
        return {}
    summary = lead_summary_context(measures, project_precision(project), rater_progress(project))
    # Rendered with its own context: its keys (e.g. `progress`) must not replace the dashboard's.
    return {"lead_summary_html": render_to_string(LEAD_SUMMARY, {"project": project, **summary})}


@require_GET
def statistics_view(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Lead / admin: the corpus statistics panel (`#statistics`): the latest statistics the workers
    computed (`statistics.latest_statistics`; sent with every stored full report whose κ_C is final).
    Nothing is computed or sent in the request: before the first are kept the panel polls, and it says
    when they are of older annotations than the figures."""
    project = access.project_for_lead(request.user, project_pk)
    context: dict[str, Any] = {"project": project}
    fingerprint = current.fingerprint(project)
    if fingerprint is not None:
        kept = latest_statistics(project)
        stats = kept[1] if kept is not None else None
        context["has_snapshot"] = True
        context["statistics"] = statistics_tables(stats) if stats is not None else None
        context["statistics_behind"] = kept is not None and kept[0] != fingerprint
        candidates = access.led_projects(request.user).exclude(pk=project.pk).filter(layer_phenomena=True)
        picked = {int(pk) for pk in request.GET.getlist("compare") if pk.isdigit()}
        context["compare_candidates"] = [(other, other.pk in picked) for other in candidates.order_by("name")]
        if stats is not None and picked:
            context["comparison"] = compare_type_frequencies(stats, candidates.filter(pk__in=picked))
    return render(request, f"{TEMPLATE}#statistics", context)
