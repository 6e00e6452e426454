"""Per-annotator annotations of a pair, and the history that keeps every earlier state.

`PairLabel` is the annotator's sheet for a pair: the pair-level decision, the per-pair comment and the
sheet `version`, which every change to that annotator's work on the pair increments. Saves carry the
version they were based on (optimistic concurrency, see `annotator.annotation.services`). Rows marked
`is_gold` form the adjudicated gold layer built by a lead; agreement never mixes them with annotators'.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.corpus import Pair, ParaphraseType, Project


class AnnotationBase(models.Model):
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    is_gold = models.BooleanField(default=False)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class PairLabel(AnnotationBase):
    class Label(models.TextChoices):
        PARAPHRASE = "paraphrase", "Paraphrase"
        NON_PARAPHRASE = "non_paraphrase", "Non-paraphrase"

    label = models.CharField(max_length=16, choices=Label.choices, blank=True)
    comment = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pair", "annotator", "is_gold"], name="pairlabel_unique")
        ]
        indexes = [models.Index(fields=["annotator", "pair"])]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.pair_id}: {self.label or '—'}"


class Phenomenon(AnnotationBase):
    class Projection(models.TextChoices):
        LOCAL = "local", "Local"
        GLOBAL = "global", "Global"

    ptype = models.ForeignKey(ParaphraseType, on_delete=models.PROTECT, related_name="phenomena")
    scope1 = models.JSONField(default=list, help_text="Sorted token indices in member 1.")
    scope2 = models.JSONField(default=list)
    projection = models.CharField(max_length=8, choices=Projection.choices, blank=True)
    key1 = models.JSONField(default=list, blank=True)
    key2 = models.JSONField(default=list, blank=True)
    sense_preserving = models.BooleanField(null=True, blank=True, help_text="ETPC: per-relation flag.")
    comment = models.TextField(blank=True)

    class Meta:
        ordering = ["pair", "id"]
        indexes = [models.Index(fields=["pair", "annotator"])]

    def __str__(self) -> str:
        return f"{self.ptype} by {self.annotator} on {self.pair_id}"


class AlignmentLink(AnnotationBase):
    """A word-alignment link between token i of member 1 and token j of member 2."""

    i = models.PositiveIntegerField()
    j = models.PositiveIntegerField()
    sure = models.BooleanField(default=True)

    class Meta:
        ordering = ["pair", "i", "j"]
        constraints = [
            models.UniqueConstraint(fields=["pair", "annotator", "is_gold", "i", "j"], name="link_unique")
        ]

    def __str__(self) -> str:
        return f"{self.i}{'-' if self.sure else '?'}{self.j}"


class PhraseAlignment(AnnotationBase):
    """An alignment between a parse-tree node of member 1 and one of member 2 (either may be null)."""

    node1 = models.PositiveIntegerField(
        null=True, blank=True, help_text="Index into pair.nodes1; null = none."
    )
    node2 = models.PositiveIntegerField(null=True, blank=True)
    sure = models.BooleanField(default=True)

    class Meta:
        ordering = ["pair", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["pair", "annotator", "is_gold", "node1", "node2"], name="phrase_alignment_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(node1__isnull=False) | models.Q(node2__isnull=False),
                name="phrase_alignment_not_both_null",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.node1}↔{self.node2}"


class AnnotationHistory(models.Model):
    """Who changed what, when: the state before and after each change of an annotation row."""

    class Action(models.TextChoices):
        CREATE = "create", "Created"
        UPDATE = "update", "Updated"
        DELETE = "delete", "Deleted"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    pair = models.ForeignKey(Pair, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    unit = models.ForeignKey(
        "annotator.EvaluationUnit", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Whose annotation it is.",
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    model = models.CharField(max_length=40)
    object_id = models.PositiveBigIntegerField()
    action = models.CharField(max_length=8, choices=Action.choices)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    batch = models.PositiveIntegerField(
        null=True, blank=True, help_text="Sheet version the change produced; the rows of one save share it."
    )
    reverts = models.PositiveIntegerField(
        null=True, blank=True, help_text="Set on rows written by an undo: the batch they undid."
    )

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "annotation history"
        indexes = [models.Index(fields=["model", "object_id"]), models.Index(fields=["pair", "owner"])]

    def __str__(self) -> str:
        return f"{self.action} {self.model} {self.object_id}"
