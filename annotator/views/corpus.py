"""Import and export for leads (per project) and admins (into a new project).

`corpus_jobs` serves the project's page and, for htmx, its `#jobs` region, which polls itself while a
job runs (progress bars) and stops polling when none does. The work is in `annotator.corpus_jobs`.
"""

from __future__ import annotations

from pathlib import Path

from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .. import access
from .. import corpus_jobs as jobs
from ..corpus.views import aligner_context, systems_context
from ..exports.report import NoSnapshot, report_html
from ..models import CorpusJob, Project
from . import corpus_forms as f

JOBS_SHOWN = 20


def _jobs(project: Project | None, user: object) -> list[dict[str, object]]:
    rows = CorpusJob.objects.select_related("created_by", "project")
    if project is not None:
        rows = rows.filter(project=project)
    else:  # the admin's imports into new projects (the job points to the project once it exists)
        rows = rows.filter(created_by=user, kind=CorpusJob.Kind.IMPORT, options__new_project=True)
    out = []
    for job in rows[:JOBS_SHOWN]:
        done, total = jobs.progress_of(job)
        out.append(
            {"job": job, "done": done, "total": total, "percent": round(100 * done / total) if total else 0}
        )
    return out


def _jobs_context(project: Project | None, user: object) -> dict[str, object]:
    rows = _jobs(project, user)
    running = any(row["job"].status in (CorpusJob.Status.QUEUED, CorpusJob.Status.RUNNING) for row in rows)
    return {"jobs": rows, "polling": running}


def _job(request: HttpRequest, project: Project, job_pk: int) -> CorpusJob:
    job = CorpusJob.objects.filter(pk=job_pk, project=project).first()
    if job is None:
        raise Http404("No such job.")
    return job


@require_http_methods(["GET", "POST"])
def corpus_jobs(request: HttpRequest, project_pk: int) -> HttpResponse:
    """The project's import/export page; POST uploads files into the project."""
    project = access.project_for_lead(request.user, project_pk)
    form = f.ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        jobs.start_import(
            request.user,
            form.cleaned_data["format"],
            project.name,
            form.uploads(),
            project=project,
            annotator=form.cleaned_data["annotator"] or None,
            dry_run=form.cleaned_data["dry_run"],
            skip_invalid=form.cleaned_data["skip_invalid"],
        )
        if request.htmx:
            response = render(
                request,
                "corpus/corpus_jobs.html#jobs",
                {"project": project, **_jobs_context(project, request.user)},
            )
            response["HX-Trigger"] = "corpus-job-started"
            return response
        return redirect("annotator:corpus-jobs", project_pk=project.pk)
    context = {"project": project, **_jobs_context(project, request.user)}
    if request.htmx and request.method == "GET":
        return render(request, "corpus/corpus_jobs.html#jobs", context)
    context |= {"form": form, "export_form": f.ExportForm(), "n_pairs": project.pairs.count()}
    context |= aligner_context(project) | systems_context(project)
    return render(request, "corpus/corpus_jobs.html", context, status=422 if form.errors else 200)


@require_POST
def corpus_export(request: HttpRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    form = f.ExportForm(request.POST)
    if form.is_valid():
        jobs.start_export(request.user, project, form.cleaned_data["format"], **form.options())
        return redirect("annotator:corpus-jobs", project_pk=project.pk)
    context = {
        "project": project,
        "form": f.ImportForm(),
        "export_form": form,
        "n_pairs": project.pairs.count(),
        **_jobs_context(project, request.user),
    }
    return render(request, "corpus/corpus_jobs.html", context, status=422)


@require_POST
def corpus_job_cancel(request: HttpRequest, project_pk: int, job_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    jobs.request_cancel(_job(request, project, job_pk))
    if request.htmx:
        return render(
            request,
            "corpus/corpus_jobs.html#jobs",
            {"project": project, **_jobs_context(project, request.user)},
        )
    return redirect("annotator:corpus-jobs", project_pk=project.pk)


@require_GET
def corpus_job_download(request: HttpRequest, project_pk: int, job_pk: int) -> HttpResponse:
    """The file an export job wrote."""
    project = access.project_for_lead(request.user, project_pk)
    job = _job(request, project, job_pk)
    if job.kind != CorpusJob.Kind.EXPORT or job.status != CorpusJob.Status.SUCCEEDED or not job.output_file:
        raise Http404("This job has no file to download.")
    path = Path(job.output_file)
    if not path.is_file():
        raise Http404("The exported file is gone; export again.")
    return FileResponse(
        path.open("rb"),
        as_attachment=True,
        filename=path.name,
        content_type=job.report.get("content_type", "application/octet-stream"),
    )


@require_GET
def corpus_job_report(request: HttpRequest, project_pk: int, job_pk: int) -> HttpResponse:
    """The full report of an import (every problem, repair and skip) as JSON."""
    project = access.project_for_lead(request.user, project_pk)
    job = _job(request, project, job_pk)
    response = JsonResponse(job.report, json_dumps_params={"indent": 1, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="import-{job.pk}-report.json"'
    return response


@require_GET
def corpus_report_print(request: HttpRequest, project_pk: int) -> HttpResponse:
    """The latest agreement report as a printable page."""
    project = access.project_for_lead(request.user, project_pk)
    try:
        return HttpResponse(report_html(project))
    except NoSnapshot as exc:
        return render(request, "corpus/no_report.html", {"project": project, "message": str(exc)}, status=404)


@require_http_methods(["GET", "POST"])
def corpus_import(request: HttpRequest) -> HttpResponse:
    """Admins: import files into a new project (created by the import)."""
    access.require_admin(request.user)
    form = f.NewProjectImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        started = jobs.start_import(
            request.user,
            form.cleaned_data["format"],
            form.cleaned_data["project_name"],
            form.uploads(),
            annotator=form.cleaned_data["annotator"] or None,
            dry_run=form.cleaned_data["dry_run"],
            skip_invalid=form.cleaned_data["skip_invalid"],
        )
        if started.project_id and started.status == CorpusJob.Status.SUCCEEDED:
            return redirect("annotator:corpus-jobs", project_pk=started.project_id)
        return redirect("annotator:corpus-import")
    context = _jobs_context(None, request.user)
    if request.htmx and request.method == "GET":
        return render(request, "corpus/corpus_import.html#jobs", context)
    return render(
        request, "corpus/corpus_import.html", {"form": form, **context}, status=422 if form.errors else 200
    )
