"""DRF serializers of the REST API: shapes in and out, never the rules.

Output serializers describe rows. Input serializers check only types and shapes (a list of whole
numbers, a known choice); every annotation rule lives in `annotator.core.validation` and the services,
which the views call with the cleaned values — one place for the rules, shared with the UI.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from annotator import access
from annotator.core import trees, validation
from annotator.corpus.jobs import progress_of
from annotator.models import (
    AgreementSnapshot,
    AlignmentLink,
    Assignment,
    CorpusJob,
    EvaluationItem,
    EvaluationUnit,
    Judgement,
    Membership,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
    Tagset,
)
from annotator.projects.roles import UNKNOWN_ROLE

MAX_INT = 2**31 - 1  # PositiveIntegerField's range on PostgreSQL

BASE_VERSION_HELP = (
    "The sheet version this change is based on (0 for a sheet never saved). A stale version gets "
    "409 with the current version. null skips the check (scripted bulk loads that own the sheet)."
)


def _base_version() -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, allow_null=True, help_text=BASE_VERSION_HELP)


def _indices(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=serializers.IntegerField(min_value=0), **kwargs)


# ---- tagsets and projects -------------------------------------------------------------------------


class ParaphraseTypeSerializer(serializers.ModelSerializer):
    class Meta:
        model = ParaphraseType
        fields = [
            "id",
            "code",
            "name",
            "type_class",
            "subclass",
            "projection_required",
            "keys_allowed",
            "scope_sides",
            "sense_preserving",
            "colour",
            "shortcut",
            "position",
            "description",
        ]


class TagsetSerializer(serializers.ModelSerializer):
    types = ParaphraseTypeSerializer(many=True, read_only=True)

    class Meta:
        model = Tagset
        fields = ["id", "name", "description", "builtin", "types"]


class ProjectSerializer(serializers.ModelSerializer):
    """A project's settings. `my_roles` are the requesting user's roles in it."""

    my_roles = serializers.SerializerMethodField()

    class Meta:
        model = Project
        fields = [
            "id",
            "name",
            "description",
            "guidelines",
            "tagset",
            "layer_pair_label",
            "layer_phenomena",
            "layer_word_alignment",
            "layer_phrase_alignment",
            "layer_evaluation",
            "phenomena_for",
            "phase",
            "language",
            "reannotation_rules",
            "created_at",
            "my_roles",
        ]
        read_only_fields = ["created_at", "guidelines"]  # guidelines: published versions (project pages)

    def validate_tagset(self, tagset: Tagset | None) -> Tagset | None:
        request = self.context.get("request")
        user = getattr(request, "user", None)
        unchanged = self.instance is not None and tagset is not None and self.instance.tagset_id == tagset.pk
        if not unchanged and not access.may_use_tagset(user, tagset):
            raise serializers.ValidationError(
                "You may not use this tagset: choose a built-in one, one of yours or clone it."
            )
        return tagset

    def get_my_roles(self, project: Project) -> list[str]:
        roles: dict[int, set[str]] = self.context.get("roles", {})
        return sorted(roles.get(project.pk, set()))


class MembershipSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "user", "username", "role"]
        read_only_fields = ["user"]


class MemberAddSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(
        choices=Membership.Role.choices, error_messages={"invalid_choice": UNKNOWN_ROLE}
    )


# ---- pairs and assignments ------------------------------------------------------------------------


class PairSerializer(serializers.ModelSerializer):
    class Meta:
        model = Pair
        fields = [
            "id",
            "project",
            "source_id",
            "position",
            "text1",
            "text2",
            "tokens1",
            "tokens2",
            "tree1",
            "tree2",
            "nodes1",
            "nodes2",
            "corpus_labels",
            "initial_alignment",
            "initial_alignment_source",
        ]


class PairCreateSerializer(serializers.Serializer):
    """A new pair: tokens are required, texts default to the tokens joined by spaces."""

    project = serializers.IntegerField()
    source_id = serializers.CharField(max_length=120)
    tokens1 = serializers.ListField(child=serializers.CharField(trim_whitespace=False), min_length=1)
    tokens2 = serializers.ListField(child=serializers.CharField(trim_whitespace=False), min_length=1)
    text1 = serializers.CharField(required=False, trim_whitespace=False)
    text2 = serializers.CharField(required=False, trim_whitespace=False)
    tree1 = serializers.CharField(required=False, allow_blank=True, default="")
    tree2 = serializers.CharField(required=False, allow_blank=True, default="")
    corpus_labels = serializers.DictField(required=False, default=dict)
    initial_alignment = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=0), min_length=2, max_length=2),
        required=False,
        allow_null=True,
        default=None,
        help_text="Automatic word alignment [[i, j], …] (e.g. from your own aligner) shown as a suggestion.",
    )
    initial_alignment_source = serializers.CharField(max_length=60, required=False, default="")
    position = serializers.IntegerField(min_value=0, max_value=MAX_INT, required=False)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        for member in (1, 2):
            text = data.get(f"tree{member}")
            if text:
                try:
                    trees.tree_nodes(text, data[f"tokens{member}"])
                except trees.TreeError as exc:
                    raise serializers.ValidationError({f"tree{member}": str(exc)}) from exc
        for n, (i, j) in enumerate(data.get("initial_alignment") or []):
            try:
                validation.link_fields(i, j, data["tokens1"], data["tokens2"])
            except Exception as exc:
                raise serializers.ValidationError(
                    {"initial_alignment": f"Link {n} ({i}, {j}): {_first_message(exc)}"}
                ) from exc
        return data


def _first_message(exc: Exception) -> str:
    messages = getattr(exc, "messages", None)
    return messages[0] if messages else str(exc)


class AssignmentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Assignment
        fields = [
            "id",
            "project",
            "annotator",
            "pair",
            "unit",
            "phase",
            "round",
            "status",
            "step",
            "queue_position",
            "created_at",
            "started_at",
            "finished_at",
            "time_spent",
        ]


#: Pair ids one assignment request may list; more go through the planner (omit `pairs`).
ASSIGN_PAIRS_MAX = 10_000


class AssignPairsSerializer(serializers.Serializer):
    project = serializers.IntegerField()
    annotators = serializers.ListField(
        child=serializers.CharField(max_length=150), min_length=1, help_text="Usernames."
    )
    pairs = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        allow_null=True,
        default=None,
        max_length=ASSIGN_PAIRS_MAX,
        help_text="Pair ids of the project (at most 10,000); omitted or null = every pair of the project, "
        "through the planner's stored plan.",
    )
    round = serializers.IntegerField(min_value=0, max_value=MAX_INT, default=0)
    phase = serializers.ChoiceField(choices=Project.Phase.choices, required=False, allow_null=True)


class AssignResultSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="How many assignments were new.")


class AssignPairsResultSerializer(serializers.Serializer):
    created = serializers.IntegerField(
        allow_null=True, help_text="How many assignments were new (null: the plan is still computing)."
    )
    plan = serializers.IntegerField(
        allow_null=True, help_text="The stored plan a whole-project request used."
    )


# ---- annotations ----------------------------------------------------------------------------------


class PairLabelSerializer(serializers.ModelSerializer):
    """The annotator's sheet for a pair: pair-level label, comment and the sheet version."""

    class Meta:
        model = PairLabel
        fields = ["id", "pair", "annotator", "is_gold", "label", "comment", "version", "updated_at"]


class PairLabelWriteSerializer(serializers.Serializer):
    pair = serializers.IntegerField()
    label = serializers.ChoiceField(  # type: ignore[assignment]  # stub gap: the metaclass moves declared fields off the class
        choices=[("", "none"), *PairLabel.Label.choices],
        required=False,
        allow_blank=True,
        help_text='"paraphrase", "non_paraphrase", or "" to clear.',
    )
    comment = serializers.CharField(required=False, allow_blank=True, max_length=10000)
    base_version = _base_version()

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if "label" not in data and "comment" not in data:
            raise serializers.ValidationError({"label": "Send a label, a comment or both."})
        return data


class PhenomenonSerializer(serializers.ModelSerializer):
    class Meta:
        model = Phenomenon
        fields = [
            "id",
            "pair",
            "annotator",
            "is_gold",
            "ptype",
            "scope1",
            "scope2",
            "projection",
            "key1",
            "key2",
            "sense_preserving",
            "comment",
            "version",
            "created_at",
            "updated_at",
        ]


class PhenomenonCreateSerializer(serializers.Serializer):
    pair = serializers.IntegerField()
    ptype = serializers.IntegerField(help_text="A paraphrase type id of the project's tagset.")
    scope1 = _indices(default=list)
    scope2 = _indices(default=list)
    projection = serializers.ChoiceField(
        choices=[("", "none"), *Phenomenon.Projection.choices], required=False, allow_blank=True, default=""
    )
    key1 = _indices(default=list)
    key2 = _indices(default=list)
    sense_preserving = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="ETPC's layer: true (+), false (−), null."
    )
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=10000)
    base_version = _base_version()


class PhenomenonUpdateSerializer(serializers.Serializer):
    ptype = serializers.IntegerField(required=False)
    scope1 = _indices(required=False)
    scope2 = _indices(required=False)
    projection = serializers.ChoiceField(
        choices=[("", "none"), *Phenomenon.Projection.choices], required=False, allow_blank=True
    )
    key1 = _indices(required=False)
    key2 = _indices(required=False)
    sense_preserving = serializers.BooleanField(
        required=False, allow_null=True, help_text="ETPC's layer: true (+), false (−), null."
    )
    comment = serializers.CharField(required=False, allow_blank=True, max_length=10000)
    base_version = _base_version()


class PhenomenonResultSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The sheet version after the change.")
    phenomenon = PhenomenonSerializer()


class VersionSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The sheet version after the change.")


class ConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    current_version = serializers.IntegerField()


class AlignmentLinkSerializer(serializers.ModelSerializer):
    class Meta:
        model = AlignmentLink
        fields = ["id", "pair", "annotator", "is_gold", "i", "j", "sure", "version", "updated_at"]


class LinksWriteSerializer(serializers.Serializer):
    pair = serializers.IntegerField()
    links = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=0), min_length=2, max_length=2),
        min_length=1,
        max_length=10000,
        help_text="[[i, j], …]: token i of member 1 with token j of member 2.",
    )
    sure = serializers.BooleanField(default=True, help_text="Sure (true) or possible (false) links.")
    base_version = _base_version()


class LinksRemoveSerializer(serializers.Serializer):
    pair = serializers.IntegerField()
    links = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=0), min_length=2, max_length=2),
        min_length=1,
        max_length=10000,
    )
    base_version = _base_version()


class LinksResultSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The sheet version after the change.")
    links = AlignmentLinkSerializer(many=True, help_text="All of the sheet's links after the change.")


class PhraseAlignmentSerializer(serializers.ModelSerializer):
    class Meta:
        model = PhraseAlignment
        fields = ["id", "pair", "annotator", "is_gold", "node1", "node2", "sure", "version", "updated_at"]


class PhraseAlignmentCreateSerializer(serializers.Serializer):
    pair = serializers.IntegerField()
    node1 = serializers.IntegerField(
        min_value=0, allow_null=True, help_text="Node index in tree 1; null = none."
    )
    node2 = serializers.IntegerField(min_value=0, allow_null=True)
    sure = serializers.BooleanField(default=True)
    base_version = _base_version()


class PhraseAlignmentResultSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    phrase_alignment = PhraseAlignmentSerializer()


class SheetSerializer(serializers.Serializer):
    """One annotator's complete work on a pair, with the version to base the next change on."""

    pair = serializers.IntegerField()
    annotator = serializers.IntegerField()
    version = serializers.IntegerField()
    label = serializers.CharField(allow_blank=True)  # type: ignore[assignment]  # stub gap: the metaclass moves declared fields off the class
    comment = serializers.CharField(allow_blank=True)
    phenomena = PhenomenonSerializer(many=True)
    links = AlignmentLinkSerializer(many=True)
    phrase_alignments = PhraseAlignmentSerializer(many=True)


class SuggestionsSerializer(serializers.Serializer):
    """The automatic links the annotator has not made yet (suggestions, not annotations)."""

    pair = serializers.IntegerField()
    # a declared field named like Field.source: DRF's metaclass takes it out of the class attributes
    source = serializers.CharField(  # type: ignore[assignment]
        allow_blank=True, help_text="Where they come from, e.g. eflomal/intersection."
    )
    suggestions = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    version = serializers.IntegerField(help_text="Your sheet's version.")


class AcceptSuggestionsSerializer(serializers.Serializer):
    base_version = serializers.IntegerField(allow_null=True, min_value=0)
    links = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=0), min_length=2, max_length=2),
        required=False,
        help_text="The suggestions to accept, [[i, j], …]; all of them when left out.",
    )


class AcceptPhraseSuggestionsSerializer(serializers.Serializer):
    base_version = serializers.IntegerField(allow_null=True, min_value=0)
    phrases = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=0), min_length=2, max_length=2),
        required=False,
        help_text="The phrase suggestions to accept, [[node1, node2], …]; all of them when left out.",
    )


# ---- evaluation -----------------------------------------------------------------------------------


class EvaluationItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = EvaluationItem
        fields = [
            "id",
            "source_id",
            "position",
            "paraphrase",
            "sentence",
            "substitution_start",
            "substitution_end",
            "candidate_source",
        ]


class EvaluationUnitSerializer(serializers.ModelSerializer):
    """A unit with its items. For a rater still in the grammaticality step the original (source
    sentence and phrase) is withheld (`null`): step 1 is judged without seeing it."""

    items = EvaluationItemSerializer(many=True, read_only=True)
    source_sentence = serializers.SerializerMethodField()
    phrase = serializers.SerializerMethodField()

    class Meta:
        model = EvaluationUnit
        fields = [
            "id",
            "project",
            "source_id",
            "position",
            "source_sentence",
            "phrase",
            "phrase_start",
            "phrase_end",
            "items",
        ]

    def _hidden(self, unit: EvaluationUnit) -> bool:
        return unit.pk in self.context.get("hide_original", set())

    def get_source_sentence(self, unit: EvaluationUnit) -> str | None:
        return None if self._hidden(unit) else unit.source_sentence

    def get_phrase(self, unit: EvaluationUnit) -> str | None:
        return None if self._hidden(unit) else unit.phrase


class SubstitutionSerializer(serializers.Serializer):
    id = serializers.CharField(max_length=120)
    paraphrase = serializers.CharField(max_length=400)
    candidate_source = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")


class EvaluationUnitCreateSerializer(serializers.Serializer):
    project = serializers.IntegerField()
    source_id = serializers.CharField(max_length=120)
    source_sentence = serializers.CharField()
    phrase = serializers.CharField(max_length=400)
    phrase_start = serializers.IntegerField(min_value=0, max_value=MAX_INT)
    phrase_end = serializers.IntegerField(min_value=0, max_value=MAX_INT)
    substitutions = SubstitutionSerializer(many=True)


class AssignUnitsSerializer(serializers.Serializer):
    project = serializers.IntegerField()
    raters = serializers.ListField(child=serializers.CharField(max_length=150), min_length=1)
    r = serializers.IntegerField(min_value=1, max_value=MAX_INT, default=3, help_text="Raters per unit.")
    seed = serializers.IntegerField(min_value=0, max_value=2**63 - 1, default=0)


class JudgementSerializer(serializers.ModelSerializer):
    class Meta:
        model = Judgement
        fields = ["id", "item", "rater", "step", "phase", "label", "answers", "version", "updated_at"]


class JudgementWriteSerializer(serializers.Serializer):
    item = serializers.IntegerField()
    step = serializers.ChoiceField(choices=Judgement.Step.choices)
    phase = serializers.ChoiceField(choices=Judgement.Phase.choices, default=Judgement.Phase.INITIAL)
    answers = serializers.DictField(
        required=False, allow_null=True, default=None, help_text="Decision-tree answers giving the label."
    )
    label = serializers.CharField(required=False, allow_null=True, default=None, max_length=40)  # type: ignore[assignment]  # stub gap: the metaclass moves declared fields off the class
    base_version = serializers.IntegerField(
        min_value=0,
        allow_null=True,
        help_text="The judgement version you saw (0 = none yet). Stale → 409; null skips the check.",
    )


class UnitStepSerializer(serializers.Serializer):
    unit = serializers.IntegerField(source="unit_id")
    step = serializers.CharField()
    status = serializers.CharField()
    round = serializers.IntegerField()


# ---- agreement and jobs ---------------------------------------------------------------------------


class SnapshotSerializer(serializers.ModelSerializer):
    class Meta:
        model = AgreementSnapshot
        fields = ["id", "project", "computed_at", "scope", "fingerprint", "duration_ms", "results"]


class CurrentAgreementSerializer(serializers.Serializer):
    """A project's current agreement (`annotator.agreement.current`) in a stored report's shape."""

    id = serializers.IntegerField(
        source="report",
        allow_null=True,
        help_text="The stored full report of this very state (see /api/snapshots/); null while none is "
        "stored: reports are stored at a bounded cadence, the current agreement after every computation.",
    )
    computation = serializers.IntegerField(
        allow_null=True, help_text="Changes with every computation stored (its headline row's id)."
    )
    project = serializers.IntegerField()
    computed_at = serializers.DateTimeField()
    scope = serializers.CharField(default="project")
    fingerprint = serializers.CharField()
    duration_ms = serializers.IntegerField()
    results = serializers.JSONField()
    figures_fingerprint = serializers.CharField(
        source="figures",
        help_text="Fingerprint of the figures shown: the computation's inputs and the sums the database keeps.",
    )
    intervals = serializers.ChoiceField(
        choices=["current", "updating"],
        help_text="'current': the `<key>.ci95` entries were computed from these very figures' inputs; "
        "'updating': the figures have no intervals of their own yet and none are shown (they follow "
        "within AGREEMENT_REPORT_INTERVAL_SECONDS and a few seconds of the last computation).",
    )


class AgreementSerializer(serializers.Serializer):
    """The current agreement of a project and whether it is behind the annotations."""

    project = serializers.IntegerField()
    behind = serializers.BooleanField(help_text="Annotations changed after the latest computation.")
    enqueue_failed = serializers.BooleanField(
        help_text="The task queue was unreachable at the last change; a recompute follows once it is back."
    )
    changed_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField(allow_blank=True)
    snapshot = CurrentAgreementSerializer(allow_null=True)


class CorpusJobSerializer(serializers.ModelSerializer):
    """A job with its live progress (`progress` of `total` records while it runs)."""

    progress = serializers.SerializerMethodField()
    total = serializers.SerializerMethodField()

    def get_progress(self, job: CorpusJob) -> int:

        return progress_of(job)[0]

    def get_total(self, job: CorpusJob) -> int:

        return progress_of(job)[1]

    class Meta:
        model = CorpusJob
        fields = [
            "id",
            "kind",
            "format",
            "project",
            "project_name",
            "status",
            "progress",
            "total",
            "cancel_requested",
            "options",
            "report",
            "created_at",
            "finished_at",
        ]


class ImportRequestSerializer(serializers.Serializer):
    """Multipart upload; validated by the UI's own import forms (annotator/corpus/forms.py)."""

    project = serializers.IntegerField(
        required=False, help_text="Import into this project (its leads). Omit and give project_name: admins."
    )
    project_name = serializers.CharField(required=False, max_length=120, help_text="A new project's name.")
    format = serializers.ChoiceField(choices=["mrpc", "etpc", "native", "ptb", "pharaoh", "units"])
    annotator = serializers.CharField(required=False, max_length=150)
    dry_run = serializers.BooleanField(required=False, default=False)
    skip_invalid = serializers.BooleanField(required=False, default=False)
    files = serializers.ListField(child=serializers.FileField())


class LexiconBuildRequestSerializer(serializers.Serializer):
    """Multipart upload; validated by the lexicon page's own form (annotator/evaluation/forms.py)."""

    project = serializers.IntegerField(help_text="Build the units in this project (its leads).")
    lexicon_file = serializers.FileField(
        help_text="One candidate per line: phrase, paraphrase, score, lexicon."
    )
    sentence_file = serializers.FileField(help_text="One sentence per line, tokens separated by spaces.")
    seed = serializers.IntegerField(min_value=0)
    n = serializers.IntegerField(min_value=1, max_value=50, help_text="Paraphrases per unit.")
    per_phrase = serializers.IntegerField(min_value=1, max_value=50, help_text="Sentences per phrase.")
    lexicons = serializers.CharField(required=False, help_text="Comma-separated names; empty: all.")
    selection = serializers.ChoiceField(choices=["", "each", "given"], required=False)
    given = serializers.CharField(required=False, help_text="The given lexicon of Data 2.")
    preview = serializers.BooleanField(
        required=False, default=False, help_text="Plan and report; write nothing."
    )


class ExportRequestSerializer(serializers.Serializer):
    """Validated by the UI's export form."""

    project = serializers.IntegerField()
    format = serializers.ChoiceField(choices=["native", "etpc", "csv", "pharaoh", "report"])
    annotator = serializers.CharField(required=False, max_length=150)
    gold = serializers.BooleanField(required=False, default=False)
    variant = serializers.ChoiceField(
        choices=["json", "jsonl", "csv", "html"], required=False, default="json"
    )
    history = serializers.BooleanField(required=False, default=False)


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()
