"""Database rows → the metrics interchange document; the recompute pipeline that stores snapshots.

`project_document(project)` builds the document of spec §9 (`/work/shared/specs/agreement-metrics.md`)
from the database, with a few queries over the whole project (values_list, no model instances):

- `annotators`: usernames of the project's members in the annotator role, in username order. Work of
  users who are no longer annotators of the project is left out.
- `options`: the metrics library's defaults, spelled out so the document says what it was computed with.
- `tagset`: the project tagset's types in position order, `one_sided` = `ParaphraseType.one_sided`.
- `pairs`: `{id: Pair.source_id, tokens1, tokens2, initial_alignment}` in `Pair.position` order.
- `phenomena` (layer on): annotator → their non-gold phenomena, each with `sense_preserving` (ETPC's
  layer, spec extension of metrics 1.1, docs/measures.md#sense-layers) when it is marked; an
  unmarked phenomenon has no such key, so projects without marks keep their documents unchanged. An annotator appears in the section
  once they have started (≥ 1 phenomenon or ≥ 1 finished pair), so a colleague who has not begun does
  not drag every measure to 0.
- `word_alignments` (layer on): annotator → pair → `{sure, possible}`. A pair counts as aligned by an
  annotator (spec §1: "annotated" = has an entry) when they have ≥ 1 link on it OR their assignment
  for it is done; a done pair without links is an empty alignment.
- `phrase_alignments` (layer on): annotator → `{pair, s1, s2, label}` with the token spans of the
  aligned parse-tree nodes (`annotator.core.trees.node_tokens`; null = aligned to nothing).
- `evaluations` (layer on): raters = the annotators; item id = `"<unit source_id>/<item source_id>"`
  (unique in a project, as both source ids are unique at their level); one rating per (item, rater)
  from the initial-phase grammaticality and meaning judgements; `revisions` from the re-evaluation
  phase, only where an initial rating exists.
- `pair_labels` (extension key, layer on): annotator → pair → "paraphrase" | "non_paraphrase".

Gold rows (`is_gold`) never enter the document: agreement is between annotators.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.db.models import Aggregate, F, Q, TextField
from django.db.models.functions import Cast

from annotator.core.aligner import baseline_alignment
from annotator.core.phrase_suggestions import phrase_alignments_from_words
from annotator.core.trees import node_tokens
from annotator.models import (
    AlignmentLink,
    Assignment,
    EvaluationItem,
    Judgement,
    Membership,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
    SystemAlignment,
)
from metrics.phenomena import gc_paused
from metrics.types import Options

DOCUMENT_FORMAT = "paraphrase-agreement/1"


def project_annotators(project: Project) -> list[tuple[int, str]]:
    """(user id, username) of the project's annotators, in username order."""
    rows = Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR).values_list(
        "user_id", "user__username"
    )
    return sorted(set(rows), key=lambda row: row[1])


def project_document(project: Project) -> dict[str, Any]:
    """The metrics interchange document (spec §9) of the project's current annotations."""
    # Some 10⁶ small lists and dicts, none in a cycle: automatic collections would traverse them
    # again and again and took as long as building them.
    with gc_paused():
        return _project_document(project)


def _project_document(project: Project) -> dict[str, Any]:
    annotators = project_annotators(project)
    names = dict(annotators)
    pairs = _pairs(project)
    doc: dict[str, Any] = {
        "format": DOCUMENT_FORMAT,
        "annotators": [name for _, name in annotators],
        "options": dataclasses.asdict(Options()),
        "tagset": {"types": tagset_types(project)},
        "pairs": [
            {
                "id": p["id"],
                "tokens1": p["tokens1"],
                "tokens2": p["tokens2"],
                "initial_alignment": p["initial_alignment"],
            }
            for p in pairs.values()
        ],
    }
    done = _done_pairs(project, names) if project.layer_phenomena or project.layer_word_alignment else {}
    if project.layer_phenomena:
        doc["phenomena"] = _phenomena(project, names, pairs, done)
    if project.layer_word_alignment:
        doc["word_alignments"] = _word_alignments(project, names, pairs, done)
    if project.layer_phrase_alignment:
        doc["phrase_alignments"] = _phrase_alignments(project, names, pairs)
        systems = _system_phrase_alignments(project)
        if systems:
            doc["system_phrase_alignments"] = systems
    if project.layer_evaluation:
        doc["evaluations"] = _evaluations(project, names)
    if project.layer_pair_label:
        doc["pair_labels"] = _pair_labels(project, names, pairs)
    return doc


def document_pairs(project: Project) -> list[dict[str, Any]]:
    """The document's `pairs` entries (id, tokens, initial alignment) in document order, without the
    rest of the document."""
    return [
        {
            "id": p["id"],
            "tokens1": p["tokens1"],
            "tokens2": p["tokens2"],
            "initial_alignment": p["initial_alignment"],
        }
        for p in _pairs(project).values()
    ]


@dataclasses.dataclass(frozen=True)
class PairSpan:
    """The project's pairs after `after` up to `last` inclusive, both (position, pk), in the pairs'
    order: how a reader going through the pairs a chunk at a time names a chunk. The filter is a range
    on the pairs' (project, position, id) index, so its cost does not grow with the chunk as a list of
    pks does (compiled value by value)."""

    after: tuple[int, int] | None
    last: tuple[int, int]

    def q(self, prefix: str = "") -> Q:
        """The span as a filter on `<prefix>position` and `<prefix>id` (`prefix` "pair__" for rows of
        a pair). The plain bounds on the position come first so the index serves a range."""
        position, pk = f"{prefix}position", f"{prefix}id"
        last_position, last_pk = self.last
        span = Q(**{f"{position}__lte": last_position}) & (
            Q(**{f"{position}__lt": last_position}) | Q(**{f"{pk}__lte": last_pk})
        )
        if self.after is None:
            return span
        after_position, after_pk = self.after
        return (
            span
            & Q(**{f"{position}__gte": after_position})
            & (Q(**{f"{position}__gt": after_position}) | Q(**{f"{pk}__gt": after_pk}))
        )


#: Which pairs a reader wants: all (None), these pks, or a span of the pairs' order.
Only = list[int] | PairSpan | None


def only_pairs(rows: Any, only: Only, prefix: str = "pair__") -> Any:
    """`rows` (of pairs with `prefix` "", or of rows of a pair) restricted to the pairs `only`."""
    if only is None:
        return rows
    if isinstance(only, PairSpan):
        return rows.filter(only.q(prefix))
    return rows.filter(**{f"{prefix}id__in" if prefix else "pk__in": only})


def _pairs(project: Project, only: Only = None) -> dict[int, dict[str, Any]]:
    """Pair pk → its document fields (plus the parse-tree nodes when phrase alignment is on); `only`:
    just these pairs."""
    fields = ["pk", "source_id", "tokens1", "tokens2", "initial_alignment"]
    if project.layer_phrase_alignment:
        fields += ["nodes1", "nodes2"]
    out: dict[int, dict[str, Any]] = {}
    rows = only_pairs(Pair.objects.filter(project=project), only, prefix="")
    for row in rows.order_by("position", "pk").values_list(*fields):
        pk, source_id, tokens1, tokens2, initial = row[:5]
        out[pk] = {
            "id": source_id,
            "tokens1": tokens1,
            "tokens2": tokens2,
            # κ_C's starting point: the stored one, else the identical-token matcher's (not stored).
            "initial_alignment": baseline_alignment(initial, tokens1, tokens2),
        }
        if project.layer_phrase_alignment:
            out[pk]["nodes1"], out[pk]["nodes2"] = row[5], row[6]
    return out


def tagset_types(project: Project) -> list[dict[str, Any]]:
    """The document's `tagset.types`: name and one-sidedness of the project's paraphrase types."""
    if project.tagset_id is None:
        return []
    rows = ParaphraseType.objects.filter(tagset_id=project.tagset_id).order_by("position", "pk")
    return [
        {"name": name, "one_sided": sides == ParaphraseType.ScopeSides.ONE}
        for name, sides in rows.values_list("name", "scope_sides")
    ]


def _done_pairs(project: Project, names: dict[int, str], only: Only = None) -> dict[int, set[int]]:
    """Annotator id → pks of the pairs whose assignment (any round) is done."""
    out: dict[int, set[int]] = defaultdict(set)
    query = Assignment.objects.filter(
        project=project, pair__isnull=False, status=Assignment.Status.DONE, annotator_id__in=list(names)
    )
    rows = only_pairs(query, only).values_list("annotator_id", "pair_id")
    for annotator_id, pair_id in rows:
        out[annotator_id].add(pair_id)
    return out


def _json_text(name: str) -> Cast:
    """A JSON column read as its text, so a whole result is decoded by one `json.loads` call
    instead of one per value (the per-value decoding dominated at MSRP-A scale)."""
    return Cast(name, TextField())


def _only(rows: Any, only: Only) -> Any:
    return only_pairs(rows, only)


def _phenomena(
    project: Project,
    names: dict[int, str],
    pairs: dict[int, dict[str, Any]],
    done: dict[int, set[int]],
    only: Only = None,
) -> dict[str, list[dict[str, Any]]]:
    rows = list(
        _only(
            Phenomenon.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names)),
            only,
        )
        .order_by("pair__position", "pair_id", "pk")
        .annotate(
            scope1_text=_json_text("scope1"),
            scope2_text=_json_text("scope2"),
            key1_text=_json_text("key1"),
            key2_text=_json_text("key2"),
        )
        .values_list(
            "annotator_id",
            "pair_id",
            "ptype__name",
            "projection",
            "scope1_text",
            "scope2_text",
            "key1_text",
            "key2_text",
            "sense_preserving",
        )
    )
    spans = json.loads("[" + ",".join(f"[{r[4]},{r[5]},{r[6]},{r[7]}]" for r in rows) + "]")
    by_annotator: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for (annotator_id, pair_id, type_name, projection, *_, sense), (s1, s2, key1, key2) in zip(
        rows, spans, strict=True
    ):
        entry = {
            "pair": pairs[pair_id]["id"],
            "type": type_name,
            "s1": s1,
            "s2": s2,
            "projection": projection or None,
            "key1": key1,
            "key2": key2,
        }
        if sense is not None:
            entry["sense_preserving"] = sense
        by_annotator[annotator_id].append(entry)
    return {
        name: by_annotator.get(user_id, [])
        for user_id, name in names.items()
        if by_annotator.get(user_id) or done.get(user_id)
    }


class _LinkCells(Aggregate):
    """The links of a group as one comma-separated string of cells `i·2^20 + j` (decoded in Python)."""

    function = "GROUP_CONCAT"
    output_field = TextField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(
            compiler, connection, function="STRING_AGG", template="%(function)s((%(expressions)s)::text, ',')"
        )


LINK_SHIFT = 1 << 20  # more tokens than any sentence has
LINK_MASK = LINK_SHIFT - 1


def _word_alignments(
    project: Project,
    names: dict[int, str],
    pairs: dict[int, dict[str, Any]],
    done: dict[int, set[int]],
    only: Only = None,
) -> dict[str, dict[str, dict[str, list[list[int]]]]]:
    sheets: dict[int, dict[int, dict[str, list[list[int]]]]] = {user_id: {} for user_id in names}
    groups = list(
        _only(
            AlignmentLink.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names)),
            only,
        )
        .values("annotator_id", "pair_id", "sure")
        .annotate(cells=_LinkCells(F("i") * LINK_SHIFT + F("j")))
        .order_by()
        .values_list("annotator_id", "pair_id", "sure", "cells")
    )
    decoded = json.loads("[" + ",".join(f"[{g[3]}]" for g in groups) + "]")
    for (annotator_id, pair_id, sure, _), cells in zip(groups, decoded, strict=True):
        sheet = sheets[annotator_id].setdefault(pair_id, {"sure": [], "possible": []})
        sheet["sure" if sure else "possible"] = [[c >> 20, c & LINK_MASK] for c in sorted(cells)]
    for user_id, pair_ids in done.items():
        for pair_id in pair_ids:
            sheets[user_id].setdefault(pair_id, {"sure": [], "possible": []})
    out: dict[str, dict[str, dict[str, list[list[int]]]]] = {}
    for user_id, name in names.items():
        if sheets[user_id]:
            # Pair order keeps the document (and its fingerprint) canonical.
            out[name] = {pairs[pk]["id"]: sheets[user_id][pk] for pk in pairs if pk in sheets[user_id]}
    return out


def _system_phrase_alignments(project: Project) -> dict[str, list[dict[str, Any]]]:
    """Registered systems' phrase alignments (SPADE's system benchmark, spec §6), systems with any."""
    out: dict[str, list[dict[str, Any]]] = {}
    rows = (
        SystemAlignment.objects.filter(system__project=project)
        .exclude(phrases=[])
        .order_by("system__name", "pair__position", "pair_id")
        .values_list("system__name", "pair__source_id", "phrases")
    )
    for name, pid, phrases in rows:
        out.setdefault(name, []).extend({"pair": pid, **phrase} for phrase in phrases)
    return out


def _phrase_alignments(
    project: Project, names: dict[int, str], pairs: dict[int, dict[str, Any]], only: Only = None
) -> dict[str, list[dict[str, Any]]]:
    rows = (
        _only(
            PhraseAlignment.objects.filter(
                pair__project=project, is_gold=False, annotator_id__in=list(names)
            ),
            only,
        )
        .order_by("pair__position", "pair_id", "pk")
        .values_list("annotator_id", "pair_id", "node1", "node2", "sure")
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for annotator_id, pair_id, node1, node2, sure in rows:
        pair = pairs[pair_id]
        out.setdefault(names[annotator_id], []).append(
            {
                "pair": pair["id"],
                "s1": node_tokens(pair["nodes1"], node1),
                "s2": node_tokens(pair["nodes2"], node2),
                "label": "sure" if sure else "possible",
            }
        )
    return {name: out[name] for name in names.values() if name in out}


def automatic_phrase_alignments(project: Project, pair_ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """Pair id → the automatic tree phrase alignment `[{"s1", "s2"}]` (token lists), for the given pairs
    that have both trees: the node pairs consistent with κ_C's starting point (the stored initial
    alignment, else the identical-token matcher), `annotator.core.phrase_suggestions`, choice "maximal"."""
    wanted = set(pair_ids)
    if not wanted:
        return {}
    rows = (
        Pair.objects.filter(project=project, source_id__in=wanted)
        .order_by("position", "pk")
        .values_list("source_id", "tokens1", "tokens2", "nodes1", "nodes2", "initial_alignment")
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for source_id, tokens1, tokens2, nodes1, nodes2, initial in rows:
        if not nodes1 or not nodes2:
            continue
        links = baseline_alignment(initial, tokens1, tokens2)
        out[source_id] = [
            {"s1": node_tokens(nodes1, a), "s2": node_tokens(nodes2, b)}
            for a, b in phrase_alignments_from_words(links, nodes1, nodes2)
        ]
    return out


def evaluation_item_ids(project: Project) -> dict[int, str]:
    """EvaluationItem pk → its document id `"<unit source_id>/<item source_id>"`, in unit/item order."""
    rows = (
        EvaluationItem.objects.filter(unit__project=project)
        .order_by("unit__position", "unit_id", "position", "pk")
        .values_list("pk", "unit__source_id", "source_id")
    )
    return {pk: f"{unit_sid}/{item_sid}" for pk, unit_sid, item_sid in rows}


def _evaluations(project: Project, names: dict[int, str]) -> dict[str, Any]:
    items = evaluation_item_ids(project)
    rows = Judgement.objects.filter(item__unit__project=project, rater_id__in=list(names)).values_list(
        "item_id", "rater_id", "step", "phase", "label"
    )
    initial: dict[tuple[int, int], dict[str, str]] = defaultdict(dict)
    revised: dict[tuple[int, int], dict[str, str]] = defaultdict(dict)
    for item_id, rater_id, step, phase, label in rows:
        target = initial if phase == Judgement.Phase.INITIAL else revised
        target[item_id, rater_id]["G" if step == Judgement.Step.GRAMMATICALITY else "M"] = label
    order = {pk: n for n, pk in enumerate(items)}
    rater_order = {user_id: n for n, user_id in enumerate(names)}

    def entries(source: dict[tuple[int, int], dict[str, str]]) -> list[dict[str, str]]:
        keys = sorted(source, key=lambda k: (order[k[0]], rater_order[k[1]]))
        return [{"item": items[i], "rater": names[r], **source[i, r]} for i, r in keys]

    return {
        "raters": list(names.values()),
        "ratings": entries(initial),
        "revisions": entries({key: value for key, value in revised.items() if key in initial}),
    }


def _pair_labels(
    project: Project, names: dict[int, str], pairs: dict[int, dict[str, Any]], only: Only = None
) -> dict[str, dict[str, str]]:
    rows = (
        _only(
            PairLabel.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names)), only
        )
        .exclude(label="")
        .order_by("pair__position", "pair_id")
        .values_list("annotator_id", "pair_id", "label")
    )
    out: dict[str, dict[str, str]] = {}
    for annotator_id, pair_id, label in rows:
        out.setdefault(names[annotator_id], {})[pairs[pair_id]["id"]] = label
    return {name: out[name] for name in names.values() if name in out}


def pairs_document(project: Project, names: dict[int, str], pair_pks: list[int] | PairSpan) -> dict[str, Any]:
    """The document restricted to the pairs `pair_pks` (their sections as in `project_document`, the
    annotators `names`: user id → username), plus `done`: annotator → source ids of those pairs they
    finished: what the exports and the explorer's refresh read, one span of pairs at a time."""
    pairs = _pairs(project, pair_pks)
    doc: dict[str, Any] = {
        "annotators": list(names.values()),
        "pairs": [{"pk": pk, **p} for pk, p in pairs.items()],
    }
    done = _done_pairs(project, names, pair_pks)
    if project.layer_phenomena:
        doc["phenomena"] = _phenomena(project, names, pairs, done, pair_pks)
    if project.layer_word_alignment:
        doc["word_alignments"] = _word_alignments(project, names, pairs, done, pair_pks)
    if project.layer_pair_label:
        doc["pair_labels"] = _pair_labels(project, names, pairs, pair_pks)
    doc["done"] = {
        names[user_id]: {pairs[pk]["id"] for pk in pks if pk in pairs} for user_id, pks in done.items()
    }
    return doc


def document_header(project: Project) -> dict[str, Any]:
    """The document without `pairs` and the per-pair sections (phenomena, word and phrase alignments,
    pair labels), keys in `project_document`'s order: what a reader going through the pairs a chunk at a
    time (`pairs_document`, `pairs_phrase_alignments`) needs besides."""
    names = dict(project_annotators(project))
    doc: dict[str, Any] = {
        "format": DOCUMENT_FORMAT,
        "annotators": list(names.values()),
        "options": dataclasses.asdict(Options()),
        "tagset": {"types": tagset_types(project)},
    }
    if project.layer_phrase_alignment:
        systems = _system_phrase_alignments(project)
        if systems:
            doc["system_phrase_alignments"] = systems
    if project.layer_evaluation:
        doc["evaluations"] = _evaluations(project, names)
    return doc


def pairs_phrase_alignments(
    project: Project, names: dict[int, str], pairs: dict[int, dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """The `phrase_alignments` section restricted to `pairs` (pk → the entries of `pairs_document`'s
    "pairs", with their tree nodes)."""
    return _phrase_alignments(project, names, pairs, list(pairs))


def word_alignment_inputs(
    project: Project, pair_pks: list[int] | None = None
) -> tuple[dict[int, dict[str, Any]], dict[str, dict[str, dict[str, list[list[int]]]]]]:
    """(pair pk → its document fields, annotator → pair id → `{sure, possible}`) of the project's pairs
    (`pair_pks`: only these), as the document's `word_alignments` section holds them, the annotators
    named by their user ids (as text) in id order (`annotator.agreement.pair_parts`)."""
    ids = sorted(
        set(
            Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR).values_list(
                "user_id", flat=True
            )
        )
    )
    names = {user_id: str(user_id) for user_id in ids}
    pairs = _pairs(project, pair_pks)
    done = _done_pairs(project, names, pair_pks)
    return pairs, _word_alignments(project, names, pairs, done, pair_pks)
