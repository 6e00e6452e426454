"""DRF serializers of the lead tools' REST API (planner, disagreement explorer, re-annotation,
adjudication): shapes in and out, never the rules.

Input serializers check types and ranges only; the rules are the UI's: the planner's and the
reassignment's forms (`annotator.leadtools.forms`) and the services (`annotator.leadtools.planning`,
`.reannotation`, `.adjudication`, which validate annotations through `annotator.core.validation`).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from annotator.api import serializers as s
from annotator.leadtools import planning
from annotator.models import AssignmentPlan, PairLabel, Phenomenon, Project, ReannotationRound

MAX_INT = s.MAX_INT
MAX_SEED = 2**63 - 1  # ReannotationRound.seed is a BigIntegerField


def _id(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_INT, **kwargs)


def _ids(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=_id(), **kwargs)


def _seed(help_text: str) -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=0, max_value=MAX_SEED, required=False, allow_null=True, help_text=help_text
    )


# ---- planner --------------------------------------------------------------------------------------


class AnnotatorSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class AssignmentSummarySerializer(serializers.Serializer):
    """One annotator's pair assignments (every phase and round)."""

    annotator_id = serializers.IntegerField()
    username = serializers.CharField()
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    postponed = serializers.IntegerField()
    todo = serializers.IntegerField(help_text="To do or in progress.")
    seconds = serializers.IntegerField(help_text="Time spent on them.")


@extend_schema_serializer(many=False)  # a `list` action's single object
class PlannerSerializer(serializers.Serializer):
    """What the planner page starts from: the project's annotators, pairs, phase and current load."""

    project = serializers.IntegerField()
    phase = serializers.CharField(help_text="The project's current phase (the plan's default).")
    n_pairs = serializers.IntegerField()
    annotators = AnnotatorSerializer(many=True)
    summary = AssignmentSummarySerializer(many=True)
    selections = serializers.ListField(child=serializers.CharField())
    per_pair_choices = serializers.ListField(child=serializers.CharField())
    phases = serializers.ListField(child=serializers.CharField())


class PlanRequestSerializer(serializers.Serializer):
    """The planner form's fields. Omitted: every annotator of the project, a new random seed (returned
    in the plan), the project's phase."""

    selection = serializers.ChoiceField(choices=list(planning.SELECTIONS), default="all")
    n = serializers.IntegerField(
        min_value=1, max_value=MAX_INT, required=False, allow_null=True, help_text="Sample size."
    )
    seed = _seed("Same seed, same sample and split.")
    label_key = serializers.CharField(required=False, allow_blank=True, max_length=60, default="")
    label_value = serializers.CharField(required=False, allow_blank=True, max_length=120, default="")
    source_prefix = serializers.CharField(required=False, allow_blank=True, max_length=120, default="")
    unannotated = serializers.BooleanField(default=False, help_text="Filter: no annotations yet.")
    unassigned = serializers.BooleanField(default=False, help_text="Filter: not assigned to anyone yet.")
    annotators = _ids(required=False, allow_null=True, help_text="User ids of the project's annotators.")
    per_pair = serializers.ChoiceField(choices=list(planning.PER_PAIR), default="everyone")
    k = serializers.IntegerField(
        min_value=1, max_value=MAX_INT, required=False, allow_null=True, help_text="Annotators per pair."
    )
    phase = serializers.ChoiceField(choices=Project.Phase.choices, required=False, allow_null=True)
    dry_run = serializers.BooleanField(default=False, help_text="Return the plan without writing it.")


class LoadSerializer(serializers.Serializer):
    annotator_id = serializers.IntegerField()
    username = serializers.CharField()
    existing = serializers.IntegerField(help_text="Pair assignments already held in the plan's round.")
    new = serializers.IntegerField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class OverlapSerializer(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()
    shared = serializers.IntegerField(help_text="Planned pairs annotators a and b both get.")


class PlanSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The stored plan.")
    status = serializers.ChoiceField(choices=AssignmentPlan.Status.choices)
    project = serializers.IntegerField()
    phase = serializers.CharField()
    round = serializers.IntegerField()
    per_pair = serializers.CharField()
    k = serializers.IntegerField(allow_null=True)
    seed = serializers.IntegerField(allow_null=True)
    annotators = serializers.ListField(child=serializers.IntegerField())
    n_pairs = serializers.IntegerField(help_text="Pairs chosen.")
    n_assignments = serializers.IntegerField(help_text="Planned assignments.")
    n_new = serializers.IntegerField(help_text="Planned assignments that did not exist yet.")
    assignments = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        help_text="The first 100 planned [annotator id, pair id] in queue order.",
    )
    loads = LoadSerializer(many=True)
    overlap = OverlapSerializer(many=True)


class PlanResultSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    created = serializers.IntegerField(allow_null=True, help_text="Assignments written (null: dry run).")
    plan = PlanSerializer()


class ReassignRequestSerializer(serializers.Serializer):
    from_user = _id(help_text="The annotator who left (user id).")
    to_user = _id(help_text="The annotator who takes their unfinished work over.")
    remove_member = serializers.BooleanField(
        default=False, help_text="Also remove from_user from the project's annotators."
    )


class ReassignResultSerializer(serializers.Serializer):
    moved = serializers.IntegerField()
    already_held = serializers.IntegerField(help_text="Dropped: to_user already had these pairs.")
    removed_from_project = serializers.BooleanField()


# ---- disagreement explorer ------------------------------------------------------------------------


class AnnotatorPairValueSerializer(serializers.Serializer):
    annotators = serializers.CharField(help_text='"a|b" (usernames).')
    value = serializers.FloatField(allow_null=True)


class PairAgreementSerializer(serializers.Serializer):
    """A pair's agreement: who worked on it and the values of every two of them."""

    annotators = serializers.ListField(child=serializers.CharField())
    labels = serializers.DictField(child=serializers.CharField(allow_blank=True))
    label_disagreement = serializers.BooleanField()
    score = serializers.FloatField(allow_null=True, help_text="Mean of the defined DO F1 values.")
    do_f1 = serializers.DictField(
        child=serializers.FloatField(allow_null=True), help_text='"a|b" → value (null: undefined).'
    )
    do_f1_by_type = serializers.DictField(
        child=serializers.DictField(child=serializers.FloatField(allow_null=True))
    )
    alignment_f1 = serializers.DictField(child=serializers.FloatField(allow_null=True))
    types = serializers.ListField(child=serializers.CharField())


class ExplorerRowSerializer(PairAgreementSerializer):
    pair = serializers.IntegerField()
    source_id = serializers.CharField()
    value = serializers.FloatField(allow_null=True, help_text="The value ordered by.")
    per_annotator_pair = AnnotatorPairValueSerializer(many=True)


@extend_schema_serializer(many=False)  # a `list` action's single object
class ExplorerPageSerializer(serializers.Serializer):
    """One page of the explorer: pairs lowest agreement first, pairs without a value last."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    measure = serializers.CharField()
    annotator_pair = serializers.CharField(allow_blank=True)
    type = serializers.CharField(allow_blank=True)
    annotator_pairs = serializers.ListField(child=serializers.CharField(), help_text="Filter values.")
    types = serializers.ListField(child=serializers.CharField(), help_text="Filter values.")
    n_compared = serializers.IntegerField(help_text="Pairs with a value.")
    current = serializers.BooleanField(
        help_text="False while the values are being recomputed after a change (they are the earlier ones)."
    )
    paused = serializers.BooleanField(
        help_text="True when a lead stopped the refresh (POST cancel/): the values stay the earlier ones "
        "until POST refresh/."
    )
    results = ExplorerRowSerializer(many=True)


class ExplorerRefreshSerializer(serializers.Serializer):
    """The explorer refresh after a cancel or a new request."""

    running = serializers.BooleanField(help_text="Whether a refresh was running when it was asked to stop.")
    current = serializers.BooleanField(help_text="Whether the stored values are current.")
    paused = serializers.BooleanField(help_text="True: no refresh is asked for until POST refresh/.")


class ComparedPhenomenonSerializer(serializers.Serializer):
    phenomenon = s.PhenomenonSerializer()
    status = serializers.CharField(
        help_text='"same" (identical same-type phenomenon on the other side), "overlap" (scopes '
        'overlap), "only".'
    )
    best = serializers.FloatField(help_text="The DO overlapping value with the other side.")


class PhenomenonTypeComparisonSerializer(serializers.Serializer):
    ptype = serializers.IntegerField()
    ptype_name = serializers.CharField()
    agree = serializers.BooleanField()
    a = ComparedPhenomenonSerializer(many=True)
    b = ComparedPhenomenonSerializer(many=True)


class LinkCellSerializer(serializers.Serializer):
    i = serializers.IntegerField()
    j = serializers.IntegerField()
    state = serializers.CharField(help_text='"both", "a" or "b".')
    sure = serializers.BooleanField()
    mixed = serializers.BooleanField(help_text="Both have it, one sure and one possible.")


class OneSidedLinkSerializer(serializers.Serializer):
    i = serializers.IntegerField()
    j = serializers.IntegerField()
    token1 = serializers.CharField()
    token2 = serializers.CharField()
    sure = serializers.BooleanField()


class LinksComparisonSerializer(serializers.Serializer):
    both = serializers.IntegerField()
    mixed = serializers.IntegerField()
    only_a = OneSidedLinkSerializer(many=True)
    only_b = OneSidedLinkSerializer(many=True)
    cells = LinkCellSerializer(many=True, help_text="Every linked cell of the alignment matrix.")


class PhraseComparisonSerializer(serializers.Serializer):
    state = serializers.CharField(help_text='"both", "a" or "b".')
    span1 = serializers.CharField()
    span2 = serializers.CharField()
    sure = serializers.BooleanField()


class ExplorerPairSerializer(serializers.Serializer):
    """Two annotators' versions of a pair compared (a and b empty: fewer than two worked on it)."""

    pair = serializers.IntegerField()
    source_id = serializers.CharField()
    tokens1 = serializers.ListField(child=serializers.CharField(trim_whitespace=False, allow_blank=True))
    tokens2 = serializers.ListField(child=serializers.CharField(trim_whitespace=False, allow_blank=True))
    workers = serializers.ListField(child=serializers.CharField(), help_text="Annotators who worked on it.")
    a = serializers.CharField(allow_blank=True)
    b = serializers.CharField(allow_blank=True)
    key = serializers.CharField(allow_blank=True, help_text='The "a|b" key of their values in `row`.')
    row = PairAgreementSerializer()
    phenomena = PhenomenonTypeComparisonSerializer(many=True)
    links = LinksComparisonSerializer(allow_null=True)
    phrases = PhraseComparisonSerializer(many=True)


# ---- re-annotation --------------------------------------------------------------------------------


class ReannotationParamsSerializer(serializers.Serializer):
    threshold = serializers.FloatField(required=False, help_text="do_f1_below: the DO F1 threshold, (0, 1].")
    pairs = serializers.ListField(
        child=serializers.CharField(max_length=120),
        required=False,
        max_length=100000,
        help_text="selected: the pairs' source ids.",
    )


class ReannotationRequestSerializer(serializers.Serializer):
    rule = serializers.ChoiceField(choices=ReannotationRound.Rule.choices)
    params = ReannotationParamsSerializer(required=False)
    seed = _seed("Seed of the agreeing sample and the shuffle; omitted: a new one (returned).")
    dry_run = serializers.BooleanField(default=False, help_text="Return the draw without queuing it.")


class DrawSerializer(serializers.Serializer):
    rule = serializers.CharField()
    params = serializers.DictField()
    seed = serializers.IntegerField()
    fraction = serializers.FloatField()
    flagged = serializers.ListField(child=serializers.CharField())
    sampled = serializers.ListField(child=serializers.CharField(), help_text="Agreeing pairs mixed in.")
    order = serializers.ListField(child=serializers.CharField(), help_text="The queue, shuffled.")


class ReannotationQueuedSerializer(serializers.Serializer):
    queued = serializers.BooleanField()
    draw = DrawSerializer()
    poll = serializers.CharField(
        allow_null=True,
        help_text="Where the round appears once a worker has queued it (the rounds list for this seed).",
    )


class HeadlineSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # stub gap: the metaclass moves declared fields off the class
    before = serializers.FloatField(allow_null=True)
    after = serializers.FloatField(allow_null=True)


class RoundPairsSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    score_before = serializers.FloatField(allow_null=True)
    score_after = serializers.FloatField(allow_null=True)
    labels_before = serializers.IntegerField(help_text="Pairs whose labels differed.")
    labels_after = serializers.IntegerField()
    flagged_score_before = serializers.FloatField(allow_null=True)
    flagged_score_after = serializers.FloatField(allow_null=True)


class RoundComparisonSerializer(serializers.Serializer):
    headlines = HeadlineSerializer(many=True, help_text="Project measures before the round and now.")
    after_computed_at = serializers.DateTimeField(allow_null=True)
    pairs = RoundPairsSerializer(help_text="The round's pairs, before and now.")
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class ReannotationRoundSerializer(serializers.ModelSerializer):
    compare = serializers.SerializerMethodField()
    params = serializers.DictField()
    flagged = serializers.ListField(child=serializers.CharField())
    sampled = serializers.ListField(child=serializers.CharField())
    order = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = ReannotationRound
        fields = [
            "id",
            "project",
            "round",
            "rule",
            "params",
            "seed",
            "fraction",
            "flagged",
            "sampled",
            "order",
            "n_assignments",
            "before_snapshot",
            "created_by",
            "created_at",
            "compare",
        ]

    @extend_schema_field(RoundComparisonSerializer)
    def get_compare(self, round_: ReannotationRound) -> dict[str, Any]:

        return RoundComparisonSerializer(self.context["compared"][round_.pk]).data


# ---- adjudication ---------------------------------------------------------------------------------


class AdjudicationVersionSerializer(serializers.Serializer):
    """One annotator's version of the pair, or the gold one (owner: the gold sheet's owner, null
    before adjudication started)."""

    owner = serializers.IntegerField(source="owner_id", allow_null=True)
    username = serializers.CharField()
    label = serializers.CharField(allow_blank=True)  # type: ignore[assignment]  # stub gap: the metaclass moves declared fields off the class
    comment = serializers.CharField(allow_blank=True)
    version = serializers.IntegerField(source="sheet_version", help_text="The sheet's version.")
    phenomena = s.PhenomenonSerializer(many=True)
    links = s.AlignmentLinkSerializer(many=True)
    phrase_alignments = s.PhraseAlignmentSerializer(many=True, source="phrases")


class InGoldSerializer(serializers.Serializer):
    phenomena = serializers.ListField(child=serializers.IntegerField())
    links = serializers.ListField(child=serializers.IntegerField())
    phrase_alignments = serializers.ListField(child=serializers.IntegerField(), source="phrases")


@extend_schema_serializer(many=False)  # a `list` action's single object
class AdjudicationSerializer(serializers.Serializer):
    """The annotators' versions of a pair next to its gold layer; gold's `version` is the
    `base_version` of the next gold change."""

    pair = serializers.IntegerField()
    project = serializers.IntegerField()
    source_id = serializers.CharField()
    versions = AdjudicationVersionSerializer(many=True)
    gold = AdjudicationVersionSerializer()
    in_gold = InGoldSerializer(help_text="Ids of the annotators' rows that gold already has.")


class GoldResultSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The gold sheet's version after the change.")
    gold = AdjudicationVersionSerializer()


class TakeVersionSerializer(serializers.Serializer):
    source = _id(help_text="User id of the annotator whose version replaces the gold.")  # type: ignore[assignment]  # stub gap: the metaclass moves declared fields off the class
    base_version = s._base_version()


class MergeSerializer(serializers.Serializer):
    phenomena = _ids(default=list, max_length=10000, help_text="Annotators' phenomenon ids.")
    links = _ids(default=list, max_length=10000, help_text="Annotators' link ids.")
    phrase_alignments = _ids(default=list, max_length=10000, help_text="Annotators' phrase alignment ids.")
    label_from = _id(required=False, allow_null=True, help_text="Also copy this annotator's pair label.")
    base_version = s._base_version()


class GoldLabelSerializer(serializers.Serializer):
    label = serializers.ChoiceField(  # type: ignore[assignment]  # stub gap: the metaclass moves declared fields off the class
        choices=[("", "none"), *PairLabel.Label.choices],
        allow_blank=True,
        help_text='"paraphrase", "non_paraphrase", or "" to clear.',
    )
    base_version = s._base_version()


class GoldPhenomenonCreateSerializer(serializers.Serializer):
    ptype = serializers.IntegerField(
        min_value=1, max_value=MAX_INT, help_text="A paraphrase type id of the project's tagset."
    )
    scope1 = s._indices(default=list)
    scope2 = s._indices(default=list)
    projection = serializers.ChoiceField(
        choices=[("", "none"), *Phenomenon.Projection.choices], required=False, allow_blank=True, default=""
    )
    key1 = s._indices(default=list)
    key2 = s._indices(default=list)
    sense_preserving = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="ETPC's layer: true (+), false (−), null."
    )
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=10000)
    base_version = s._base_version()


class GoldLinkSerializer(serializers.Serializer):
    i = serializers.IntegerField(min_value=0, max_value=MAX_INT, help_text="Token of member 1.")
    j = serializers.IntegerField(min_value=0, max_value=MAX_INT, help_text="Token of member 2.")
    sure = serializers.BooleanField(default=True, help_text="Sure (true) or possible (false).")
    base_version = s._base_version()
