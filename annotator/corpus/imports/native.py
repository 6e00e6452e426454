"""The native format (see `annotator.corpus.exports.native` for its layout) → a validated document.

JSON or JSON Lines (recognised by the first line carrying `"jsonl": 1`). The metrics part is validated
by the metrics library's own reader (`metrics.document.parse_document`), whose messages name the JSON
path of the offending value (`phenomena.B[3].s1[2]: …`); the "workbench" part is checked as it is written.

A JSON document is one value, read whole (at most `JSON_DOCUMENT_LIMIT` bytes). JSON Lines are read a
batch of pair lines at a time (`JsonlReader`, `check_jsonl`): each batch is joined with the header into a
document of its pairs and checked as a JSON document is; a batch with a problem is checked line by line
so that the message names the line (`doc.jsonl:7: phenomena.B[0].s1[2]: …`, paths within that line's
pair). Memory: a batch, the header, and 12 bytes a pair for the duplicate-id check.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from annotator.corpus.imports.native_schema import document_problems
from annotator.corpus.imports.problems import Problem
from annotator.corpus.imports.reading import BOM, decode_utf8, utf8_lines
from annotator.corpus.imports.seen import SeenKeys
from annotator.corpus.limits import (
    AnyJson,
    JsonLimitError,
    ListOf,
    MapOf,
    Nullable,
    Obj,
    Str,
    check,
    load_json,
)
from metrics.document import parse_document
from metrics.types import DocumentError

PER_PAIR_SECTIONS = ("phenomena", "phrase_alignments")
JSONL_BATCH = 1000  # pair lines joined, checked and written together
PROBLEM_LIMIT = 50  # problems a check reports (as a JSON document's check: `native_schema`)
JSON_DOCUMENT_LIMIT = 100 * 2**20  # bytes of a JSON document (read whole; larger projects: JSON Lines)
#: Header parts that concern the whole file, not a batch of pairs: checked once, written after the pairs.
WHOLE_FILE = ("evaluations",)
WHOLE_FILE_WORKBENCH = ("evaluation_units", "judgements", "assignments", "sections", "history")


def parse_native(data: bytes, filename: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The document of a native JSON file, or the problems that make it unusable (JSON Lines:
    `check_jsonl` and `JsonlReader`, which read a batch at a time)."""
    if len(data) > JSON_DOCUMENT_LIMIT:
        return None, [too_large(filename)]
    text, problems = decode_utf8(data, filename)
    if text is None:
        return None, problems
    try:
        doc = load_json(text)
    except json.JSONDecodeError as exc:
        return None, [Problem(filename, exc.lineno, "json", f"{exc.msg} at column {exc.colno}")]
    except JsonLimitError as exc:
        return None, [Problem(filename, exc.line, exc.field, exc.message)]
    if not isinstance(doc, dict):
        return None, [Problem(filename, 1, "json", "expected a JSON object (the interchange document)")]
    problems = document_check(doc, filename)
    return (None, problems) if problems else (doc, [])


def document_check(doc: dict[str, Any], filename: str, line: int | None = None) -> list[Problem]:
    """The problems of a decoded document (metrics part, then the workbench extension), at `line`."""
    metrics_part = {key: value for key, value in doc.items() if key != "workbench"}
    try:
        parse_document(metrics_part, source=filename)
    except DocumentError as exc:
        return [Problem(filename, line, exc.field, exc.message)]
    if "workbench" in doc and (
        not isinstance(doc["workbench"], dict) or doc["workbench"].get("version") != 1
    ):
        return [Problem(filename, line, "workbench.version", "expected version 1 of the workbench extension")]
    return [Problem(filename, line, path, message) for path, message in document_problems(doc)]


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


def _join_pair_line(
    line: dict[str, Any], doc: dict[str, Any], extras: dict[str, dict[str, Any]], workbench: dict[str, Any]
) -> None:
    """Add one pair line's annotations to the document, its workbench extras and its systems."""
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
        _join_pair_line(line, doc, extras, workbench)
    for key in ("pair_labels", "phenomena_extra", "phrase_nodes"):
        extras[key] = {name: extras[key][name] for name in sorted(extras[key])}
    if header.get("workbench"):
        workbench.update(extras)
        doc["workbench"] = workbench
    return doc


# ---- JSON Lines, a batch at a time --------------------------------------------------------------------


def too_large(filename: str) -> Problem:
    return Problem(
        filename,
        None,
        "size",
        f"a JSON document of more than {JSON_DOCUMENT_LIMIT / 2**20:g} MiB, which is read whole: "
        "export the project as JSON Lines (.jsonl), which is read a batch at a time",
    )


def is_jsonl(stream: BinaryIO) -> bool:
    """Whether the file's first non-blank line is a JSON Lines header (`{"jsonl": 1, …}`); reads that line
    (at most `JSON_DOCUMENT_LIMIT` bytes of it) from where the stream is."""
    for raw in iter(lambda: stream.readline(JSON_DOCUMENT_LIMIT), b""):
        try:
            first = raw.decode("utf-8").removeprefix(BOM).strip()
        except UnicodeDecodeError:
            return False
        if not first:
            continue
        try:
            head = load_json(first) if first.startswith("{") else None
        except (json.JSONDecodeError, JsonLimitError):
            return False
        return isinstance(head, dict) and head.get("jsonl") == 1
    return False


Line = tuple[int, dict[str, Any]]  # a line's number and its value


class JsonlReader:
    """A native JSON Lines file read a batch of pair lines at a time: `batches()` yields lists of up to
        `batch_size` (line number, value) of pair lines, each line's JSON and shape checked; `header` is the
        first line's value. A line with a problem is left out and the problem kept in `problems`; reading stops
    once `PROBLEM_LIMIT` problems are known (or at a problem of the header line or of the file's bytes).
        `checked=True` is for reading again a file that `check_jsonl` accepted: its lines are only decoded."""

    def __init__(
        self, stream: BinaryIO, filename: str, *, batch_size: int = JSONL_BATCH, checked: bool = False
    ) -> None:
        self.stream, self.file, self.batch_size, self.checked = stream, filename, batch_size, checked
        self.header: dict[str, Any] = {}
        self.header_line = 0
        self.pairs = 0
        self.problems: list[Problem] = []
        # the header's system phrase alignments by the pair they name, joined with that pair's batch
        self.system_phrases: dict[str, list[tuple[str, Any]]] = {}

    def batches(self) -> Iterator[list[Line]]:
        batch: list[Line] = []
        for item in utf8_lines(self.stream, self.file):
            if isinstance(item, Problem):
                self.problems.append(item)
                return
            number, text = item
            if not text.strip():
                continue
            value = self.value(number, text)
            if value is None:
                if not self.header_line or len(self.problems) >= PROBLEM_LIMIT:
                    return
                continue
            if not self.header_line:
                self.header, self.header_line = value, number
                self.system_phrases = _by_pair(value.get("system_phrase_alignments"))
                continue
            batch.append((number, value))
            self.pairs += 1
            if len(batch) >= self.batch_size:
                yield batch
                batch = []
        if batch:
            yield batch

    def value(self, number: int, text: str) -> dict[str, Any] | None:
        """The line's object, its JSON and shape checked (header or pair line); None after a problem."""
        if self.checked:
            value: dict[str, Any] = json.loads(text)
            return value
        try:
            value = load_json(text)
        except json.JSONDecodeError as exc:
            self.problems.append(Problem(self.file, number, "json", f"{exc.msg} at column {exc.colno}"))
            return None
        except JsonLimitError as exc:
            self.problems.append(Problem(self.file, number, exc.field, exc.message))
            return None
        if not isinstance(value, dict):
            self.problems.append(Problem(self.file, number, "json", "expected a JSON object on every line"))
            return None
        found = check(value, JSONL_PAIR_LINE if self.header_line else JSONL_HEADER)
        self.problems += [Problem(self.file, number, path, message) for path, message in found]
        return None if found else value

    def batch_header(self, pair_ids: list[str]) -> dict[str, Any]:
        """The header without the parts that concern the whole file (`WHOLE_FILE`), for joining a batch;
        its system phrase alignments only those of the batch's pairs."""
        header = {key: value for key, value in self.header.items() if key not in WHOLE_FILE}
        if self.system_phrases:
            systems: dict[str, list[Any]] = {name: [] for name in self.header["system_phrase_alignments"]}
            for pair_id in pair_ids:
                for name, entry in self.system_phrases.get(pair_id, []):
                    systems[name].append(entry)
            header["system_phrase_alignments"] = systems
        if isinstance(header.get("workbench"), dict):
            header["workbench"] = {
                key: value for key, value in header["workbench"].items() if key not in WHOLE_FILE_WORKBENCH
            }
        return header

    def joined(self, lines: list[Line]) -> dict[str, Any]:
        """The document of a batch of pair lines: the header's per-pair context and these pairs."""
        pair_ids = [value["pair"]["id"] for _, value in lines]
        return from_jsonl([self.batch_header(pair_ids), *(value for _, value in lines)])


def _by_pair(systems: Any) -> dict[str, list[tuple[str, Any]]]:
    """System phrase alignments (`{system: [{pair, …}]}`) by the pair each names (well-formed ones only:
    the header's own check names the rest)."""
    found: dict[str, list[tuple[str, Any]]] = {}
    if isinstance(systems, dict):
        for name, entries in systems.items():
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, dict) and isinstance(entry.get("pair"), str):
                    found.setdefault(entry["pair"], []).append((name, entry))
    return found


def check_jsonl(
    stream: BinaryIO, filename: str, *, batch_size: int = JSONL_BATCH
) -> tuple[int, list[Problem]]:
    """The number of pairs of a native JSON Lines file, and the problems that make it unusable: the
    checks of a JSON document, made on the header once and on each batch of pair lines joined with it,
    each problem at its line, up to `PROBLEM_LIMIT` of them in line order (a problem of the header stops
    the check: the pair lines are read against it)."""
    reader = JsonlReader(stream, filename, batch_size=batch_size)
    seen = SeenKeys()
    checked_header = False
    problems: list[Problem] = []
    for lines in reader.batches():
        if not checked_header:
            checked_header = True
            if header_problems := _header_problems(reader):
                return reader.pairs, header_problems
        problems += _batch_problems(reader, lines, seen)
        if len(problems) + len(reader.problems) >= PROBLEM_LIMIT:
            break
    if not checked_header and not reader.problems and (header_problems := _header_problems(reader)):
        return reader.pairs, header_problems
    problems = sorted([*reader.problems, *problems], key=lambda p: p.line_or_element or 0)
    if problems:
        return reader.pairs, problems[:PROBLEM_LIMIT]
    return reader.pairs, _assignment_problems(reader, seen)


def _joining_problem(filename: str, line: int, exc: Exception) -> Problem:
    return Problem(filename, line, "jsonl", f"the lines do not join into one document ({exc!r})")


def _header_problems(reader: JsonlReader) -> list[Problem]:
    """The header checked as a document of its own; the pairs its assignments name stand in as pairs
    without tokens (whether the file has them is `_assignment_problems`' question)."""
    try:
        doc = from_jsonl([reader.header])
    except (AttributeError, TypeError, KeyError) as exc:  # e.g. a header key that is also a per-pair section
        return [_joining_problem(reader.file, reader.header_line, exc)]
    if reader.system_phrases:  # checked with their pairs' batches
        doc["system_phrase_alignments"] = {
            name: [x for x in entries if not (isinstance(x, dict) and isinstance(x.get("pair"), str))]
            if isinstance(entries, list)
            else entries
            for name, entries in doc["system_phrase_alignments"].items()
        }
    rows = [row for row in _assignments(reader.header) if isinstance(row, dict)]
    named = {row["pair"] for row in rows if isinstance(row.get("pair"), str) and row["pair"]}
    doc["pairs"] = [{"id": pid, "tokens1": [], "tokens2": []} for pid in sorted(named)]
    return document_check(doc, reader.file, reader.header_line)


def _assignments(header: dict[str, Any]) -> list[Any]:
    """The header's `workbench.assignments` when it is a list (any other value is the document check's
    to report, with its line)."""
    workbench = header.get("workbench")
    rows = workbench.get("assignments") if isinstance(workbench, dict) else None
    return rows if isinstance(rows, list) else []


def _assignment_problems(reader: JsonlReader, seen: SeenKeys) -> list[Problem]:
    """Assignments and system phrase alignments of the header that name a pair the file does not have."""
    unknown = [
        Problem(
            reader.file, reader.header_line, f"system_phrase_alignments.{name}", f"unknown pair {pair_id!r}"
        )
        for pair_id, entries in reader.system_phrases.items()
        if seen.first_line(SeenKeys.key(pair_id)) is None
        for name in dict.fromkeys(name for name, _ in entries)
    ]
    return (
        unknown[:PROBLEM_LIMIT]
        + [
            Problem(
                reader.file,
                reader.header_line,
                f"workbench.assignments[{n}].pair",
                f"no pair {row['pair']!r} in the document",
            )
            for n, row in enumerate(_assignments(reader.header))
            if "pair" in row and seen.first_line(SeenKeys.key(row["pair"])) is None
        ][:PROBLEM_LIMIT]
    )


def _batch_problems(reader: JsonlReader, lines: list[Line], seen: SeenKeys) -> list[Problem]:
    """Duplicate pair ids, then the batch's document checked; a batch with a problem is checked line by
    line, so that each problem names its line."""
    batch_seen: dict[int, int] = {}
    duplicates: list[Problem] = []
    unique: list[Line] = []
    for number, value in lines:
        pair_id = value["pair"]["id"]
        key = SeenKeys.key(pair_id)
        first = batch_seen.get(key) or seen.first_line(key)
        if first is not None:
            duplicates.append(
                Problem(
                    reader.file, number, "pair.id", f"duplicate pair id {pair_id!r} (first on line {first})"
                )
            )
            continue
        batch_seen[key] = number
        unique.append((number, value))
    seen.add(list(batch_seen), list(batch_seen.values()))
    if not unique:
        return duplicates
    try:
        problems = document_check(reader.joined(unique), reader.file)
    except (AttributeError, TypeError, KeyError) as exc:
        problems = [_joining_problem(reader.file, unique[0][0], exc)]
    if not problems:
        return duplicates
    by_line: list[Problem] = []
    for line in unique:
        try:
            by_line += document_check(reader.joined([line]), reader.file, line[0])
        except (AttributeError, TypeError, KeyError) as exc:
            by_line.append(_joining_problem(reader.file, line[0], exc))
        if len(duplicates) + len(by_line) >= PROBLEM_LIMIT:
            break
    # a problem only the batch as a whole shows (none of its lines alone) is named as the batch found it
    return [*duplicates, *(by_line or problems)]
