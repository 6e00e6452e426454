"""The native format: one JSON document per project (or JSON Lines for large ones) holding everything.

The document IS the metrics interchange document (spec §9 of `shared/specs/agreement-metrics.md`), built
by `annotator.agreement.document.project_document`, so `python -m metrics report FILE.json` re-analyses an
exported project offline with the dashboard's numbers. Everything else a lossless round trip needs is
under one extension key that the metrics library ignores:

    "workbench": {
      "version": 1,
      "project": {name, description, guidelines, layers: [...], phase, phenomena_for},
      "tagset": {name, description, types: [{code, name, type_class, subclass, projection_required,
                 keys_allowed, scope_sides, sense_preserving, colour, shortcut, position, description}]},
      "members": {"leads": [username…], "annotators": [username…]},
      "pairs": {source_id: {position, text1, text2, corpus_labels, tree1, tree2, initial_alignment_source,
                            initial_alignment_version,   # the aligner run (below) that wrote it, or null
                            tree_source,   # "imported" (gold trees), the parser with its model and
                                           # versions ("spacy 3.8.18/en_core_web_sm 3.8.0"), "" (no tree)
                            initial_alignment_stored: false when the pair has none (κ_C's fallback)}},
      "aligner_runs": [{version, settings, status, report}],   # finished runs of the project's aligner
      "systems": {name: {description, alignments: {source_id: {sure: [[i, j]…], possible: [[i, j]…],
                         phrases: [{s1, s2, label}]}}}},       # registered systems and their alignments
      "pair_labels": {annotator: {source_id: {label, comment}}},
      "phenomena_extra": {annotator: [{sense_preserving, comment}, …]},   # same order as "phenomena"
      "phrase_nodes": {annotator: [[node1, node2], …]},                   # same order as "phrase_alignments"
      "sections": {section: …},   # sections of layers that are switched off (not in the metrics part)
      "gold": {"pair_labels": [...], "phenomena": [...], "links": [...], "phrase_alignments": [...]},
      "evaluation_units": [{source_id, position, source_sentence, phrase, phrase_start, phrase_end,
                            items: [{source_id, position, paraphrase, sentence, substitution_start,
                                     substitution_end, candidate_source,
                                     lexicons: {lexicon: score}}]}],   # lexicons only when the item has any
      "judgements": [{item: "<unit>/<item>", rater, step, phase, label, answers}],
      "assignments": [{annotator, pair | unit, phase, round, status, step, queue_position, time_spent}],
      "history": [...]            # only with --history; not imported back
    }

JSON Lines variant (`.jsonl`), for projects too large to hold as one JSON value: the first line is the
header — the document without its per-pair data (format, annotators, options, tagset, evaluations, and
"workbench" without pairs/pair_labels/phenomena_extra/phrase_nodes/gold) plus `"jsonl": 1`; then one line
per pair, in pair order: `{"pair": {id, tokens1, tokens2, initial_alignment}, "workbench": {the pair's
extras}, "phenomena": {annotator: [...]}, "phenomena_extra": {...}, "word_alignments": {annotator: {...}},
"phrase_alignments": {...}, "phrase_nodes": {...}, "pair_labels": {annotator: label},
"workbench_pair_labels": {annotator: {label, comment}}, "gold": {kind: [...]},
"systems": {system: {sure, possible, phrases}}}` (empty parts left out); the header's "systems" keep
each system's description with empty "alignments".
`annotator.corpus.imports.native.from_jsonl` joins the lines into the same document.
"""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any, Protocol, TextIO

from django.db.models import BooleanField, ExpressionWrapper, Q

from annotator.agreement.document import (
    Only,
    PairSpan,
    document_header,
    evaluation_item_ids,
    only_pairs,
    pairs_document,
    pairs_phrase_alignments,
    project_annotators,
    project_document,
)
from annotator.models import (
    AlignerRun,
    AlignmentLink,
    AlignmentSystem,
    AnnotationHistory,
    Assignment,
    EvaluationUnit,
    Judgement,
    LexiconItem,
    Membership,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
    SystemAlignment,
)

VERSION = 1
LAYER_SECTIONS = ("phenomena", "word_alignments", "phrase_alignments", "evaluations", "pair_labels")
TYPE_FIELDS = [
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
PAIR_FIELDS = [
    "position",
    "text1",
    "text2",
    "corpus_labels",
    "tree1",
    "tree2",
    "initial_alignment_source",
    "initial_alignment_version",
    "tree_source",
]
IMPORTED_TREE = "imported"  # `tree_source` of imported (gold) trees, stored as "" in `Pair.tree_source`
FINISHED_RUNS = (AlignerRun.Status.SUCCEEDED, AlignerRun.Status.FAILED)
PER_PAIR = ("pairs", "pair_labels", "phenomena_extra", "phrase_nodes", "gold")
ROWS_PER_READ = 5000  # rows of a long list (assignments, history) read at a time
PAIRS_PER_CHUNK = 2000  # pairs whose lines are read and written at a time (JSON Lines)


def native_document(project: Project, *, history: bool = False) -> dict[str, Any]:
    """The project as one document: the metrics part from `project_document`, plus "workbench"."""
    doc = project_document(project)
    names = _annotator_names(project)
    source_ids = dict(Pair.objects.filter(project=project).values_list("pk", "source_id"))
    doc["workbench"] = {
        "version": VERSION,
        "project": _project(project),
        "tagset": _tagset(project),
        "members": _members(project),
        "pairs": _pairs(project),
        "pair_labels": _pair_labels(project, source_ids),
        "phenomena_extra": _phenomena_extra(project, names),
        "phrase_nodes": _phrase_nodes(project, names),
        "sections": _switched_off_sections(project, doc),
        "gold": _gold(project, source_ids),
        "evaluation_units": _units(project),
        "judgements": _judgements(project),
        "assignments": _assignments(project),
        "aligner_runs": _aligner_runs(project),
        "systems": _systems(project),
    }
    if history:
        doc["workbench"]["history"] = _history(project)
    return doc


def write_native(project: Project, out: TextIO, *, jsonl: bool = False, history: bool = False) -> None:
    if jsonl:
        write_native_jsonl(project, _Encoded(out), history=history)
    else:
        json.dump(native_document(project, history=history), out, ensure_ascii=False)


def _annotator_names(project: Project) -> dict[int, str]:
    """User id → username of the project's annotators."""
    return dict(
        Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR).values_list(
            "user_id", "user__username"
        )
    )


def _project(project: Project) -> dict[str, Any]:
    return {
        "name": project.name,
        "description": project.description,
        "guidelines": project.guidelines,
        "layers": project.layers,
        "phase": project.phase,
        "phenomena_for": project.phenomena_for,
    }


def _tagset(project: Project) -> dict[str, Any] | None:
    tagset = project.tagset
    if tagset is None:
        return None
    types = ParaphraseType.objects.filter(tagset=tagset).order_by("position", "pk").values(*TYPE_FIELDS)
    return {"name": tagset.name, "description": tagset.description, "types": list(types)}


def _members(project: Project) -> dict[str, list[str]]:
    rows = Membership.objects.filter(project=project).values_list("role", "user__username")
    out: dict[str, list[str]] = {"leads": [], "annotators": []}
    for role, username in rows:
        out["leads" if role == Membership.Role.LEAD else "annotators"].append(username)
    return {key: sorted(value) for key, value in out.items()}


def _only(rows: Any, only: Only) -> Any:
    """The rows of the pairs `only` (pks or a span of the pairs' order), or all when None."""
    return only_pairs(rows, only)


def _pairs(project: Project, only: Only = None) -> dict[str, dict[str, Any]]:
    """Each pair's extras (`only`: of these pair pks). A pair without a stored initial alignment says so:
    its `initial_alignment` in the metrics part is κ_C's identical-token fallback, which an import must
    not store."""
    pairs = Pair.objects.filter(project=project)
    rows = (
        only_pairs(pairs, only, prefix="")
        .order_by("position", "pk")
        .annotate(unstored=ExpressionWrapper(Q(initial_alignment__isnull=True), output_field=BooleanField()))
        .values_list("source_id", *PAIR_FIELDS, "unstored")
    )
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        extra = out[row[0]] = dict(zip(PAIR_FIELDS, row[1:-1], strict=True))
        if not extra["tree_source"] and (extra["tree1"] or extra["tree2"]):
            extra["tree_source"] = IMPORTED_TREE
        if row[-1]:
            extra["initial_alignment_stored"] = False
    return out


def _aligner_runs(project: Project) -> list[dict[str, Any]]:
    """The finished runs of the project's aligner, oldest first (what each pair's version refers to)."""
    rows = (
        AlignerRun.objects.filter(project=project, status__in=FINISHED_RUNS)
        .order_by("version")
        .values("version", "settings", "status", "report")
    )
    return [dict(row) for row in rows]


def _systems(project: Project, only: Only = None) -> dict[str, dict[str, Any]]:
    """Registered systems with their imported alignments (`only`: on these pair pks), by name; pairs in
    pair order."""
    systems: dict[str, dict[str, Any]] = {
        name: {"description": description, "alignments": {}}
        for name, description in AlignmentSystem.objects.filter(project=project)
        .order_by("name")
        .values_list("name", "description")
    }
    rows = (
        _only(SystemAlignment.objects.filter(system__project=project), only)
        .order_by("system__name", "pair__position", "pair_id")
        .values_list("system__name", "pair__source_id", "sure", "possible", "phrases")
    )
    for name, source_id, sure, possible, phrases in rows:
        systems[name]["alignments"][source_id] = {"sure": sure, "possible": possible, "phrases": phrases}
    return systems


def _pair_labels(
    project: Project, source_ids: dict[int, str], only: Only = None
) -> dict[str, dict[str, dict[str, str]]]:
    rows = (
        _only(PairLabel.objects.filter(pair__project=project, is_gold=False), only)
        .exclude(label="", comment="")
        .order_by("annotator__username", "pair__position", "pair_id")
        .values_list("annotator__username", "pair_id", "label", "comment")
    )
    out: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for username, pair_id, label, comment in rows:
        out[username][source_ids[pair_id]] = {"label": label, "comment": comment}
    return dict(out)


def _phenomena_extra(project: Project, names: dict[int, str], only: Only = None) -> dict[str, list[Any]]:
    """sense_preserving and comment of each phenomenon, in the order of the document's "phenomena"."""
    rows = (
        _only(
            Phenomenon.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names)),
            only,
        )
        .order_by("pair__position", "pair_id", "pk")
        .values_list("annotator_id", "sense_preserving", "comment")
    )
    out: dict[str, list[Any]] = defaultdict(list)
    for annotator_id, sense, comment in rows:
        out[names[annotator_id]].append({"sense_preserving": sense, "comment": comment})
    return {name: out[name] for name in sorted(out)}


def _phrase_nodes(project: Project, names: dict[int, str], only: Only = None) -> dict[str, list[list[Any]]]:
    rows = (
        _only(
            PhraseAlignment.objects.filter(
                pair__project=project, is_gold=False, annotator_id__in=list(names)
            ),
            only,
        )
        .order_by("pair__position", "pair_id", "pk")
        .values_list("annotator_id", "node1", "node2")
    )
    out: dict[str, list[list[Any]]] = defaultdict(list)
    for annotator_id, node1, node2 in rows:
        out[names[annotator_id]].append([node1, node2])
    return {name: out[name] for name in sorted(out)}


def _switched_off_sections(project: Project, doc: dict[str, Any]) -> dict[str, Any]:
    """Annotations of layers that are off: not in the metrics part, kept here so nothing is lost."""
    missing = [s for s in LAYER_SECTIONS if s not in doc and _has_rows(project, s)]
    if not missing:
        return {}
    everything = copy.copy(project)
    for layer in ("pair_label", "phenomena", "word_alignment", "phrase_alignment", "evaluation"):
        setattr(everything, f"layer_{layer}", True)
    full = project_document(everything)
    return {s: full[s] for s in missing if _has_content(full.get(s))}


def _has_rows(project: Project, section: str) -> bool:
    """Whether the project has any rows of a section (a cheap check before building it)."""
    model: Any = {
        "phenomena": Phenomenon,
        "word_alignments": AlignmentLink,
        "phrase_alignments": PhraseAlignment,
        "pair_labels": PairLabel,
        "evaluations": Judgement,
    }[section]
    if section == "evaluations":
        return model.objects.filter(item__unit__project=project).exists()
    return model.objects.filter(pair__project=project, is_gold=False).exists()


def _has_content(section: Any) -> bool:
    if isinstance(section, dict):
        return any(_has_content(v) for k, v in section.items() if k != "raters")
    if isinstance(section, list):
        return bool(section)
    return section is not None


def _gold(project: Project, source_ids: dict[int, str], only: Only = None) -> dict[str, list[dict[str, Any]]]:
    base = {"pair__project": project, "is_gold": True}
    order = ("pair__position", "pair_id", "pk")

    def rows(model: Any, *fields: str) -> list[dict[str, Any]]:
        out = []
        for row in (
            _only(model.objects.filter(**base), only)
            .order_by(*order)
            .values("annotator__username", "pair_id", *fields)
        ):
            row["annotator"] = row.pop("annotator__username")
            row["pair"] = source_ids[row.pop("pair_id")]
            out.append(row)
        return out

    gold = {
        "pair_labels": rows(PairLabel, "label", "comment"),
        "phenomena": rows(
            Phenomenon,
            "ptype__name",
            "scope1",
            "scope2",
            "projection",
            "key1",
            "key2",
            "sense_preserving",
            "comment",
        ),
        "links": rows(AlignmentLink, "i", "j", "sure"),
        "phrase_alignments": rows(PhraseAlignment, "node1", "node2", "sure"),
    }
    for row in gold["phenomena"]:
        row["type"] = row.pop("ptype__name")
    return {kind: value for kind, value in gold.items() if value}


def _units(project: Project) -> list[dict[str, Any]]:
    units = (
        EvaluationUnit.objects.filter(project=project).order_by("position", "pk").prefetch_related("items")
    )
    lexicons: dict[int, dict[str, float | None]] = {}
    rows = LexiconItem.objects.filter(lexicon__project=project).values_list(
        "item_id", "lexicon__name", "score"
    )
    for item_id, name, score in rows.order_by("lexicon__name"):
        lexicons.setdefault(item_id, {})[name] = score
    return [
        {
            "source_id": unit.source_id,
            "position": unit.position,
            "source_sentence": unit.source_sentence,
            "phrase": unit.phrase,
            "phrase_start": unit.phrase_start,
            "phrase_end": unit.phrase_end,
            "items": [
                {
                    "source_id": item.source_id,
                    "position": item.position,
                    "paraphrase": item.paraphrase,
                    "sentence": item.sentence,
                    "substitution_start": item.substitution_start,
                    "substitution_end": item.substitution_end,
                    "candidate_source": item.candidate_source,
                    **({"lexicons": lexicons[item.pk]} if item.pk in lexicons else {}),
                }
                for item in sorted(unit.items.all(), key=lambda i: (i.position, i.pk))
            ],
        }
        for unit in units
    ]


def _judgements(project: Project) -> list[dict[str, Any]]:
    items = evaluation_item_ids(project)
    order = {item_id: n for n, item_id in enumerate(items.values())}
    rows = Judgement.objects.filter(item__unit__project=project).values_list(
        "item_id", "rater__username", "step", "phase", "label", "answers"
    )
    out = [
        {"item": items[i], "rater": r, "step": s, "phase": p, "label": label, "answers": answers}
        for i, r, s, p, label, answers in rows
    ]
    return sorted(out, key=lambda j: (order[j["item"]], j["rater"], j["step"], j["phase"]))


def _assignments(project: Project) -> list[dict[str, Any]]:
    return list(_iter_assignments(project))


def _iter_assignments(project: Project) -> Iterator[dict[str, Any]]:
    """The project's assignments one at a time (read a block of rows at a time)."""
    rows = (
        Assignment.objects.filter(project=project)
        .order_by("annotator__username", "round", "queue_position", "pair__position", "unit__position", "pk")
        .values(
            "annotator__username",
            "pair__source_id",
            "unit__source_id",
            "phase",
            "round",
            "status",
            "step",
            "queue_position",
            "time_spent",
        )
    )
    for row in rows.iterator(chunk_size=ROWS_PER_READ):
        entry: dict[str, Any] = {"annotator": row["annotator__username"]}
        pair = row["pair__source_id"]
        entry.update({"pair": pair} if pair is not None else {"unit": row["unit__source_id"]})
        entry.update(
            (k, v)
            for k, v in row.items()
            if k not in ("annotator__username", "pair__source_id", "unit__source_id")
        )
        yield entry


def _history(project: Project) -> list[dict[str, Any]]:
    return list(_iter_history(project))


def _iter_history(project: Project) -> Iterator[dict[str, Any]]:
    """The project's annotation history one entry at a time, oldest first."""
    rows = (
        AnnotationHistory.objects.filter(project=project)
        .order_by("at", "pk")
        .values(
            "pair__source_id",
            "unit__source_id",
            "owner__username",
            "actor__username",
            "model",
            "object_id",
            "action",
            "before",
            "after",
            "at",
        )
    )
    return (
        {
            "pair": row["pair__source_id"],
            "unit": row["unit__source_id"],
            "owner": row["owner__username"],
            "actor": row["actor__username"],
            "model": row["model"],
            "object_id": row["object_id"],
            "action": row["action"],
            "before": row["before"],
            "after": row["after"],
            "at": row["at"].isoformat(),
        }
        for row in rows.iterator(chunk_size=ROWS_PER_READ)
    )


# ---- JSON Lines -------------------------------------------------------------------------------------


def to_jsonl(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The document as a header line and one line per pair (see the module docstring)."""
    header = {
        key: value for key, value in doc.items() if key not in ("pairs", *LAYER_SECTIONS[:3], "pair_labels")
    }
    header["jsonl"] = 1
    if "evaluations" in doc:
        header["evaluations"] = doc["evaluations"]
    workbench = doc.get("workbench", {})
    header["workbench"] = {key: value for key, value in workbench.items() if key not in PER_PAIR}
    if "systems" in workbench:
        header["workbench"]["systems"] = {
            name: {**system, "alignments": {}} for name, system in workbench["systems"].items()
        }
    # Which annotators each per-pair section lists (some have an entry without any rows, e.g. a done pair).
    header["section_annotators"] = {
        s: list(doc[s])
        for s in ("phenomena", "word_alignments", "phrase_alignments", "pair_labels")
        if s in doc
    }
    lines: dict[str, dict[str, Any]] = {}
    for pair in doc.get("pairs", []):
        line: dict[str, Any] = {"pair": pair}
        extra = workbench.get("pairs", {}).get(pair["id"])
        if extra is not None:
            line["workbench"] = extra
        lines[pair["id"]] = line
    _split_listed(doc, workbench, lines)
    _split_by_pair(doc, workbench, lines)
    return [header, *lines.values()]


def _put(
    lines: dict[str, dict[str, Any]], pair_id: str, part: str, key: str, value: Any, *, append: bool
) -> None:
    target = lines[pair_id].setdefault(part, {})
    if append:
        target.setdefault(key, []).append(value)
    else:
        target[key] = value


GOLD = "gold"


def _split_listed(doc: dict[str, Any], workbench: dict[str, Any], lines: dict[str, dict[str, Any]]) -> None:
    """Phenomena and phrase alignments (lists of entries naming their pair), with their workbench
    extras, onto their pairs' lines."""
    for section, extra_key in (("phenomena", "phenomena_extra"), ("phrase_alignments", "phrase_nodes")):
        for annotator, entries in (doc.get(section) or {}).items():
            extras = workbench.get(extra_key, {}).get(annotator)
            for n, entry in enumerate(entries):
                _put(lines, entry["pair"], section, annotator, entry, append=True)
                if extras is not None:
                    _put(lines, entry["pair"], extra_key, annotator, extras[n], append=True)


def _split_by_pair(doc: dict[str, Any], workbench: dict[str, Any], lines: dict[str, dict[str, Any]]) -> None:
    """The sections keyed by pair (word alignments, pair labels, the workbench's labels), the gold rows
    and the systems' alignments onto their pairs' lines, in that order."""
    keyed: tuple[tuple[str, dict[str, Any]], ...] = (
        ("word_alignments", doc.get("word_alignments") or {}),
        ("pair_labels", doc.get("pair_labels") or {}),
        ("workbench_pair_labels", workbench.get("pair_labels", {})),
        (GOLD, {}),
        ("systems", {name: system["alignments"] for name, system in workbench.get("systems", {}).items()}),
    )
    for part, by_key in keyed:
        if part == GOLD:
            for kind, rows in workbench.get("gold", {}).items():
                for row in rows:
                    lines[row["pair"]].setdefault("gold", {}).setdefault(kind, []).append(row)
        for key, by_pair in by_key.items():
            for pair_id, value in by_pair.items():
                _put(lines, pair_id, part, key, value, append=False)


# ---- JSON Lines, written as read ---------------------------------------------------------------------


class Writer(Protocol):
    def write(self, data: bytes, /) -> Any: ...


class _Encoded:
    """A text file seen as a binary one (UTF-8)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, data: bytes, /) -> Any:
        return self.out.write(data.decode("utf-8"))


class _Listed:
    """A JSON array written an item at a time."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


class _Object:
    """A JSON object written a member at a time (its values may be _Listed or _Object)."""

    def __init__(self, members: Iterable[tuple[str, Any]]) -> None:
        self.members = members


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def _write_value(out: Writer, value: Any) -> None:
    """`value` as `json.dumps(…, ensure_ascii=False)` writes it, byte for byte."""
    if isinstance(value, _Listed):
        out.write(b"[")
        for n, item in enumerate(value.items):
            out.write(b", " + _dumps(item) if n else _dumps(item))
        out.write(b"]")
    elif isinstance(value, _Object):
        out.write(b"{")
        for n, (key, member) in enumerate(value.members):
            out.write((b", " if n else b"") + _dumps(key) + b": ")
            _write_value(out, member)
        out.write(b"}")
    else:
        out.write(_dumps(value))


def write_native_jsonl(
    project: Project, out: Writer, *, history: bool = False, chunk: int | None = None
) -> None:
    """The JSON Lines variant (the bytes of `to_jsonl(native_document(…))`, one line each), written as it
    is read: the header's long lists (assignments, history) a block of rows at a time, then the pairs'
    lines `chunk` (PAIRS_PER_CHUNK) pairs at a time, so memory does not grow with the project."""
    _write_value(out, _Object(_header(project, history=history)))
    out.write(b"\n")
    for line in _pair_lines(project, chunk or PAIRS_PER_CHUNK):
        out.write(_dumps(line) + b"\n")


def _header(project: Project, *, history: bool) -> Iterator[tuple[str, Any]]:
    """The header line's members in `to_jsonl`'s order."""
    head = document_header(project)
    yield from head.items()
    workbench: list[tuple[str, Any]] = [
        ("version", VERSION),
        ("project", _project(project)),
        ("tagset", _tagset(project)),
        ("members", _members(project)),
        ("sections", _switched_off_sections(project, head | _layer_keys(project))),
        ("evaluation_units", _units(project)),
        ("judgements", _judgements(project)),
        ("assignments", _Listed(_iter_assignments(project))),
        ("aligner_runs", _aligner_runs(project)),
        ("systems", _systems(project, only=[])),
    ]
    if history:
        workbench.append(("history", _Listed(_iter_history(project))))
    yield "workbench", _Object(workbench)
    yield "jsonl", 1
    yield "section_annotators", _section_annotators(project, dict(project_annotators(project)))


def _layer_keys(project: Project) -> dict[str, Any]:
    """The per-pair sections the project's document has (values unread: `_switched_off_sections` only
    asks which are there)."""
    on = {
        "phenomena": project.layer_phenomena,
        "word_alignments": project.layer_word_alignment,
        "phrase_alignments": project.layer_phrase_alignment,
        "evaluations": project.layer_evaluation,
        "pair_labels": project.layer_pair_label,
    }
    return {section: None for section, layer in on.items() if layer}


def _section_annotators(project: Project, names: dict[int, str]) -> dict[str, list[str]]:
    """Which annotators each per-pair section of the whole document lists, in its order: those with a
    row of it, and for phenomena and word alignments also those with a finished pair."""
    done = set(
        Assignment.objects.filter(
            project=project, pair__isnull=False, status=Assignment.Status.DONE, annotator_id__in=list(names)
        )
        .order_by()
        .values_list("annotator_id", flat=True)
        .distinct()
    )

    def having(model: Any) -> set[int]:
        rows = model.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names))
        if model is PairLabel:
            rows = rows.exclude(label="")
        return set(rows.order_by().values_list("annotator_id", flat=True).distinct())

    sections = (
        ("phenomena", project.layer_phenomena, lambda: having(Phenomenon) | done),
        ("word_alignments", project.layer_word_alignment, lambda: having(AlignmentLink) | done),
        ("phrase_alignments", project.layer_phrase_alignment, lambda: having(PhraseAlignment)),
        ("pair_labels", project.layer_pair_label, lambda: having(PairLabel)),
    )
    out: dict[str, list[str]] = {}
    for section, on, listed in sections:
        if on:
            users = listed()
            out[section] = [name for user_id, name in names.items() if user_id in users]
    return out


def _pair_lines(project: Project, chunk: int) -> Iterator[dict[str, Any]]:
    """The pairs' lines, in pair order, built `chunk` pairs at a time by `to_jsonl` from the document
    restricted to those pairs."""
    names = dict(project_annotators(project))
    members = _annotator_names(project)
    # Tables the project has no rows in are not read again for every chunk.
    gold = any(
        model.objects.filter(pair__project=project, is_gold=True).exists()
        for model in (PairLabel, Phenomenon, AlignmentLink, PhraseAlignment)
    )
    systems = AlignmentSystem.objects.filter(project=project).exists()
    ordered = Pair.objects.filter(project=project).order_by("position", "pk")
    after: tuple[int, int] | None = None
    while True:
        page = ordered
        if after is not None:
            page = page.filter(Q(position__gt=after[0]) | Q(position=after[0], pk__gt=after[1]))
        keys = list(page.values_list("position", "pk")[:chunk])
        if not keys:
            return
        span = PairSpan(after, keys[-1])
        after = keys[-1]
        doc = _chunk_document(project, names, members, span, gold=gold, systems=systems)
        yield from to_jsonl(doc)[1:]


def _chunk_document(
    project: Project,
    names: dict[int, str],
    members: dict[int, str],
    pks: list[int] | PairSpan,
    *,
    gold: bool = True,
    systems: bool = True,
) -> dict[str, Any]:
    """The native document's per-pair parts for the pairs `pks` (a list or a span; what `to_jsonl` splits into lines);
    `names`: the document's annotators, `members`: `_annotator_names`; `gold`, `systems`: False when the
    project has no gold rows, no systems (they are not read)."""
    part = pairs_document(project, names, pks)
    pairs = {p["pk"]: p for p in part["pairs"]}
    source_ids = {pk: p["id"] for pk, p in pairs.items()}
    doc: dict[str, Any] = {
        "pairs": [
            {key: p[key] for key in ("id", "tokens1", "tokens2", "initial_alignment")} for p in pairs.values()
        ]
    }
    doc.update((s, part[s]) for s in ("phenomena", "word_alignments", "pair_labels") if s in part)
    if project.layer_phrase_alignment:
        doc["phrase_alignments"] = pairs_phrase_alignments(project, names, pairs)
    doc["workbench"] = {
        "pairs": _pairs(project, pks),
        "pair_labels": _pair_labels(project, source_ids, pks),
        "phenomena_extra": _phenomena_extra(project, members, pks),
        "phrase_nodes": _phrase_nodes(project, members, pks),
        "gold": _gold(project, source_ids, pks) if gold else {},
        "systems": _systems(project, pks) if systems else {},
    }
    return doc
