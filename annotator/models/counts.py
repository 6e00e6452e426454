"""Counts kept by the database: a project's size and its assignments' tallies.

Database triggers (migrations 0018 and 0039) keep these rows in step with every insert, update and delete of
pairs, evaluation units and items, and assignments, whatever writes them (the services, bulk SQL
imports, the Django admin, a cascade). Pages read a count in one indexed lookup instead of counting a
project's rows. Django never writes these tables: their foreign keys carry no database constraint and
Django's deletion leaves them alone (DO_NOTHING), because the triggers bring a deleted project's or
user's counts to zero and delete the rows whose counts are zero.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.corpus import Project


class ProjectSize(models.Model):
    """How many pairs, evaluation units and evaluation items a project has (no row: none)."""

    project = models.OneToOneField(
        Project,
        primary_key=True,
        related_name="+",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
    )
    pairs = models.BigIntegerField(default=0)
    units = models.BigIntegerField(default=0)
    items = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"project {self.project_id}: {self.pairs} pairs, {self.units} units, {self.items} items"


class AssignmentCount(models.Model):
    """How many of a project's assignments share an annotator, kind of work (pairs or units), phase,
    round (0: first pass), status and step, and the seconds spent on them (no row: none)."""

    class Kind(models.TextChoices):
        PAIRS = "pairs", "Pairs"
        UNITS = "units", "Evaluation units"

    project = models.ForeignKey(Project, related_name="+", on_delete=models.DO_NOTHING, db_constraint=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="+", on_delete=models.DO_NOTHING, db_constraint=False
    )
    kind = models.CharField(max_length=5, choices=Kind.choices)
    phase = models.CharField(max_length=16)
    round = models.PositiveIntegerField(help_text="0 = first pass; n = n-th re-annotation round.")
    status = models.CharField(max_length=16)
    step = models.CharField(max_length=16)
    n = models.BigIntegerField(default=0)
    seconds = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "annotator", "kind", "phase", "round", "status", "step"],
                name="assignment_count_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id} {self.kind} {self.phase} {self.status}: {self.n}"
