"""Two-step evaluation of paraphrase substitutions (Fujita): units, items, judgements, re-evaluation sets."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models.corpus import Project

G5_LABELS = ["Perfect", "Awkward", "Minor Problem", "Major Problem", "Irredeemable"]
M6_LABELS = [
    "Equivalent",
    "Missing Info.",
    "Additional Info.",
    "Ignorable Change",
    "Significantly Different",
    "Completely Different",
]


class EvaluationUnit(models.Model):
    """A source sentence with a marked phrase and k candidate paraphrased sentences."""

    project = models.ForeignKey(Project, related_name="units", on_delete=models.CASCADE)
    source_id = models.CharField(max_length=120)
    position = models.PositiveIntegerField(default=0)
    source_sentence = models.TextField()
    phrase = models.CharField(max_length=400)
    phrase_start = models.PositiveIntegerField(help_text="Character offset of the phrase in the source.")
    phrase_end = models.PositiveIntegerField()

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["project", "source_id"], name="unit_source_id_unique")]
        # a project's units read a page at a time in their order, whatever their number
        indexes = [models.Index(fields=["project", "position", "id"], name="unit_project_position")]

    def __str__(self) -> str:
        return f"unit {self.source_id}"


class EvaluationItem(models.Model):
    """One candidate: the source sentence with the phrase replaced by a paraphrase."""

    unit = models.ForeignKey(EvaluationUnit, related_name="items", on_delete=models.CASCADE)
    source_id = models.CharField(max_length=120)
    position = models.PositiveIntegerField(default=0)
    paraphrase = models.CharField(max_length=400, help_text="The candidate paraphrase of the phrase.")
    sentence = models.TextField(help_text="The paraphrased sentence.")
    substitution_start = models.PositiveIntegerField(help_text="Character offset of the substitute.")
    substitution_end = models.PositiveIntegerField()
    candidate_source = models.CharField(max_length=120, blank=True, help_text="Lexicon or system.")

    class Meta:
        ordering = ["unit", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["unit", "source_id"], name="item_source_id_unique")]

    def __str__(self) -> str:
        return f"item {self.source_id}"


class Judgement(models.Model):
    class Step(models.TextChoices):
        GRAMMATICALITY = "grammaticality", "Grammaticality"
        MEANING = "meaning", "Meaning"

    class Phase(models.TextChoices):
        INITIAL = "initial", "Initial"
        REEVALUATION = "reevaluation", "Re-evaluation"

    item = models.ForeignKey(EvaluationItem, related_name="judgements", on_delete=models.CASCADE)
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="judgements", on_delete=models.CASCADE)
    step = models.CharField(max_length=16, choices=Step.choices)
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.INITIAL)
    label = models.CharField(max_length=40)
    answers = models.JSONField(
        default=dict, blank=True, help_text="Decision-tree answers that gave the label."
    )
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "rater", "step", "phase"], name="judgement_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.rater} {self.step} {self.item_id}: {self.label}"


class ReevaluationSet(models.Model):
    """A rater's re-evaluation set for one viewpoint (G or M), with the draw's seed so it can be redone."""

    project = models.ForeignKey(Project, related_name="reevaluation_sets", on_delete=models.CASCADE)
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    viewpoint = models.CharField(max_length=1, choices=[("G", "Grammaticality"), ("M", "Meaning")])
    seed = models.BigIntegerField()
    fraction = models.FloatField(default=0.1)
    disagreement = models.JSONField(default=list)
    agreeing = models.JSONField(default=list)
    sampled = models.JSONField(default=list)
    order = models.JSONField(default=list, help_text="Item ids in the order shown to the rater.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "rater", "viewpoint"], name="reevaluation_set_unique")
        ]


class Lexicon(models.Model):
    """A paraphrase lexicon of the project (Fujita's P_Seed, P_Del, …) whose candidates are evaluated."""

    project = models.ForeignKey(Project, related_name="lexicons", on_delete=models.CASCADE)
    name = models.CharField(max_length=120)
    items = models.ManyToManyField(EvaluationItem, through="LexiconItem", related_name="lexicons")
    # The rule of each build that drew units from this lexicon (`lexicons.UnitRule.as_json`); lexicons
    # built before the paper's rule carry {"rule": "every-paraphrase"}.
    builds = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["project", "name"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="lexicon_name_unique")]

    def __str__(self) -> str:
        return self.name


class LexiconItem(models.Model):
    """An item proposed by a lexicon, with the lexicon's score for its paraphrase (None: not scored).

    An item proposed by several lexicons has one row per lexicon (Fujita's Table 4 unions)."""

    lexicon = models.ForeignKey(Lexicon, related_name="entries", on_delete=models.CASCADE)
    item = models.ForeignKey(EvaluationItem, related_name="lexicon_entries", on_delete=models.CASCADE)
    score = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["lexicon", "item"]
        constraints = [models.UniqueConstraint(fields=["lexicon", "item"], name="lexicon_item_unique")]

    def __str__(self) -> str:
        return f"{self.lexicon} → item {self.item_id} ({self.score})"
