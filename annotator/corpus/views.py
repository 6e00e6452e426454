"""Import and export for leads (per project) and admins (into a new project).

`corpus_jobs` serves the project's page and, for htmx, its `#jobs` region, which polls itself while a
job runs (progress bars) and stops polling when none does. The work is in `annotator.corpus.jobs`.

The "Train aligner" panel (`corpus_aligner`, `#aligner`, which polls itself while a run is queued or
running) starts a run of the project's statistical aligner (`aligner_training.start_training`);
`corpus_trees` starts automatic parsing; `corpus_systems` registers alignment systems.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypedDict

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from annotator import access
from annotator.core import counts, machine_alignments
from annotator.core.forms import OwnIds
from annotator.core.statistical_aligner import SYMMETRIZATIONS
from annotator.core.web_request import SignedInRequest
from annotator.corpus import aligner_training as training
from annotator.corpus import forms as f
from annotator.corpus import jobs, retention, systems, tokens, tree_parsing
from annotator.corpus.exports.report import NoSnapshot, report_html
from annotator.corpus.retention import UploadLimitExceeded
from annotator.models import AlignerRun, AlignmentSystem, CorpusJob, Project
from annotator.projects.forms import add_service_errors

JOBS_SHOWN = 20
RUNS_SHOWN = 5


class JobRow(TypedDict):
    job: CorpusJob
    done: int
    total: int
    percent: int
    stored: int
    kept_until: datetime | None


def _jobs(project: Project | None, user: User) -> list[JobRow]:
    rows = CorpusJob.objects.select_related("created_by", "project")
    if project is not None:
        rows = rows.filter(project=project)
    else:  # the admin's imports into new projects (the job points to the project once it exists)
        rows = rows.filter(created_by=user, kind=CorpusJob.Kind.IMPORT, options__new_project=True)
    out: list[JobRow] = []
    for job in rows[:JOBS_SHOWN]:
        done, total = jobs.progress_of(job)
        out.append(
            {
                "job": job,
                "done": done,
                "total": total,
                "percent": round(100 * done / total) if total else 0,
                "stored": retention.stored_bytes(job),
                "kept_until": retention.kept_until(job),
            }
        )
    return out


def _jobs_context(project: Project | None, user: User) -> dict[str, object]:
    rows = _jobs(project, user)
    running = any(row["job"].status in (CorpusJob.Status.QUEUED, CorpusJob.Status.RUNNING) for row in rows)
    return {"jobs": rows, "polling": running}


def _job(request: SignedInRequest, project: Project, job_pk: int) -> CorpusJob:
    job = CorpusJob.objects.filter(pk=job_pk, project=project).first()
    if job is None:
        raise Http404("No such job.")
    return job


def _started(form: f.ImportForm, start: Callable[[], CorpusJob]) -> CorpusJob | None:
    """The started job, or None with the service's refusal on the form (the upload limit on its files)."""
    try:
        return start()
    except UploadLimitExceeded as exc:
        form.add_error("files", str(exc))
    except ValidationError as exc:
        form.add_error(None, exc)
    return None


@require_http_methods(["GET", "POST"])
def corpus_jobs(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """The project's import/export page; POST uploads files into the project."""
    project = access.project_for_lead(request.user, project_pk)
    form = f.ImportForm(request.POST or None, request.FILES or None)
    if (
        request.method == "POST"
        and form.is_valid()
        and _started(
            form,
            lambda: jobs.start_import(
                request.user,
                form.cleaned_data["format"],
                project.name,
                form.uploads(),
                project=project,
                annotator=form.cleaned_data["annotator"] or None,
                dry_run=form.cleaned_data["dry_run"],
                skip_invalid=form.cleaned_data["skip_invalid"],
            ),
        )
    ):
        if request.htmx:
            response = render(
                request,
                "corpus/corpus_jobs.html#jobs",
                {"project": project, **_jobs_context(project, request.user)},
            )
            return trigger_client_event(response, "corpus-job-started")
        return redirect("annotator:corpus-jobs", project_pk=project.pk)
    context = {"project": project, **_jobs_context(project, request.user)}
    if request.htmx and request.method == "GET":
        return render(request, "corpus/corpus_jobs.html#jobs", context)
    context |= {"form": form, "export_form": f.ExportForm(), "n_pairs": counts.n_pairs(project)}
    context |= aligner_context(project) | systems_context(project)
    return render(request, "corpus/corpus_jobs.html", context, status=422 if form.errors else 200)


@require_POST
def corpus_export(request: SignedInRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    form = f.ExportForm(request.POST)
    if form.is_valid():
        try:
            jobs.start_export(request.user, project, form.cleaned_data["format"], **form.options())
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return redirect("annotator:corpus-jobs", project_pk=project.pk)
    context = {
        "project": project,
        "form": f.ImportForm(),
        "export_form": form,
        "n_pairs": counts.n_pairs(project),
        **_jobs_context(project, request.user),
    }
    return render(request, "corpus/corpus_jobs.html", context, status=422)


@require_POST
def corpus_job_cancel(request: SignedInRequest, project_pk: int, job_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    jobs.request_cancel(_job(request, project, job_pk))
    if request.htmx:
        return render(
            request,
            "corpus/corpus_jobs.html#jobs",
            {"project": project, **_jobs_context(project, request.user)},
        )
    return redirect("annotator:corpus-jobs", project_pk=project.pk)


@require_POST
def corpus_job_delete(request: SignedInRequest, project_pk: int, job_pk: int) -> HttpResponse:
    """Delete a finished job with its files (a queued or running one: the reason, as a message)."""
    project = access.project_for_lead(request.user, project_pk)
    try:
        retention.delete_job(_job(request, project, job_pk))
    except retention.JobBusy as exc:
        messages.error(request, str(exc))
    if request.htmx:
        return render(
            request,
            "corpus/corpus_jobs.html#jobs",
            {"project": project, **_jobs_context(project, request.user)},
        )
    return redirect("annotator:corpus-jobs", project_pk=project.pk)


@require_GET
def corpus_job_download(request: SignedInRequest, project_pk: int, job_pk: int) -> FileResponse:
    """The file an export job wrote."""
    project = access.project_for_lead(request.user, project_pk)
    job = _job(request, project, job_pk)
    if job.kind != CorpusJob.Kind.EXPORT or job.status != CorpusJob.Status.SUCCEEDED or not job.output_file:
        raise Http404("This job has no file to download.")
    path = Path(job.output_file)
    if not path.is_file():
        raise Http404("The exported file is gone; export again.")
    response = FileResponse(
        path.open("rb"),
        as_attachment=True,
        filename=path.name,
        content_type=job.report.get("content_type", "application/octet-stream"),
    )
    # a file with imported text, should a browser show it here: no script, its own inline style only
    response["Content-Security-Policy"] = "sandbox; default-src 'none'; style-src 'unsafe-inline'"
    return response


@require_GET
def corpus_job_report(request: SignedInRequest, project_pk: int, job_pk: int) -> HttpResponse:
    """The full report of an import (every problem, repair and skip) as JSON."""
    project = access.project_for_lead(request.user, project_pk)
    job = _job(request, project, job_pk)
    response = JsonResponse(job.report, json_dumps_params={"indent": 1, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="import-{job.pk}-report.json"'
    return response


@require_GET
def corpus_report_print(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """The latest agreement report as a printable page."""
    project = access.project_for_lead(request.user, project_pk)
    try:
        return HttpResponse(report_html(project, standalone=False))
    except NoSnapshot as exc:
        return render(request, "corpus/no_report.html", {"project": project, "message": str(exc)}, status=404)


@require_http_methods(["GET", "POST"])
def corpus_import(request: SignedInRequest) -> HttpResponse:
    """Admins: import files into a new project (created by the import)."""
    access.require_admin(request.user)
    form = f.NewProjectImportForm(request.POST or None, request.FILES or None)
    started: CorpusJob | None = None
    if request.method == "POST" and form.is_valid():
        started = _started(
            form,
            lambda: jobs.start_import(
                request.user,
                form.cleaned_data["format"],
                form.cleaned_data["project_name"],
                form.uploads(),
                annotator=form.cleaned_data["annotator"] or None,
                dry_run=form.cleaned_data["dry_run"],
                skip_invalid=form.cleaned_data["skip_invalid"],
                new_project=form.project_fields(),
            ),
        )
    if started is not None:
        if started.project_id and started.status == CorpusJob.Status.SUCCEEDED:
            return redirect("annotator:corpus-jobs", project_pk=started.project_id)
        return redirect("annotator:corpus-import")
    context = _jobs_context(None, request.user)
    if request.htmx and request.method == "GET":
        return render(request, "corpus/corpus_import.html#jobs", context)
    return render(
        request, "corpus/corpus_import.html", {"form": form, **context}, status=422 if form.errors else 200
    )


def _int(text: str) -> int:
    """A number from a form field; 404 for anything else (it names an object that cannot exist)."""
    if not text.isdigit() or len(text) > 18:
        raise Http404("No such object.")
    return int(text)


class TrainForm(forms.Form):
    symmetrize = forms.ChoiceField(
        choices=[(s, s) for s in SYMMETRIZATIONS],
        initial="per-kind",
        help_text=(
            "per-kind: the posterior aligner, each kind of link decided on its own evidence, with a "
            "confidence (deterministic); intersection: eflomal, fewer, surer links (Cohn et al.); "
            "grow-diag-final: eflomal, more links."
        ),
    )


class ThresholdForm(forms.Form):
    suggestion_threshold = forms.FloatField(
        min_value=0.0,
        max_value=1.0,
        label="Show strongly from confidence",
        help_text="Suggested links at least this confident are drawn strongly in the editor, the others faintly.",
    )


def aligner_context(
    project: Project, form: TrainForm | None = None, threshold_form: ThresholdForm | None = None
) -> dict[str, object]:
    runs = list(AlignerRun.objects.filter(project=project).select_related("created_by")[:RUNS_SHOWN])
    running = any(r.status in (AlignerRun.Status.QUEUED, AlignerRun.Status.RUNNING) for r in runs)
    rows = [{"run": r, "percent": round(100 * r.progress / r.total) if r.total else 0} for r in runs]
    trees = tree_parsing.tree_progress(project.pk)
    parsing = bool(trees and trees.get("status") in ("queued", "running"))
    return {
        "project": project,
        "runs": rows,
        "trees": trees,
        "parser_model": tree_parsing.model_for(project.language, "spacy"),
        "no_model": ""
        if tree_parsing.has_model(project)
        else tree_parsing.no_model_message(project.language),
        "wrong_trees": tree_parsing.wrong_language(project),
        "aligner_polling": running or parsing,
        "train_form": form or TrainForm(),
        "threshold_form": threshold_form
        or ThresholdForm(initial={"suggestion_threshold": project.suggestion_threshold}),
        "baseline": machine_alignments.baseline_summary(project),
    }


@require_http_methods(["GET", "POST"])
def corpus_aligner(request: SignedInRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    if request.method == "POST" and "suggestion_threshold" in request.POST:
        threshold_form = ThresholdForm(request.POST)
        if threshold_form.is_valid():
            training.set_suggestion_threshold(project, threshold_form.cleaned_data["suggestion_threshold"])
            if not request.htmx:
                return redirect("annotator:corpus-jobs", project_pk=project.pk)
        status = 200 if threshold_form.is_valid() else 422
        return render(
            request, "corpus/_aligner.html", aligner_context(project, None, threshold_form), status=status
        )
    if request.method == "POST" and "cancel_run" in request.POST:
        run = AlignerRun.objects.filter(project=project, pk=_int(request.POST["cancel_run"])).first()
        if run is None:
            raise Http404("No such aligner run.")
        training.cancel_training(run)
        if not request.htmx:
            return redirect("annotator:corpus-jobs", project_pk=project.pk)
        return render(request, "corpus/_aligner.html", aligner_context(project))
    form = TrainForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                training.start_training(project, request.user, symmetrize=form.cleaned_data["symmetrize"])
            except training.TrainingError as exc:
                form.add_error(None, str(exc))
                status = 422
            else:
                form = TrainForm()
        else:
            status = 422
        if not request.htmx and status == 200:
            return redirect("annotator:corpus-jobs", project_pk=project.pk)
    return render(request, "corpus/_aligner.html", aligner_context(project, form), status=status)


class SystemForm(OwnIds, forms.Form):
    ids = "system"
    name = forms.CharField(
        max_length=60, help_text="A new name registers the system; an existing one adds to it."
    )
    format = forms.ChoiceField(choices=[(f, f) for f in systems.FORMATS], initial="pharaoh")
    file = forms.FileField()


def systems_context(project: Project, form: SystemForm | None = None, **extra: object) -> dict[str, object]:
    rows = AlignmentSystem.objects.filter(project=project).annotate(n_pairs=Count("alignments"))
    return {"project": project, "systems": rows, "system_form": form or SystemForm(), **extra}


@require_http_methods(["GET", "POST"])
def corpus_systems(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Register a named alignment system and import its alignments (Pharaoh or native JSON)."""
    project = access.project_for_lead(request.user, project_pk)
    form = SystemForm(request.POST or None, request.FILES or None)
    status, message = 200, ""
    if request.method == "POST":
        if form.is_valid():
            try:
                n = systems.import_for(
                    project,
                    form.cleaned_data["name"],
                    form.cleaned_data["file"].name,
                    form.cleaned_data["file"].read(),
                    form.cleaned_data["format"],
                    user=request.user,
                )
            except systems.SystemImportError as exc:
                for problem in exc.problems[:20]:
                    form.add_error("file", problem)
                status = 422
            else:
                message = f"Imported the alignments of {n} pairs for {form.cleaned_data['name']}."
                form = SystemForm()
        else:
            status = 422
    context = systems_context(project, form, message=message)
    return render(request, "corpus/_systems.html", context, status=status)


@require_http_methods(["POST"])
def corpus_trees(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Start automatic parsing of the members without an imported tree (a Celery task); with `cancel`,
    stop the one queued or running."""
    project = access.project_for_lead(request.user, project_pk)
    if "cancel" in request.POST:
        tree_parsing.cancel_parsing(project)
        if not request.htmx:
            return redirect("annotator:corpus-jobs", project_pk=project.pk)
        return render(request, "corpus/_aligner.html", aligner_context(project))
    try:
        tree_parsing.start_parsing(project, request.user)
    except tree_parsing.ParsingError as exc:
        context = aligner_context(project) | {"trees_error": str(exc)}
        return render(request, "corpus/_aligner.html", context, status=422)
    if not request.htmx:
        return redirect("annotator:corpus-jobs", project_pk=project.pk)
    return render(request, "corpus/_aligner.html", aligner_context(project))


@require_http_methods(["POST"])
def corpus_trees_remove(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Remove every automatic tree of the project (imported and phrase-aligned trees stay)."""
    project = access.project_for_lead(request.user, project_pk)
    result = tree_parsing.remove_automatic_trees(project)
    said = f"Removed the automatic trees of {result['removed']} pairs."
    if result["kept_aligned"]:
        said += f" {result['kept_aligned']} pairs with phrase alignments keep theirs."
    if not request.htmx:
        messages.success(request, said)
        return redirect("annotator:corpus-jobs", project_pk=project.pk)
    return render(request, "corpus/_aligner.html", aligner_context(project) | {"trees_message": said})


@require_http_methods(["POST"])
def corpus_trees_redo(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Drop the trees a model of another language made and parse them again with the project's own."""
    project = access.project_for_lead(request.user, project_pk)
    try:
        said = tree_parsing.redo_wrong_language(project, request.user)
    except tree_parsing.ParsingError as exc:
        said = str(exc)
    messages.info(request, said)
    if request.POST.get("back") == "project":
        return redirect("annotator:project-detail", project_pk=project.pk)
    return redirect("annotator:corpus-jobs", project_pk=project.pk)


# ---- tokens --------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def pair_tokens(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    initial = {"tokens1": " ".join(pair.tokens1), "tokens2": " ".join(pair.tokens2)}
    form = f.TokensForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            tokens.correct_tokens(
                pair,
                form.cleaned_data["tokens1"].split(),
                form.cleaned_data["tokens2"].split(),
                drop_imported=form.cleaned_data["drop_imported"],
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, f"Tokens of pair {pair.source_id} saved. {tokens.FOLLOW}")
            return redirect("annotator:pair-tokens", project_pk=pair.project_id, pair_pk=pair.pk)
    context = {
        "project": pair.project,
        "pair": pair,
        "form": form,
        "may_correct": tokens.may_correct(pair),
        "imported": tokens.imported_derivations(pair),
        "why": tokens.WHY,
        "follow": tokens.FOLLOW,
        "n_annotations": tokens.annotation_count(pair),
    }
    return render(request, "corpus/pair_tokens.html", context, status=422 if form.errors else 200)


@require_POST
def pair_trees_remove(request: SignedInRequest, project_pk: int, pair_pk: int) -> HttpResponse:
    """Remove one pair's automatic trees (imported trees and trees under phrase alignments stay)."""
    pair = access.pair_for_lead(request.user, project_pk, pair_pk)
    if tokens.remove_automatic_trees(pair):
        messages.success(request, f"Automatic trees of pair {pair.source_id} removed.")
    else:
        messages.info(request, f"Pair {pair.source_id} keeps its trees: they are imported or phrase-aligned.")
    return redirect("annotator:pair-tokens", project_pk=pair.project_id, pair_pk=pair.pk)
