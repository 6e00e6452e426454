from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.corpus import Pair, Project


class AssignmentStatus(models.TextChoices):
    TODO = "todo", "To do"
    IN_PROGRESS = "in_progress", "In progress"
    POSTPONED = "postponed", "Postponed"
    DONE = "done", "Done"


def working_rank() -> models.Case:
    """An assignment's place in a rater's working order: 0 for open units (to do, in progress), 1 for
    postponed ones, 2 for finished ones (the rating queue's first sort key, and an index's)."""
    status = AssignmentStatus
    return models.Case(
        models.When(status__in=(status.TODO, status.IN_PROGRESS), then=0),
        models.When(status=status.POSTPONED, then=1),
        default=2,
        output_field=models.IntegerField(),
    )


class Assignment(models.Model):
    """A piece of work for one annotator: a pair (annotation) or an evaluation unit (rating)."""

    Status = AssignmentStatus

    class Step(models.TextChoices):
        GRAMMATICALITY = "grammaticality", "Grammaticality"
        MEANING = "meaning", "Meaning"
        FINALIZED = "finalized", "Finalized"

    project = models.ForeignKey(Project, related_name="assignments", on_delete=models.CASCADE)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="assignments", on_delete=models.CASCADE
    )
    pair = models.ForeignKey(
        Pair, null=True, blank=True, related_name="assignments", on_delete=models.CASCADE
    )
    unit = models.ForeignKey(
        "annotator.EvaluationUnit",
        null=True,
        blank=True,
        related_name="assignments",
        on_delete=models.CASCADE,
    )
    phase = models.CharField(max_length=16, choices=Project.Phase.choices, default=Project.Phase.TRAINING)
    round = models.PositiveIntegerField(default=0, help_text="0 = first pass; n = n-th re-annotation round.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.TODO)
    step = models.CharField(
        max_length=16, choices=Step.choices, blank=True, help_text="Evaluation units only."
    )
    queue_position = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    time_spent = models.PositiveIntegerField(default=0, help_text="Seconds.")

    class Meta:
        ordering = ["project", "annotator", "round", "queue_position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(pair__isnull=False, unit__isnull=True)
                    | models.Q(pair__isnull=True, unit__isnull=False)
                ),
                name="assignment_pair_xor_unit",
            ),
            models.UniqueConstraint(
                fields=["annotator", "pair", "round"],
                condition=models.Q(pair__isnull=False),
                name="assignment_pair_unique",
            ),
            models.UniqueConstraint(
                fields=["annotator", "unit", "round"],
                condition=models.Q(unit__isnull=False),
                name="assignment_unit_unique",
            ),
        ]
        indexes = [
            models.Index(fields=["project", "annotator", "status"]),
            # an annotator's queue of pairs in queue order: a page, the next pair and the counts read
            # from the index alone, whatever the queue's length
            models.Index(
                fields=["project", "annotator", "round", "queue_position", "id"],
                include=["status", "pair"],
                condition=models.Q(pair__isnull=False),
                name="assignment_pair_queue",
            ),
            # a page of a rater's queue read through the index in working order, whatever its length
            models.Index(
                models.F("project"),
                models.F("annotator"),
                models.F("round"),
                working_rank(),
                models.F("queue_position"),
                models.F("id"),
                condition=models.Q(unit__isnull=False),
                name="assignment_rating_queue",
            ),
        ]

    def __str__(self) -> str:
        target = f"pair {self.pair_id}" if self.pair_id else f"unit {self.unit_id}"
        return f"{self.annotator} — {target} ({self.status})"


class ReannotationRound(models.Model):
    """One re-annotation draw: the rule, the pairs it flagged, the agreeing pairs mixed in, the order.

    Everything needed to redo the draw is kept (rule, params, seed, fraction, candidates), plus each
    queued pair's agreement before re-annotation so that before and after can be compared.
    """

    class Rule(models.TextChoices):
        LABEL_DISAGREEMENT = "label_disagreement", "Pair-level label disagreement"
        DO_F1_BELOW = "do_f1_below", "Phenomena DO F1 below a threshold"
        SELECTED = "selected", "Selected pairs"

    project = models.ForeignKey(Project, related_name="reannotation_rounds", on_delete=models.CASCADE)
    round = models.PositiveIntegerField(help_text="The Assignment.round the queued work carries.")
    rule = models.CharField(max_length=24, choices=Rule.choices)
    params = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    fraction = models.FloatField(default=0.1)
    flagged = models.JSONField(default=list, help_text="Pair source ids meeting the rule.")
    agreeing = models.JSONField(default=list, help_text="Pair source ids the sample was drawn from.")
    sampled = models.JSONField(default=list, help_text="Agreeing pairs mixed in.")
    order = models.JSONField(default=list, help_text="Queued pair source ids, shuffled.")
    before = models.JSONField(default=dict, blank=True, help_text="Pair source id → agreement before.")
    before_snapshot = models.ForeignKey(
        "annotator.AgreementSnapshot", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    fingerprint = models.CharField(max_length=64, help_text="Of the annotations and the draw's inputs.")
    n_assignments = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "-round"]
        constraints = [
            models.UniqueConstraint(fields=["project", "round"], name="reannotation_round_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.project} re-annotation round {self.round} ({self.rule})"
