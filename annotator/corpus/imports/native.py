"""The native format (see `annotator.corpus.exports.native` for its layout) → a validated document.

JSON or JSON Lines (recognised by the first line carrying `"jsonl": 1`). The metrics part is validated
by the metrics library's own reader (`metrics.document.parse_document`), whose messages name the JSON
path of the offending value (`phenomena.B[3].s1[2]: …`); the "workbench" part is checked as it is written.
"""

from __future__ import annotations

import json
from typing import Any

from annotator.core.limits import AnyJson, JsonLimitError, ListOf, MapOf, Nullable, Obj, Str, check, load_json
from annotator.corpus.imports.native_schema import document_problems
from annotator.corpus.imports.problems import Problem
from annotator.corpus.imports.reading import decode_utf8
from metrics.document import parse_document
from metrics.types import DocumentError

PER_PAIR_SECTIONS = ("phenomena", "phrase_alignments")


def parse_native(data: bytes, filename: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The document of a native JSON/JSONL file, or the problems that make it unusable."""
    text, problems = decode_utf8(data, filename)
    if text is None:
        return None, problems
    first = text.lstrip().split("\n", 1)[0]
    try:
        head = load_json(first) if first.strip().startswith("{") else None
    except (json.JSONDecodeError, JsonLimitError):
        head = None
    if isinstance(head, dict) and head.get("jsonl") == 1:
        lines, problems = _jsonl_lines(text, filename)
        if problems:
            return None, problems
        doc, problems = _joined(lines, filename)
        if doc is None:
            return None, problems
    else:
        try:
            doc = load_json(text)
        except json.JSONDecodeError as exc:
            return None, [Problem(filename, exc.lineno, "json", f"{exc.msg} at column {exc.colno}")]
        except JsonLimitError as exc:
            return None, [Problem(filename, exc.line, exc.field, exc.message)]
    if not isinstance(doc, dict):
        return None, [Problem(filename, 1, "json", "expected a JSON object (the interchange document)")]
    metrics_part = {key: value for key, value in doc.items() if key != "workbench"}
    try:
        parse_document(metrics_part, source=filename)
    except DocumentError as exc:
        return None, [Problem(filename, None, exc.field, exc.message)]
    if "workbench" in doc and (
        not isinstance(doc["workbench"], dict) or doc["workbench"].get("version") != 1
    ):
        return None, [
            Problem(filename, None, "workbench.version", "expected version 1 of the workbench extension")
        ]
    found = document_problems(doc)
    if found:
        return None, [Problem(filename, None, path, message) for path, message in found]
    return doc, []


def _jsonl_lines(text: str, filename: str) -> tuple[list[dict[str, Any]], list[Problem]]:
    lines: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = load_json(line)
        except json.JSONDecodeError as exc:
            return [], [Problem(filename, number, "json", f"{exc.msg} at column {exc.colno}")]
        except JsonLimitError as exc:
            return [], [Problem(filename, number, exc.field, exc.message)]
        if not isinstance(value, dict):
            return [], [Problem(filename, number, "json", "expected a JSON object on every line")]
        lines.append(value)
    return lines, []


JSONL_PAIR_LINE = Obj(
    {
        "pair": Obj({"id": Str(120)}, required=("id",)),
        "workbench": AnyJson(),
        "phenomena": MapOf(Str(150), ListOf(AnyJson())),
        "phrase_alignments": MapOf(Str(150), ListOf(AnyJson())),
        "phenomena_extra": MapOf(Str(150), ListOf(AnyJson())),
        "phrase_nodes": MapOf(Str(150), ListOf(AnyJson())),
        "word_alignments": MapOf(Str(150), AnyJson()),
        "pair_labels": MapOf(Str(150), AnyJson()),
        "workbench_pair_labels": MapOf(Str(150), AnyJson()),
        "gold": MapOf(Str(40), ListOf(AnyJson())),
        "systems": MapOf(Str(60), AnyJson()),
    },
    required=("pair",),
)
JSONL_HEADER = Obj({"section_annotators": MapOf(Str(40), ListOf(Str(150))), "workbench": Nullable(Obj({}))})


def _joined(lines: list[dict[str, Any]], filename: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The document of checked JSON Lines (line shapes first, so joining them cannot fail)."""
    for number, (line, spec) in enumerate(
        zip(lines, [JSONL_HEADER] + [JSONL_PAIR_LINE] * (len(lines) - 1), strict=True), start=1
    ):
        found = check(line, spec)
        if found:
            return None, [Problem(filename, number, path, message) for path, message in found]
    try:
        return from_jsonl(lines), []
    except (AttributeError, TypeError, KeyError) as exc:  # e.g. a header key that is also a per-pair section
        return None, [Problem(filename, 1, "jsonl", f"the lines do not join into one document ({exc!r})")]


def from_jsonl(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Join a header line and per-pair lines back into the document `to_jsonl` split."""
    header, pair_lines = lines[0], lines[1:]
    doc = {
        key: value for key, value in header.items() if key not in ("jsonl", "section_annotators", "workbench")
    }
    workbench = dict(header.get("workbench") or {})
    if "systems" in workbench:  # copied, the pair lines' alignments are added to them
        workbench["systems"] = {
            name: {**system, "alignments": dict(system.get("alignments") or {})}
            for name, system in workbench["systems"].items()
        }
    sections = header.get("section_annotators", {})
    doc["pairs"] = [line["pair"] for line in pair_lines]
    for section, annotators in sections.items():
        doc[section] = {annotator: [] if section in PER_PAIR_SECTIONS else {} for annotator in annotators}
    extras: dict[str, dict[str, Any]] = {
        "pairs": {},
        "pair_labels": {},
        "phenomena_extra": {},
        "phrase_nodes": {},
        "gold": {},
    }
    for line in pair_lines:
        pair_id = line["pair"]["id"]
        if "workbench" in line:
            extras["pairs"][pair_id] = line["workbench"]
        for section in PER_PAIR_SECTIONS:
            for annotator, entries in line.get(section, {}).items():
                doc.setdefault(section, {}).setdefault(annotator, []).extend(entries)
        for extra in ("phenomena_extra", "phrase_nodes"):
            for annotator, entries in line.get(extra, {}).items():
                extras[extra].setdefault(annotator, []).extend(entries)
        for section in ("word_alignments", "pair_labels"):
            for annotator, value in line.get(section, {}).items():
                doc.setdefault(section, {}).setdefault(annotator, {})[pair_id] = value
        for annotator, value in line.get("workbench_pair_labels", {}).items():
            extras["pair_labels"].setdefault(annotator, {})[pair_id] = value
        for kind, rows in line.get("gold", {}).items():
            extras["gold"].setdefault(kind, []).extend(rows)
        for name, alignment in line.get("systems", {}).items():
            # a system the header does not describe is left for the schema check to name
            system = workbench.setdefault("systems", {}).setdefault(name, {"alignments": {}})
            system.setdefault("alignments", {})[pair_id] = alignment
    for key in ("pair_labels", "phenomena_extra", "phrase_nodes"):
        extras[key] = {name: extras[key][name] for name in sorted(extras[key])}
    if header.get("workbench"):
        workbench.update(extras)
        doc["workbench"] = workbench
    return doc
