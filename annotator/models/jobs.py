from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.corpus import Project


class CorpusJob(models.Model):
    """An import, export or lexicon build run (inline or as a Celery task) with its progress and report."""

    class Kind(models.TextChoices):
        IMPORT = "import", "Import"
        EXPORT = "export", "Export"
        LEXICON = "lexicon", "Lexicon build"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    format = models.CharField(max_length=16)
    project = models.ForeignKey(
        Project, null=True, blank=True, related_name="jobs", on_delete=models.SET_NULL
    )
    project_name = models.CharField(max_length=120, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    options = models.JSONField(default=dict, blank=True)
    input_files = models.JSONField(default=list, blank=True, help_text="Stored paths of uploaded files.")
    output_file = models.CharField(max_length=400, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    claimed_by = models.CharField(
        max_length=120, blank=True, help_text="The run (host, process, token) that claimed the job."
    )
    report = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.format} ({self.status})"
