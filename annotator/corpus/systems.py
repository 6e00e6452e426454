"""Registered alignment systems: a lead names a system and imports its alignments, which the workbench
scores against each annotator and against gold (`annotator.agreement.machine_agreement`, stored with each
agreement snapshot). A system's alignments are nobody's annotations: they live in `SystemAlignment`.

Formats (all-or-nothing: any problem and nothing is written, each problem as `FILE:LINE: field: message`):
- `pharaoh`: `<pair id> TAB 0-0 1-2 2?3` (`i-j` sure, `i?j` possible, 0-based), the workbench's own;
- `native`: JSON `{"pairs": {"<pair id>": {"sure": [[i, j]…], "possible": [[i, j]…],
  "phrases": [{"s1": [i…], "s2": [j…], "label": "sure"|"possible"}]}}}` (every key optional).
Re-importing replaces the system's alignment of the pairs the file names. A link given twice is stored
once; a link given both sure and possible is stored as sure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.agreement import record_change
from annotator.core import validation
from annotator.corpus.imports.pharaoh import parse_pharaoh
from annotator.models import AlignmentSystem, Pair, Project, SystemAlignment

FORMATS = ("pharaoh", "native")


class SystemImportError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__(
            "; ".join(problems[:5]) + (f" … and {len(problems) - 5} more" if len(problems) > 5 else "")
        )
        self.problems = problems


def register_system(
    project: Project, name: str, *, description: str = "", user: Any = None
) -> AlignmentSystem:
    """A new named system of the project (names are unique per project)."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": "Give the system a name."})
    if AlignmentSystem.objects.filter(project=project, name=name).exists():
        raise ValidationError({"name": f"The project already has a system named {name!r}."})
    return AlignmentSystem.objects.create(
        project=project,
        name=name,
        description=description,
        created_by=user if getattr(user, "pk", None) else None,
    )


def _links(
    value: Any, where: str, field: str, tokens: tuple[list[str], list[str]], problems: list[str]
) -> list[list[int]]:
    out: list[list[int]] = []
    if not isinstance(value, list):
        problems.append(f"{where}: {field}: expected a list of [i, j] links")
        return out
    for n, link in enumerate(value):
        if not (isinstance(link, list) and len(link) == 2):
            problems.append(f"{where}: {field}[{n}]: expected [i, j], got {link!r}")
            continue
        try:
            i, j = validation.link_fields(link[0], link[1], *tokens)
        except ValidationError as exc:
            problems.append(
                f"{where}: {field}[{n}]: {'; '.join(m for ms in exc.message_dict.values() for m in ms)}"
            )
            continue
        out.append([i, j])
    return [list(link) for link in sorted({(i, j) for i, j in out})]  # a link given twice is stored once


def _phrases(
    value: Any, where: str, tokens: tuple[list[str], list[str]], problems: list[str]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not isinstance(value, list):
        problems.append(f"{where}: phrases: expected a list")
        return out
    for n, item in enumerate(value):
        at = f"{where}: phrases[{n}]"
        if not isinstance(item, dict):
            problems.append(f"{at}: expected an object with s1, s2, label")
            continue
        spans = []
        for side, key in ((0, "s1"), (1, "s2")):
            span = item.get(key, [])
            if not isinstance(span, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(tokens[side]) for x in span
            ):
                problems.append(
                    f"{at}: {key}: expected token indices of member {side + 1} (0–{len(tokens[side]) - 1})"
                )
                span = []
            spans.append(sorted(set(span)))
        label = item.get("label", "sure")
        if label not in ("sure", "possible"):
            problems.append(f"{at}: label: expected 'sure' or 'possible', got {label!r}")
        if not spans[0] and not spans[1]:
            problems.append(f"{at}: s1 and s2 are both empty")
        out.append({"s1": spans[0], "s2": spans[1], "label": label})
    return out


def parse_system_file(project: Project, filename: str, data: bytes, format: str) -> dict[str, dict[str, Any]]:
    """{pair id: {sure, possible, phrases}} of the file, or SystemImportError listing every problem."""
    if format not in FORMATS:
        raise SystemImportError([f"{filename}: format: expected one of {', '.join(FORMATS)}, got {format!r}"])
    tokens = {
        sid: (t1, t2)
        for sid, t1, t2 in Pair.objects.filter(project=project).values_list("source_id", "tokens1", "tokens2")
    }
    problems: list[str] = []
    out: dict[str, dict[str, Any]] = {}
    if format == "pharaoh":
        parsed = parse_pharaoh(data, filename)
        problems += [str(p) for p in parsed.fatal + parsed.invalid]
        for record in parsed.records:
            where = f"{record.file}:{record.line}"
            if record.pair not in tokens:
                problems.append(f"{where}: pair: no pair {record.pair!r} in this project")
                continue
            links = _links(
                [[i, j] for i, j, _ in record.links], where, "links", tokens[record.pair], problems
            )
            sure = {(i, j) for i, j, s in record.links if s}
            out[record.pair] = {
                "sure": [link for link in links if tuple(link) in sure],
                "possible": [link for link in links if tuple(link) not in sure],
                "phrases": [],
            }
    else:
        try:
            doc = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SystemImportError([f"{filename}: not JSON: {exc}"]) from exc
        except RecursionError as exc:
            raise SystemImportError(
                [f"{filename}: not JSON this workbench reads: nested too deeply"]
            ) from exc
        pairs = doc.get("pairs") if isinstance(doc, dict) else None
        if not isinstance(pairs, dict):
            raise SystemImportError([f"{filename}: pairs: expected an object {{pair id: alignment}}"])
        for pid, entry in pairs.items():
            where = f"{filename}: pairs[{pid!r}]"
            if pid not in tokens:
                problems.append(f"{where}: no pair {pid!r} in this project")
                continue
            if not isinstance(entry, dict):
                problems.append(f"{where}: expected an object with sure, possible, phrases")
                continue
            sure_links = _links(entry.get("sure", []), where, "sure", tokens[pid], problems)
            possible = _links(entry.get("possible", []), where, "possible", tokens[pid], problems)
            out[pid] = {
                "sure": sure_links,
                "possible": [link for link in possible if link not in sure_links],  # sure wins, stored once
                "phrases": _phrases(entry.get("phrases", []), where, tokens[pid], problems),
            }
    if problems:
        raise SystemImportError(problems)
    if not out:
        raise SystemImportError([f"{filename}: no alignments in the file"])
    return out


@transaction.atomic
def import_for(
    project: Project, name: str, filename: str, data: bytes, format: str, *, user: Any = None
) -> int:
    """Register the system when the name is new, then import the file into it (all or nothing)."""
    alignments = parse_system_file(project, filename, data, format)
    system = AlignmentSystem.objects.filter(project=project, name=name.strip()).first()
    if system is None:
        try:
            system = register_system(project, name, user=user)
        except ValidationError as exc:
            raise SystemImportError([m for ms in exc.message_dict.values() for m in ms]) from exc
    return store_system_alignments(system, alignments)


@transaction.atomic
def import_system_alignments(system: AlignmentSystem, filename: str, data: bytes, format: str) -> int:
    """Store the file's alignments for the system (all or nothing); returns the number of pairs."""
    alignments = parse_system_file(system.project, filename, data, format)
    return store_system_alignments(system, alignments)


@transaction.atomic
def store_system_alignments(system: AlignmentSystem, alignments: Mapping[str, Mapping[str, Any]]) -> int:
    pks = dict(
        Pair.objects.filter(project=system.project, source_id__in=list(alignments)).values_list(
            "source_id", "pk"
        )
    )
    SystemAlignment.objects.filter(system=system, pair_id__in=list(pks.values())).delete()
    SystemAlignment.objects.bulk_create(
        SystemAlignment(
            system=system, pair_id=pks[pid], sure=a["sure"], possible=a["possible"], phrases=a["phrases"]
        )
        for pid, a in alignments.items()
    )
    record_change(system.project_id)
    return len(alignments)
