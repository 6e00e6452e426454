"""Tagsets with their paraphrase types, projects with members, and sentence pairs."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

#: A project's default: automatic links at least this confident are shown strongly.
DEFAULT_SUGGESTION_THRESHOLD = 0.8


class Tagset(models.Model):
    """A paraphrase typology: a hierarchy class → subclass → type."""

    name = models.CharField(max_length=120, unique=True)
    description = models.TextField(blank=True)
    builtin = models.BooleanField(default=False, help_text="Loaded by a data migration; not editable.")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    cloned_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="clones"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ParaphraseType(models.Model):
    """One type of a tagset with the flags that decide how phenomena of it are annotated."""

    tagset = models.ForeignKey(Tagset, related_name="types", on_delete=models.CASCADE)
    code = models.CharField(max_length=40, help_text="External id, e.g. the ETPC type_id.")
    name = models.CharField(max_length=120)
    type_class = models.CharField("class", max_length=120)
    subclass = models.CharField(max_length=120, blank=True)
    projection_required = models.BooleanField(default=False)
    keys_allowed = models.BooleanField(default=False)

    class ScopeSides(models.TextChoices):
        BOTH = "both", "Scope in both members"
        ONE = "one", "Scope in exactly one member (addition/deletion)"
        ANY = "any", "Scope in one or both members"

    scope_sides = models.CharField(max_length=4, choices=ScopeSides.choices, default=ScopeSides.BOTH)
    sense_preserving = models.BooleanField(null=True, blank=True)
    colour = models.CharField(max_length=7, default="#4e79a7")
    shortcut = models.CharField(max_length=1, blank=True)
    position = models.PositiveIntegerField(default=0)
    description = models.TextField(
        blank=True, help_text="The type's definition, shown on hover and in the guidelines."
    )
    examples = models.TextField(blank=True, help_text="Examples, one per line.")

    class Meta:
        ordering = ["tagset", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tagset", "code"], name="type_code_unique_in_tagset"),
            models.UniqueConstraint(fields=["tagset", "name"], name="type_name_unique_in_tagset"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def one_sided(self) -> bool:
        """The metrics library's `one_sided` flag (spec §1): scope lies in only one member."""
        return self.scope_sides == self.ScopeSides.ONE


class Project(models.Model):
    class Phase(models.TextChoices):
        TRAINING = "training", "Training"
        AGREEMENT = "agreement", "Agreement"
        FINAL = "final", "Final"

    class Language(models.TextChoices):
        ENGLISH = "en", "English"
        SPANISH = "es", "Spanish"
        CATALAN = "ca", "Catalan"

    class PhenomenaFor(models.TextChoices):
        PARAPHRASES = "paraphrases", "Only pairs labelled paraphrase (Vila et al.)"
        ALL = "all", "Every pair (ETPC)"

    name = models.CharField(max_length=120, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Markdown-like text shown to annotators.")
    tagset = models.ForeignKey(Tagset, null=True, blank=True, on_delete=models.PROTECT)
    layer_pair_label = models.BooleanField("pair label", default=True)
    layer_phenomena = models.BooleanField("phenomena", default=True)
    layer_word_alignment = models.BooleanField("word alignment", default=True)
    layer_phrase_alignment = models.BooleanField("phrase alignment", default=False)
    layer_evaluation = models.BooleanField("evaluation", default=False)
    phenomena_for = models.CharField(max_length=16, choices=PhenomenaFor.choices, default=PhenomenaFor.ALL)
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.TRAINING)
    language = models.CharField(
        max_length=8, choices=Language.choices, default=Language.ENGLISH, help_text="Decides tokenization."
    )
    reannotation_rules = models.JSONField(
        default=dict, blank=True, help_text="Defaults of the re-annotation queue: rule, threshold, fraction."
    )
    suggestion_threshold = models.FloatField(
        default=DEFAULT_SUGGESTION_THRESHOLD,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Suggested links at least this confident are shown strongly, the others faintly.",
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="projects")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def layers(self) -> list[str]:
        names = ["pair_label", "phenomena", "word_alignment", "phrase_alignment", "evaluation"]
        return [n for n in names if getattr(self, f"layer_{n}")]

    @property
    def layer_names(self) -> list[str]:
        """The layers as people read them ("Pair label", "Word alignment", …)."""
        return [
            str(getattr(self._meta.get_field(f"layer_{n}"), "verbose_name", n)).capitalize()
            for n in self.layers
        ]


class Membership(models.Model):
    class Role(models.TextChoices):
        LEAD = "lead", "Project lead"
        ANNOTATOR = "annotator", "Annotator"
        RATER = "rater", "Rater"

    project = models.ForeignKey(Project, related_name="memberships", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="memberships", on_delete=models.CASCADE)
    role = models.CharField(max_length=16, choices=Role.choices)
    guidelines_seen = models.PositiveIntegerField(
        default=0, help_text="The guidelines version the member last acknowledged."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user", "role"], name="membership_unique")]

    def __str__(self) -> str:
        return f"{self.user} — {self.role} of {self.project}"


class Pair(models.Model):
    """A sentence pair: two members with raw text, tokens (0-based indices) and optional parse trees."""

    project = models.ForeignKey(Project, related_name="pairs", on_delete=models.CASCADE)
    source_id = models.CharField(max_length=120, help_text="Id in the source corpus.")
    position = models.PositiveIntegerField(default=0)
    text1 = models.TextField()
    text2 = models.TextField()
    tokens1 = models.JSONField(default=list)
    tokens2 = models.JSONField(default=list)
    corpus_labels = models.JSONField(default=dict, blank=True)
    tree1 = models.TextField(blank=True, help_text="Penn Treebank bracketed parse of member 1.")
    tree2 = models.TextField(blank=True)
    tree_source = models.CharField(
        max_length=40, blank=True, help_text="Parser that made the trees; empty for imported ones."
    )
    nodes1 = models.JSONField(default=list, blank=True, help_text="Derived: [{label, start, end}] per node.")
    nodes2 = models.JSONField(default=list, blank=True)
    initial_alignment = models.JSONField(null=True, blank=True, help_text="Automatic alignment [[i, j], …].")
    initial_alignment_confidence = models.JSONField(
        null=True, blank=True, help_text="The aligner's confidence of each initial link, in their order."
    )
    initial_alignment_source = models.CharField(max_length=60, blank=True)
    initial_alignment_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The project's aligner run (AlignerRun.version) that wrote it."
    )

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["project", "source_id"], name="pair_source_id_unique")]
        indexes = [
            # the project's newest pair in one index lookup (`explorer_rows.source_mark`)
            models.Index(fields=["project", "id"], name="pair_project_newest"),
            # a page of the pair list read through the index, in the list's order (`ordering`)
            models.Index(fields=["project", "position", "id"], name="pair_project_position"),
        ]

    def __str__(self) -> str:
        return f"{self.project.name} #{self.source_id}"
