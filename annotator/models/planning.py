from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.corpus import Pair, Project


class AssignmentPlan(models.Model):
    """One previewed assignment plan, computed once off the request and kept until applied or replaced.

    `params` are the planner's choices (selection, n, seed, filter, annotators, per pair, k, phase,
    round); `params_key` their fingerprint, so the same choices find the same plan. `source` is the
    project's pairs and annotators the plan was computed from: Apply refuses a plan whose source no
    longer matches. The per-annotator loads, the overlap of every two annotators and the totals are
    stored here; the planned (annotator, pair) rows are `PlannedAssignment` rows, paged in SQL.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Computing"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    project = models.ForeignKey(Project, related_name="assignment_plans", on_delete=models.CASCADE)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, related_name="+", on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    params = models.JSONField(help_text="The planner's choices, seed included.")
    params_key = models.CharField(max_length=64, help_text="SHA-256 of the choices (canonical JSON).")
    source = models.CharField(max_length=200, help_text="The pairs and annotators it was computed from.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    n_pairs = models.PositiveIntegerField(default=0)
    n_assignments = models.PositiveIntegerField(default=0)
    n_new = models.PositiveIntegerField(default=0)
    loads = models.JSONField(default=list, help_text="Per annotator: id, username, existing, new, done.")
    overlap = models.JSONField(default=list, help_text="[a, b, pairs shared] for every two annotators.")
    first_pairs = models.JSONField(default=list, help_text="Source ids of the first chosen pairs.")
    applied_at = models.DateTimeField(null=True, blank=True)
    created = models.PositiveIntegerField(null=True, blank=True, help_text="Assignments Apply wrote.")

    class Meta:
        indexes = [models.Index(fields=["project", "params_key"], name="assignment_plan_key")]

    @property
    def n_existing(self) -> int:
        return self.n_assignments - self.n_new

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.READY, self.Status.FAILED)


class PlannedAssignment(models.Model):
    """One (annotator, pair) of a stored plan, at its place in the plan's queue order."""

    plan = models.ForeignKey(AssignmentPlan, related_name="rows", on_delete=models.CASCADE)
    position = models.PositiveIntegerField()
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    pair = models.ForeignKey(Pair, related_name="+", on_delete=models.CASCADE)
    is_new = models.BooleanField(help_text="Not assigned yet when the plan was computed.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["plan", "position"], name="planned_assignment_order")]
