"""The "Train aligner" panel of a project's import/export page (leads and admins).

`corpus_aligner` serves the panel (`#aligner`, which polls itself while a run is queued or running) and
on POST starts a run of the project's statistical aligner (`aligner_training.start_training`).
"""

from __future__ import annotations

from django import forms
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from .. import access
from ..core.statistical_aligner import SYMMETRIZATIONS
from ..models import AlignerRun, AlignmentSystem, Project
from . import aligner_training as training
from . import systems, tree_parsing

RUNS_SHOWN = 5


class TrainForm(forms.Form):
    symmetrize = forms.ChoiceField(
        choices=[(s, s) for s in SYMMETRIZATIONS],
        initial="intersection",
        help_text="intersection: fewer, surer links (Cohn et al.); grow-diag-final: more links.",
    )


def aligner_context(project: Project, form: TrainForm | None = None) -> dict[str, object]:
    runs = list(AlignerRun.objects.filter(project=project).select_related("created_by")[:RUNS_SHOWN])
    running = any(r.status in (AlignerRun.Status.QUEUED, AlignerRun.Status.RUNNING) for r in runs)
    rows = [{"run": r, "percent": round(100 * r.progress / r.total) if r.total else 0} for r in runs]
    trees = tree_parsing.tree_progress(project.pk)
    parsing = bool(trees and trees.get("status") in ("queued", "running"))
    return {
        "project": project,
        "runs": rows,
        "trees": trees,
        "aligner_polling": running or parsing,
        "train_form": form or TrainForm(),
        "baseline": training.baseline_summary(project),
    }


@require_http_methods(["GET", "POST"])
def corpus_aligner(request: HttpRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
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


class SystemForm(forms.Form):
    name = forms.CharField(
        max_length=60, help_text="A new name registers the system; an existing one adds to it."
    )
    format = forms.ChoiceField(choices=[(f, f) for f in systems.FORMATS], initial="pharaoh")
    file = forms.FileField()


def systems_context(project: Project, form: SystemForm | None = None, **extra: object) -> dict[str, object]:
    rows = AlignmentSystem.objects.filter(project=project).annotate(n_pairs=Count("alignments"))
    return {"project": project, "systems": rows, "system_form": form or SystemForm(), **extra}


@require_http_methods(["GET", "POST"])
def corpus_systems(request: HttpRequest, project_pk: int) -> HttpResponse:
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
def corpus_trees(request: HttpRequest, project_pk: int) -> HttpResponse:
    """Start automatic parsing of the members without an imported tree (a Celery task)."""
    project = access.project_for_lead(request.user, project_pk)
    tree_parsing.start_parsing(project)
    if not request.htmx:
        return redirect("annotator:corpus-jobs", project_pk=project.pk)
    return render(request, "corpus/_aligner.html", aligner_context(project))
