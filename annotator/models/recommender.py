"""The phenomena recommender of a project: its settings and its versioned training runs.

A run stores the trained model (`annotator.core.phenomena_recommender`, joblib bytes) with the number
of annotated pairs it learnt from; its suggestions are nobody's annotations until an annotator accepts
one, which goes through the same service as a phenomenon drawn by hand.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models

from annotator.models.corpus import Project


class RecommenderSettings(models.Model):
    """Which project's phenomena train a project's recommender, and when it retrains by itself."""

    project = models.OneToOneField(Project, related_name="recommender_settings", on_delete=models.CASCADE)
    training_project = models.ForeignKey(
        Project,
        null=True,
        blank=True,
        related_name="+",
        on_delete=models.SET_NULL,
        help_text="Whose phenomena it learns from; empty = the project itself.",
    )
    retrain_every = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Retrain after this many newly annotated pairs of the training project; empty = only on request.",
    )

    def __str__(self) -> str:
        return f"recommender settings of {self.project}"

    @property
    def source(self) -> Project:
        return self.training_project or self.project


class RecommenderRun(models.Model):
    """One training of a project's recommender; `version` numbers the runs of a project."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    project = models.ForeignKey(Project, related_name="recommender_runs", on_delete=models.CASCADE)
    version = models.PositiveIntegerField()
    training_project = models.ForeignKey(
        Project, null=True, blank=True, related_name="+", on_delete=models.SET_NULL
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    stage = models.CharField(max_length=40, blank=True)
    progress = models.PositiveIntegerField(default=0, help_text="Per cent.")
    annotated_pairs = models.PositiveIntegerField(
        default=0, help_text="Annotated pairs of the training project when the run started."
    )
    model = models.BinaryField(null=True, blank=True, editable=False)
    report = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="recommender_run_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.project.name} recommender v{self.version} ({self.status})"
