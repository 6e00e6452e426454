"""The shape of a native document's "workbench" section, checked before anything is written.

String lengths and choices come from the model columns the values are written to, so a value the
database would refuse (a colour of 8 characters, a username of 151) is named here with its JSON path.
References between parts (a gold row's pair, a judgement's item) are checked against the document.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import models

from annotator.corpus.exports.native import FINISHED_RUNS, PAIR_FIELDS, TYPE_FIELDS
from annotator.corpus.limits import (
    POSITION_MAX,
    AnyJson,
    Bool,
    Int,
    ListOf,
    MapOf,
    Nullable,
    Number,
    Obj,
    Spec,
    Str,
    check,
)
from annotator.models import (
    AlignmentSystem,
    Assignment,
    EvaluationItem,
    EvaluationUnit,
    Judgement,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    Project,
    Tagset,
)


def column(model: type[models.Model], name: str) -> Spec:
    """The spec of a value written to `model.name`: its type, length and choices."""
    f = model._meta.get_field(name)
    spec: Spec
    if isinstance(f, models.CharField):
        choices = tuple(str(value) for value, _ in f.choices or ())
        spec = Str(f.max_length or 0, choices + ("",) if choices and f.blank else choices)
    elif isinstance(f, models.TextField):
        spec = Str()
    elif isinstance(f, models.PositiveIntegerField):
        spec = Int(0, POSITION_MAX)
    elif isinstance(f, models.IntegerField):
        spec = Int()
    elif isinstance(f, models.BooleanField):
        spec = Bool()
    elif isinstance(f, models.JSONField):
        spec = AnyJson()
    else:  # pragma: no cover - a new column type needs a spec here
        raise TypeError(f"no spec for {model.__name__}.{name}")
    return Nullable(spec) if f.null else spec


def columns(model: type[models.Model], *names: str) -> dict[str, Spec]:
    return {name: column(model, name) for name in names}


USERNAME = Str(get_user_model()._meta.get_field("username").max_length or 150)
SOURCE_ID = Str(Pair._meta.get_field("source_id").max_length or 120)
INDEX = Int(0, POSITION_MAX)
SPAN = ListOf(INDEX)
NODE = Nullable(INDEX)
LINKS = ListOf(ListOf(INDEX, length=2))
SYSTEM_ALIGNMENT = Obj(
    {
        "sure": LINKS,
        "possible": LINKS,
        "phrases": ListOf(
            Obj(
                {"s1": SPAN, "s2": SPAN, "label": Str(8, ("sure", "possible"))},
                required=("s1", "s2", "label"),
                extra=False,
            )
        ),
    },
    extra=False,
)

TYPE = Obj(columns(ParaphraseType, *TYPE_FIELDS), required=("name",))

WORKBENCH = Obj(
    {
        "version": Int(),
        "project": Nullable(
            Obj(
                {
                    "name": column(Project, "name"),
                    "description": Str(),
                    "guidelines": Str(),
                    "layers": ListOf(
                        Str(
                            20,
                            ("pair_label", "phenomena", "word_alignment", "phrase_alignment", "evaluation"),
                        )
                    ),
                    "phase": column(Project, "phase"),
                    "phenomena_for": column(Project, "phenomena_for"),
                }
            )
        ),
        "tagset": Nullable(
            Obj(
                {**columns(Tagset, "name", "description"), "types": ListOf(TYPE, max_items=1000)},
                required=("name", "types"),
            )
        ),
        "members": Obj({"leads": ListOf(USERNAME), "annotators": ListOf(USERNAME)}),
        "pairs": MapOf(SOURCE_ID, Obj(columns(Pair, *PAIR_FIELDS))),
        "aligner_runs": ListOf(
            Obj(
                {
                    "version": Int(1, POSITION_MAX),
                    "settings": Obj({"backend": Str(40), "symmetrize": Str(40)}, required=("backend",)),
                    "status": Str(16, tuple(str(s) for s in FINISHED_RUNS)),
                    "report": AnyJson(),
                },
                required=("version", "settings", "status"),
            )
        ),
        "systems": MapOf(
            Str(AlignmentSystem._meta.get_field("name").max_length or 60),
            Obj(
                {"description": Str(), "alignments": MapOf(SOURCE_ID, SYSTEM_ALIGNMENT)},
                required=("alignments",),
            ),
        ),
        "pair_labels": MapOf(
            USERNAME,
            MapOf(SOURCE_ID, Obj(columns(PairLabel, "label", "comment"), required=("label",))),
        ),
        "phenomena_extra": MapOf(USERNAME, ListOf(Obj(columns(Phenomenon, "sense_preserving", "comment")))),
        "phrase_nodes": MapOf(USERNAME, ListOf(ListOf(NODE, length=2))),
        "sections": Obj(
            {
                name: AnyJson()
                for name in (
                    "phenomena",
                    "word_alignments",
                    "phrase_alignments",
                    "evaluations",
                    "pair_labels",
                )
            },
            extra=False,
        ),
        "gold": Obj(
            {
                "pair_labels": ListOf(
                    Obj(
                        {"annotator": USERNAME, "pair": SOURCE_ID, **columns(PairLabel, "label", "comment")},
                        required=("annotator", "pair", "label"),
                    )
                ),
                "phenomena": ListOf(
                    Obj(
                        {
                            "annotator": USERNAME,
                            "pair": SOURCE_ID,
                            "type": Str(120),
                            "scope1": SPAN,
                            "scope2": SPAN,
                            "projection": Nullable(column(Phenomenon, "projection")),
                            "key1": Nullable(SPAN),
                            "key2": Nullable(SPAN),
                            **columns(Phenomenon, "sense_preserving", "comment"),
                        },
                        required=("annotator", "pair", "type", "scope1", "scope2"),
                    )
                ),
                "links": ListOf(
                    Obj(
                        {"annotator": USERNAME, "pair": SOURCE_ID, "i": INDEX, "j": INDEX, "sure": Bool()},
                        required=("annotator", "pair", "i", "j", "sure"),
                    )
                ),
                "phrase_alignments": ListOf(
                    Obj(
                        {
                            "annotator": USERNAME,
                            "pair": SOURCE_ID,
                            "node1": NODE,
                            "node2": NODE,
                            "sure": Bool(),
                        },
                        required=("annotator", "pair", "node1", "node2", "sure"),
                    )
                ),
            }
        ),
        "evaluation_units": ListOf(
            Obj(
                {
                    **columns(
                        EvaluationUnit,
                        "source_id",
                        "position",
                        "source_sentence",
                        "phrase",
                        "phrase_start",
                        "phrase_end",
                    ),
                    "items": ListOf(
                        Obj(
                            columns(
                                EvaluationItem,
                                "source_id",
                                "position",
                                "paraphrase",
                                "sentence",
                                "substitution_start",
                                "substitution_end",
                                "candidate_source",
                            )
                            # the lexicons the item comes from, with the lexicon's score (Fujita)
                            | {"lexicons": MapOf(Str(max_length=120), Nullable(Number()))},
                            required=(
                                "source_id",
                                "paraphrase",
                                "sentence",
                                "substitution_start",
                                "substitution_end",
                            ),
                            extra=False,
                        )
                    ),
                },
                required=("source_id", "source_sentence", "phrase", "phrase_start", "phrase_end", "items"),
                extra=False,
            )
        ),
        "judgements": ListOf(
            Obj(
                {
                    "item": Str(241),
                    "rater": USERNAME,
                    **columns(Judgement, "step", "phase", "label", "answers"),
                },
                required=("item", "rater", "step", "phase", "label"),
            )
        ),
        "assignments": ListOf(
            Obj(
                {
                    "annotator": USERNAME,
                    "pair": SOURCE_ID,
                    "unit": column(EvaluationUnit, "source_id"),
                    **columns(Assignment, "phase", "round", "status", "step", "queue_position", "time_spent"),
                },
                required=("annotator", "phase", "round", "status", "step", "queue_position", "time_spent"),
            )
        ),
        "history": ListOf(AnyJson()),
    },
    required=("version",),
)


#: The gold parts the importer reads (`workbench.gold.<kind>`).
GOLD_KINDS = tuple(WORKBENCH.fields["gold"].fields)  # type: ignore[attr-defined]


def document_problems(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """`(path, message)` for every value the metrics reader lets through but a column would refuse."""
    found = [
        (f"pairs[{n}].id", f"{len(pair['id'])} characters; at most {SOURCE_ID.max_length} are allowed")
        for n, pair in enumerate(doc.get("pairs", []))
        if len(pair["id"]) > SOURCE_ID.max_length
    ]
    found += [
        (f"tagset.types[{n}].name", f"{len(t['name'])} characters; at most 120 are allowed")
        for n, t in enumerate((doc.get("tagset") or {}).get("types") or [])
        if isinstance(t, dict) and isinstance(t.get("name"), str) and len(t["name"]) > 120
    ]
    if "workbench" in doc:
        found += workbench_problems(doc)
    return found[:50]


def _aligner_problems(wb: dict[str, Any]) -> list[tuple[str, str]]:
    """Run versions unique; a pair's initial alignment version names one of the document's runs."""
    found: list[tuple[str, str]] = []
    versions: set[int] = set()
    for n, run in enumerate(wb.get("aligner_runs", [])):
        if run["version"] in versions:
            found.append((f"workbench.aligner_runs[{n}].version", f"version {run['version']} given twice"))
        versions.add(run["version"])
    for sid, extra in wb.get("pairs", {}).items():
        version = extra.get("initial_alignment_version")
        if version is not None and version not in versions:
            found.append(
                (
                    f"workbench.pairs.{sid}.initial_alignment_version",
                    f"no aligner run {version} in workbench.aligner_runs",
                )
            )
    return found


def _system_problems(doc: dict[str, Any], wb: dict[str, Any]) -> list[tuple[str, str]]:
    """Each system alignment's pair is in the document and its indices are within the pair's members."""
    found: list[tuple[str, str]] = []
    lengths = {p["id"]: (len(p["tokens1"]), len(p["tokens2"])) for p in doc.get("pairs", [])}
    for name, system in wb.get("systems", {}).items():
        if not name.strip():
            found.append(("workbench.systems", "a system without a name"))
        for sid, alignment in system["alignments"].items():
            at = f"workbench.systems.{name}.alignments.{sid}"
            if sid not in lengths:
                found.append((at, "no pair with this id in the document's pairs"))
                continue
            n1, n2 = lengths[sid]
            for kind in ("sure", "possible"):
                for n, (i, j) in enumerate(alignment.get(kind, [])):
                    if i >= n1 or j >= n2:
                        found.append(
                            (
                                f"{at}.{kind}[{n}]",
                                f"link {i}-{j} outside the pair's members ({n1} and {n2} tokens)",
                            )
                        )
            for n, phrase in enumerate(alignment.get("phrases", [])):
                for key, size in (("s1", n1), ("s2", n2)):
                    outside = [x for x in phrase[key] if x >= size]
                    if outside:
                        found.append(
                            (
                                f"{at}.phrases[{n}].{key}",
                                f"token {outside[0]} outside member {key[1]} ({size} tokens)",
                            )
                        )
                if not phrase["s1"] and not phrase["s2"]:
                    found.append((f"{at}.phrases[{n}]", "s1 and s2 are both empty"))
    return found


def _assignment_problems(wb: dict[str, Any], pairs: set[str]) -> list[tuple[str, str]]:
    """Each assignment names either a pair or a unit of the document."""
    found: list[tuple[str, str]] = []
    units = {u["source_id"] for u in wb.get("evaluation_units", [])}
    for n, row in enumerate(wb.get("assignments", [])):
        if ("pair" in row) == ("unit" in row):
            found.append((f"workbench.assignments[{n}]", "expected either a pair or a unit"))
        elif "pair" in row and row["pair"] not in pairs:
            found.append((f"workbench.assignments[{n}].pair", f"no pair {row['pair']!r} in the document"))
        elif "unit" in row and row["unit"] not in units:
            found.append((f"workbench.assignments[{n}].unit", f"no unit {row['unit']!r} in the document"))
    return found


def _extra_count_problems(doc: dict[str, Any], wb: dict[str, Any]) -> list[tuple[str, str]]:
    """The per-annotator extras (phenomena extras, phrase nodes) have one entry per row they extend."""
    found: list[tuple[str, str]] = []
    sections = {**wb.get("sections", {}), **doc}
    phenomena = sections.get("phenomena") or {}
    for annotator, extras in wb.get("phenomena_extra", {}).items():
        if len(extras) != len(phenomena.get(annotator, [])):
            found.append(
                (
                    f"workbench.phenomena_extra.{annotator}",
                    "expected one entry per phenomenon of this annotator",
                )
            )
    phrase = sections.get("phrase_alignments") or {}
    for annotator, nodes in wb.get("phrase_nodes", {}).items():
        if len(nodes) != len(phrase.get(annotator, [])):
            found.append(
                (
                    f"workbench.phrase_nodes.{annotator}",
                    "expected one entry per phrase alignment of this annotator",
                )
            )
    return found


def workbench_problems(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """`(path, message)` for every value of doc["workbench"] of the wrong type, size or reference."""
    wb = doc.get("workbench")
    found = check(wb, WORKBENCH, "workbench")
    if found or not isinstance(wb, dict):
        return found
    if wb["version"] != 1:
        return [("workbench.version", "expected version 1 of the workbench extension")]
    pairs = {p["id"] for p in doc.get("pairs", [])}
    for sid in wb.get("pairs", {}):
        if sid not in pairs:
            found.append((f"workbench.pairs.{sid}", "no pair with this id in the document's pairs"))
    found += _aligner_problems(wb)
    found += _system_problems(doc, wb)
    for annotator, by_pair in wb.get("pair_labels", {}).items():
        found += [
            (f"workbench.pair_labels.{annotator}.{sid}", "no pair with this id in the document's pairs")
            for sid in by_pair
            if sid not in pairs
        ]
    for kind, rows in wb.get("gold", {}).items():
        if kind not in GOLD_KINDS:
            continue  # an unknown part (a newer exporter's) is not read, so its rows are not checked
        found += [
            (f"workbench.gold.{kind}[{n}].pair", f"no pair {row['pair']!r} in the document's pairs")
            for n, row in enumerate(rows)
            if row["pair"] not in pairs
        ]
    found += _assignment_problems(wb, pairs)
    found += _extra_count_problems(doc, wb)
    return found[:50]
