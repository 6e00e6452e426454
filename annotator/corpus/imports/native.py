"""The native format (see `annotator.corpus.exports.native` for its layout) → a validated document.

JSON or JSON Lines (recognised by the first line carrying `"jsonl": 1`). The metrics part is validated
by the metrics library's own reader (`metrics.document.parse_document`), whose messages name the JSON
path of the offending value (`phenomena.B[3].s1[2]: …`); the "workbench" part is checked as it is written.
"""

from __future__ import annotations

import json
from typing import Any

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
        head = json.loads(first) if first.strip().startswith("{") else None
    except json.JSONDecodeError:
        head = None
    try:
        if isinstance(head, dict) and head.get("jsonl") == 1:
            doc = from_jsonl([json.loads(line) for line in text.splitlines() if line.strip()])
        else:
            doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [Problem(filename, exc.lineno, "json", f"{exc.msg} at column {exc.colno}")]
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
    return doc, []


def from_jsonl(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Join a header line and per-pair lines back into the document `to_jsonl` split."""
    header, pair_lines = lines[0], lines[1:]
    doc = {
        key: value for key, value in header.items() if key not in ("jsonl", "section_annotators", "workbench")
    }
    workbench = dict(header.get("workbench") or {})
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
    for key in ("pair_labels", "phenomena_extra", "phrase_nodes"):
        extras[key] = {name: extras[key][name] for name in sorted(extras[key])}
    if header.get("workbench"):
        workbench.update(extras)
        doc["workbench"] = workbench
    return doc
