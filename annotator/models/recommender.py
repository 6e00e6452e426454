"""The phenomena recommender of a project: its settings and its versioned training runs.

A run stores the trained model (`annotator.annotation.phenomena_recommender`, joblib bytes) with the number
of annotated pairs it learnt from; its suggestions are nobody's annotations until an annotator accepts
one, which goes through the same service as a phenomenon drawn by hand. Each accept or reject is a
`SuggestionDecision` of that annotator on that pair: a rejected suggestion is not offered to them
again, and the decisions give the lead the acceptance and rejection rates per type.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models

from annotator.models.annotations import Phenomenon
from annotator.models.corpus import Pair, ParaphraseType, Project


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


class SuggestionDecision(models.Model):
    """An annotator's answer to one of the recommender's suggestions on a pair: accepted (it became
    their phenomenon, through `services.add_phenomenon`), corrected (accepted with the scopes they
    changed) or rejected (not offered to them again)."""

    class Decision(models.TextChoices):
        ACCEPTED = "accepted", "Accepted"
        CORRECTED = "corrected", "Accepted with other scopes"
        REJECTED = "rejected", "Rejected"

    pair = models.ForeignKey(Pair, related_name="suggestion_decisions", on_delete=models.CASCADE)
    annotator = models.ForeignKey(django_settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    ptype = models.ForeignKey(ParaphraseType, related_name="+", on_delete=models.CASCADE)
    scope1 = models.JSONField(default=list, help_text="Sorted token indices in member 1, as suggested.")
    scope2 = models.JSONField(default=list)
    decision = models.CharField(max_length=10, choices=Decision.choices)
    source = models.CharField(max_length=8, blank=True, help_text="rule or model")
    score = models.FloatField(null=True, blank=True, help_text="The suggestion's confidence.")
    run = models.ForeignKey(
        RecommenderRun,
        null=True,
        blank=True,
        related_name="decisions",
        on_delete=models.SET_NULL,
        help_text="The recommender version that suggested it.",
    )
    phenomenon = models.ForeignKey(
        Phenomenon,
        null=True,
        blank=True,
        related_name="+",
        on_delete=models.SET_NULL,
        help_text="The phenomenon accepting it created.",
    )
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pair", "annotator", "ptype", "scope1", "scope2"], name="suggestion_decision_unique"
            )
        ]
        indexes = [models.Index(fields=["pair", "annotator"])]

    def __str__(self) -> str:
        return f"{self.annotator} {self.decision} {self.ptype} on {self.pair}"
