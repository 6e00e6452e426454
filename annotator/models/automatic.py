"""Automatic pre-annotation: runs of the project's statistical aligner, and registered systems whose
alignments are scored against the annotators (nobody's annotations: they never enter the annotators'
tables)."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models

from annotator.models.corpus import Pair, Project


class AlignerRun(models.Model):
    """One training + alignment of a project's pairs; `version` numbers the runs of a project."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    project = models.ForeignKey(Project, related_name="aligner_runs", on_delete=models.CASCADE)
    version = models.PositiveIntegerField()
    settings = models.JSONField(default=dict, help_text="Backend, symmetrisation, identity lexicon/fill.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    stage = models.CharField(max_length=40, blank=True)
    progress = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    report = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="aligner_run_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.project.name} aligner v{self.version} ({self.status})"

    @property
    def source(self) -> str:
        """The `Pair.initial_alignment_source` this run writes."""
        return f"{self.settings.get('backend', 'eflomal')}/{self.settings.get('symmetrize', 'intersection')}"


class AlignmentSystem(models.Model):
    """A named automatic aligner whose output a lead imported, to be scored against people and gold."""

    project = models.ForeignKey(Project, related_name="systems", on_delete=models.CASCADE)
    name = models.CharField(max_length=60)
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "name"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="system_name_unique")]

    def __str__(self) -> str:
        return f"{self.project.name}: system {self.name}"


class SystemAlignment(models.Model):
    """A system's alignment of one pair: word links (sure / possible) and phrase alignments
    `[{"s1": [...], "s2": [...], "label": "sure"|"possible"}]` as token spans."""

    system = models.ForeignKey(AlignmentSystem, related_name="alignments", on_delete=models.CASCADE)
    pair = models.ForeignKey(Pair, related_name="+", on_delete=models.CASCADE)
    sure = models.JSONField(default=list, blank=True)
    possible = models.JSONField(default=list, blank=True)
    phrases = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["system", "pair"], name="system_alignment_unique")]
