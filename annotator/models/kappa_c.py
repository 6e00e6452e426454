"""κ_C's Monte Carlo in parts that the workers compute (`annotator.agreement.kappa_c_chunks`)."""

from __future__ import annotations

from django.db import models

from annotator.models.corpus import Project


class KappaCRun(models.Model):
    """A project's κ_C plan: the κ_C section's input fingerprint, per annotator pair ("a|b") the
    digests of its parts in item order, and how many of its parts are computed (`done`, counted up by
    the part tasks) out of `total` — what the dashboard shows while κ_C is pending."""

    project = models.ForeignKey(Project, related_name="kappa_c_runs", on_delete=models.CASCADE)
    fingerprint = models.CharField(max_length=64, help_text="Fingerprint of the κ_C section's inputs.")
    chunks = models.JSONField(default=dict, help_text='Annotator pair "a|b" → its parts\' digests in order.')
    total = models.PositiveIntegerField(default=0, help_text="Parts in the plan.")
    done = models.PositiveIntegerField(default=0, help_text="Parts of the plan computed so far.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "fingerprint"], name="kappa_c_run_unique")]

    def __str__(self) -> str:
        return f"{self.project} κ_C run {self.fingerprint[:8]}"

    @property
    def digests(self) -> list[str]:
        return [d for key in sorted(self.chunks) for d in self.chunks[key]]


class KappaCChunk(models.Model):
    """One range of an annotator pair's items (`metrics.chance.ChanceChunk`, stored as JSON text) and,
    once computed, its items' means and variances (float64, little-endian). Content-addressed: the
    digest of the spec, so an unchanged part is reused by the next plan."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DONE = "done"

    project = models.ForeignKey(Project, related_name="kappa_c_chunks", on_delete=models.CASCADE)
    digest = models.CharField(max_length=64)
    key = models.CharField(max_length=300, help_text='Annotator pair "a|b".')
    start = models.PositiveIntegerField(help_text="Index of its first item among the pair's items.")
    n_items = models.PositiveIntegerField()
    draws = models.BigIntegerField(help_text="Uniform draws it takes (its share of the work).")
    spec = models.TextField(help_text="metrics.chance.ChanceChunk as JSON text (floats round-trip exactly).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    means = models.BinaryField(null=True, blank=True)
    variances = models.BinaryField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "digest"], name="kappa_c_chunk_unique")]
        indexes = [models.Index(fields=["project", "status"], name="kappa_c_chunk_status")]

    def __str__(self) -> str:
        return f"{self.project} κ_C {self.key} from item {self.start} ({self.status})"
