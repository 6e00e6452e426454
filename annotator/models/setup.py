"""A project's set-up beyond its own row: published guideline versions and invitation links."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.corpus import Membership, Project


class GuidelinesVersion(models.Model):
    """One published version of a project's guidelines (Markdown); the newest is the one in force."""

    project = models.ForeignKey(Project, related_name="guidelines_versions", on_delete=models.CASCADE)
    number = models.PositiveIntegerField()
    text = models.TextField()
    note = models.CharField(max_length=200, blank=True, help_text="What changed, shown to annotators.")
    published_at = models.DateTimeField(auto_now_add=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["project", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["project", "number"], name="guidelines_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.project} guidelines v{self.number}"


class Invitation(models.Model):
    """A one-time link that makes whoever opens it (signing up or logged in) a member in `role`."""

    project = models.ForeignKey(Project, related_name="invitations", on_delete=models.CASCADE)
    role = models.CharField(max_length=16, choices=Membership.Role.choices)
    token = models.CharField(max_length=64, unique=True)
    note = models.CharField(max_length=200, blank=True, help_text="Who the link is for (shown to leads).")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked = models.BooleanField(default=False)

    class Meta:
        ordering = ["project", "-created_at"]

    def __str__(self) -> str:
        return f"{self.project} invitation ({self.role})"
