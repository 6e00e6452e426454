"""The lead's "Phenomena suggestions" panel (`#recommender` on the corpus page): which project's
phenomena the recommender learns from, automatic retraining every N newly annotated pairs, "Retrain now",
and the versioned runs with their progress (the panel polls itself while a run is queued or running)."""

from __future__ import annotations

from django import forms
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotator import access
from annotator.annotation import phenomenon_suggestions, recommender
from annotator.core.web_request import SignedInRequest
from annotator.models import Project, RecommenderRun

RUNS_SHOWN = 5


class RecommenderForm(forms.Form):
    training_project = forms.ModelChoiceField(
        queryset=Project.objects.none(),
        required=False,
        empty_label="this project",
        help_text="Whose phenomena it learns from: this project as it grows, or another, e.g. an imported ETPC.",
    )
    retrain_every = forms.IntegerField(
        min_value=1,
        required=False,
        label="Retrain every",
        help_text="newly annotated pairs; empty = only when you click Retrain now.",
    )

    def __init__(self, *args: object, user: object, project: Project, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        field = self.fields["training_project"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = access.led_projects(user).exclude(pk=project.pk).order_by("name")


def recommender_context(project: Project, form: RecommenderForm) -> dict[str, object]:
    runs = list(
        RecommenderRun.objects.filter(project=project).select_related("created_by", "training_project")[
            :RUNS_SHOWN
        ]
    )
    current = recommender.current_run(project)
    return {
        "project": project,
        "recommender_form": form,
        "recommender_runs": runs,
        "recommender_polling": any(r.status in recommender.BUSY for r in runs),
        "recommender_current": current,
        "suggestion_rates": phenomenon_suggestions.rates(project) if current else [],
    }


@require_http_methods(["GET", "POST"])
def project_recommender(request: SignedInRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    found = recommender.settings_of(project)
    initial = {"training_project": found.training_project, "retrain_every": found.retrain_every}
    form = RecommenderForm(request.POST or None, initial=initial, user=request.user, project=project)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                recommender.configure(
                    project,
                    training_project=form.cleaned_data["training_project"],
                    retrain_every=form.cleaned_data["retrain_every"],
                )
                if "train" in request.POST:
                    recommender.start_training(project, request.user)
            except recommender.TrainingError as exc:
                form.add_error(None, str(exc))
                status = 422
        else:
            status = 422
        if not request.htmx and status == 200:
            return redirect("annotator:corpus-jobs", project_pk=project.pk)
    return render(request, "corpus/_recommender.html", recommender_context(project, form), status=status)
