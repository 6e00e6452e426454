from __future__ import annotations

from django.db import models

from annotator.models.corpus import Project
from annotator.models.fields import JSONTextField


class AgreementSnapshot(models.Model):
    """The metrics report computed for a project at one moment, keyed by its inputs' fingerprint."""

    project = models.ForeignKey(Project, related_name="snapshots", on_delete=models.CASCADE)
    computed_at = models.DateTimeField(auto_now_add=True, db_index=True)
    scope = models.CharField(max_length=40, default="project")
    fingerprint = models.CharField(max_length=64)
    results = models.JSONField(default=dict)
    duration_ms = models.PositiveIntegerField(default=0)
    pinned = models.BooleanField(
        default=False, help_text="Kept for good: retention (annotator.agreement.retention) never deletes it."
    )
    pin_note = models.CharField(
        max_length=200, blank=True, help_text='Why it is kept, e.g. "reported in the paper".'
    )

    class Meta:
        ordering = ["-computed_at", "-id"]
        get_latest_by = "computed_at"
        indexes = [models.Index(fields=["project", "scope", "-computed_at"])]

    def __str__(self) -> str:
        return f"{self.project} @ {self.computed_at:%Y-%m-%d %H:%M:%S}"


class AgreementHeadline(models.Model):
    """The headline values of one agreement computation: a small row kept for every computation.

    The trend chart reads only these rows, so full reports (`AgreementSnapshot`) can be thinned out by
    the retention policy without losing the history of the headline measures.
    """

    project = models.ForeignKey(Project, related_name="agreement_headlines", on_delete=models.CASCADE)
    computed_at = models.DateTimeField()
    snapshot = models.ForeignKey(
        AgreementSnapshot, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    fingerprint = models.CharField(max_length=64)
    values = models.JSONField(default=dict, help_text="Headline measure key → value (null when undefined).")
    pending = models.BooleanField(default=False, help_text="Provisional: κ_C still being computed.")
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-computed_at", "-id"]
        indexes = [models.Index(fields=["project", "-computed_at"])]

    def __str__(self) -> str:
        return f"{self.project} headline @ {self.computed_at:%Y-%m-%d %H:%M:%S}"


class AgreementState(models.Model):
    """Bookkeeping of the recompute pipeline for one project (what changed, what is queued, what ran)."""

    project = models.OneToOneField(Project, related_name="agreement_state", on_delete=models.CASCADE)
    changed_at = models.DateTimeField(null=True, blank=True, help_text="Last change to annotations.")
    queued_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Dirty since: the change that sent the recompute task still to start (None: none waits).",
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    enqueue_failed = models.BooleanField(
        default=False, help_text="The broker was unreachable at last change."
    )
    intervals_due_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the confidence intervals' task of the figures is due (annotator.agreement.intervals).",
    )

    @property
    def is_behind(self) -> bool:
        """Whether the latest snapshot may miss a change: a change waits for its task (`queued_at`), a
        computation is running, or the change came after the latest computation started (it read the
        annotations at its start, so a change made while it ran is not in its snapshot even though it
        finished later; a computation starts after every change it reads, `scheduling.take_queued`)."""
        if self.queued_at is not None:  # a change waits for its task to start
            return True
        if self.changed_at is None:
            return False
        if self.started_at is None or self.finished_at is None or self.started_at > self.finished_at:
            return True
        return self.changed_at >= self.started_at


class AgreementSum(models.Model):
    """One running total of an agreement measure that is a sum over pairs, kept up to date by the save
    that changes it (`annotator.agreement.sums`): a save adds the difference its pair makes, in the
    save's transaction, so the total always equals the sum over the project's pairs.

    `measure` names the statistic, `annotators` the annotator or annotator pair it belongs to (user ids,
    "12" or "12|15" with the smaller id first; "" for the whole project), `key` the cell (e.g. the two
    labels "paraphrase|non_paraphrase" of a Cohen contingency cell).
    """

    project = models.ForeignKey(Project, related_name="+", on_delete=models.CASCADE)
    measure = models.CharField(max_length=40)
    annotators = models.CharField(max_length=40, blank=True, default="")
    key = models.CharField(max_length=200, blank=True, default="")
    value = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "measure", "annotators", "key"], name="agreement_sum_cell"
            )
        ]

    def __str__(self) -> str:
        return f"{self.project_id} {self.measure} {self.annotators} {self.key} = {self.value}"


class AgreementPairPart(models.Model):
    """What one pair adds to the project's agreement sums that are computed from its word alignments
    (`annotator.agreement.pair_parts`): the `AgreementSum` cells it contributes, as
    `[[measure, annotators, key, value], …]`. A save of the pair reads this row for what the pair added
    before, so that it moves the totals by the difference without recomputing the old state."""

    project = models.ForeignKey(Project, related_name="+", on_delete=models.CASCADE)
    pair = models.OneToOneField("annotator.Pair", related_name="agreement_part", on_delete=models.CASCADE)
    cells = models.JSONField(default=list)

    class Meta:
        indexes = [models.Index(fields=["project"])]

    def __str__(self) -> str:
        return f"agreement part of pair {self.pair_id}"


class AgreementPhenomenaPart(models.Model):
    """What one pair adds to the project's agreement sums that are computed from its phenomena
    (`annotator.agreement.phenomena_parts`, `metrics.phenomena_sums`): the `AgreementSum` cells it
    contributes, as `[[measure, annotators, key, value], …]`. A phenomenon save reads this row for what
    the pair added before and moves the totals by the difference."""

    project = models.ForeignKey(Project, related_name="+", on_delete=models.CASCADE)
    pair = models.OneToOneField(
        "annotator.Pair", related_name="agreement_phenomena_part", on_delete=models.CASCADE
    )
    cells = models.JSONField(default=list)

    class Meta:
        indexes = [models.Index(fields=["project"])]

    def __str__(self) -> str:
        return f"phenomena agreement part of pair {self.pair_id}"


class AgreementPhrasePart(models.Model):
    """What one pair adds to the project's agreement sums that are computed from its phrase alignments
    (`annotator.agreement.phrase_parts`, `metrics.spade_sums`): the `AgreementSum` cells it contributes,
    as `[[measure, annotators, key, value], …]`. A phrase alignment save reads this row for what the
    pair added before and moves the totals by the difference."""

    project = models.ForeignKey(Project, related_name="+", on_delete=models.CASCADE)
    pair = models.OneToOneField(
        "annotator.Pair", related_name="agreement_phrase_part", on_delete=models.CASCADE
    )
    cells = models.JSONField(default=list)

    class Meta:
        indexes = [models.Index(fields=["project"])]

    def __str__(self) -> str:
        return f"phrase agreement part of pair {self.pair_id}"


class AgreementSection(models.Model):
    """One section of a project's current agreement report, stored on its own (`measures`) with the
    fingerprint of its inputs; also the summary row and the confidence intervals' row
    (`annotator.agreement.current`)."""

    project = models.ForeignKey(Project, related_name="agreement_sections", on_delete=models.CASCADE)
    name = models.CharField(max_length=40)
    fingerprint = models.CharField(max_length=80)
    measures = JSONTextField(default=dict)  # read and written whole: kept as text (see the field)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="agreement_section_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.project_id} {self.name}"
