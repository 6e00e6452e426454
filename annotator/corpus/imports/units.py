"""Evaluation units (two-step evaluation) from CSV or JSON Lines: one row per candidate item.

Columns (CSV with a header row; JSONL: one object per line with the same keys):
- `unit_id` — the unit's id; rows with the same unit_id form one unit (in file order);
- `source_sentence` — the source sentence. The phrase is either marked in it with double brackets,
  `The council [[put off]] the vote.`, or given in `phrase` (and, if it occurs more than once, located by
  `phrase_start`, its 0-based character offset);
- `phrase`, `phrase_start` — optional as just said;
- `item_id` — the candidate's id, unique within the unit;
- `paraphrase` — the candidate paraphrase of the phrase; the item's sentence is the source with the
  phrase replaced by it;
- `candidate_source` — optional: the lexicon or system that proposed it.
CSV files are UTF-8 (a byte-order mark is allowed), comma-separated with standard CSV quoting.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import PurePath

from annotator.corpus.imports.problems import Parsed, Problem
from annotator.corpus.imports.reading import decode_utf8
from annotator.corpus.limits import JsonLimitError, load_json

REQUIRED = ("unit_id", "source_sentence", "item_id", "paraphrase")


@dataclass
class UnitRecord:
    source_id: str
    source_sentence: str
    phrase: str
    phrase_start: int
    phrase_end: int
    items: list[tuple[str, str, str]] = field(default_factory=list)  # (item id, paraphrase, candidate source)
    file: str = ""
    line: int = 0


def _rows(text: str, filename: str, parsed: Parsed[UnitRecord]) -> list[tuple[int, dict[str, str]]]:
    if PurePath(filename).suffix.lower() in (".jsonl", ".json"):
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                value = load_json(line)
            except json.JSONDecodeError as exc:
                parsed.invalid.append(Problem(filename, number, "json", f"{exc.msg} at column {exc.colno}"))
                continue
            except JsonLimitError as exc:
                parsed.invalid.append(Problem(filename, number, exc.field, exc.message))
                continue
            if not isinstance(value, dict):
                parsed.invalid.append(Problem(filename, number, "json", "expected an object per line"))
                continue
            rows.append((number, {k: "" if v is None else str(v) for k, v in value.items()}))
        return rows
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        return _csv_rows(reader, filename, parsed)
    except csv.Error as exc:
        parsed.fatal.append(Problem(filename, reader.line_num or 1, "csv", str(exc)))
        return []


def _csv_rows(
    reader: csv.DictReader[str], filename: str, parsed: Parsed[UnitRecord]
) -> list[tuple[int, dict[str, str]]]:
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        found = ", ".join(reader.fieldnames or []) or "nothing"
        parsed.fatal.append(
            Problem(
                filename,
                1,
                "header",
                f"missing column(s) {', '.join(missing)}; found {found} (comma-separated, with a header row)",
            )
        )
        return []
    return [(n + 2, {k: (v or "") for k, v in row.items() if k}) for n, row in enumerate(reader)]


def _phrase(row: dict[str, str]) -> tuple[str, str, int] | str:
    """(sentence without markers, phrase, start) or a message."""
    sentence, phrase = row["source_sentence"], row.get("phrase", "").strip()
    if "[[" in sentence:
        start, end = sentence.find("[["), sentence.find("]]")
        if end < start or sentence.count("[[") != 1 or sentence.count("]]") != 1:
            return "mark the phrase with exactly one [[ … ]]"
        marked = sentence[start + 2 : end]
        plain = sentence[:start] + marked + sentence[end + 2 :]
        if phrase and phrase != marked:
            return f"the marked phrase {marked!r} differs from the phrase column {phrase!r}"
        return plain, marked, start
    if not phrase:
        return "no phrase: mark it in source_sentence with [[ … ]] or give the phrase column"
    if row.get("phrase_start", "").strip():
        if not row["phrase_start"].strip().isdigit():
            return f"phrase_start {row['phrase_start']!r} is not a character offset"
        start = int(row["phrase_start"])
        if sentence[start : start + len(phrase)] != phrase:
            return f"the phrase {phrase!r} is not at character {start} of the source sentence"
        return sentence, phrase, start
    if sentence.count(phrase) != 1:
        where = "does not occur" if phrase not in sentence else "occurs more than once"
        return f"the phrase {phrase!r} {where} in the source sentence; give phrase_start"
    return sentence, phrase, sentence.find(phrase)


def parse_units(data: bytes, filename: str) -> Parsed[UnitRecord]:
    parsed: Parsed[UnitRecord] = Parsed()
    text, problems = decode_utf8(data, filename)
    if text is None:
        parsed.fatal += problems
        return parsed
    units: dict[str, UnitRecord] = {}
    for number, row in _rows(text, filename, parsed):
        empty = [c for c in REQUIRED if not row.get(c, "").strip()]
        if empty:
            parsed.invalid.append(Problem(filename, number, empty[0], "empty"))
            continue
        located = _phrase(row)
        if isinstance(located, str):
            parsed.invalid.append(Problem(filename, number, "phrase", located))
            continue
        sentence, phrase, start = located
        unit_id = row["unit_id"].strip()
        unit = units.get(unit_id)
        if unit is None:
            unit = units[unit_id] = UnitRecord(
                unit_id, sentence, phrase, start, start + len(phrase), file=filename, line=number
            )
        elif (unit.source_sentence, unit.phrase_start, unit.phrase) != (sentence, start, phrase):
            parsed.invalid.append(
                Problem(
                    filename,
                    number,
                    "source_sentence",
                    f"unit {unit_id} has another source sentence or phrase on line {unit.line}",
                )
            )
            continue
        item_id = row["item_id"].strip()
        if any(item[0] == item_id for item in unit.items):
            parsed.invalid.append(
                Problem(filename, number, "item_id", f"duplicate item {item_id} in unit {unit_id}")
            )
            continue
        unit.items.append((item_id, row["paraphrase"].strip(), row.get("candidate_source", "").strip()))
    parsed.records = list(units.values())
    return parsed
