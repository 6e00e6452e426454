"""What an import found: problems with their place (file, line or element, field), repairs and skips.

A `Problem` is one finding, printed as `FILE:LINE: field: message` (the form compilers use, so editors
can jump to it). An `ImportReport` is what `annotator.corpus.services.import_corpus` returns: counts of
what was (or, in a dry run, would be) created, every repair, every skipped record with its reason, and
every problem that made the import fail.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

R = TypeVar("R")


@dataclass(frozen=True)
class Problem:
    """One finding: where (file, 1-based line or element number, field) and what was expected."""

    file: str
    line_or_element: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line_or_element}" if self.line_or_element is not None else self.file
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line_or_element, "field": self.field, "message": self.message}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Problem:
        return cls(data["file"], data.get("line"), data.get("field", ""), data["message"])


@dataclass
class Parsed(Generic[R]):
    """A parser's result: valid records, and the problems of the records it had to leave out.

    `fatal` problems concern the whole file (wrong encoding, not XML, wrong delimiter): nothing of it can
    be imported, with or without --skip-invalid. `invalid` problems each belong to one left-out record.
    `repaired` lists what the parser fixed (and how), for the report.
    """

    records: list[R] = field(default_factory=list)
    invalid: list[Problem] = field(default_factory=list)
    fatal: list[Problem] = field(default_factory=list)
    repaired: list[Problem] = field(default_factory=list)

    def extend(self, other: Parsed[R]) -> None:
        self.records += other.records
        self.invalid += other.invalid
        self.fatal += other.fatal
        self.repaired += other.repaired


SINGULAR = {"phenomena": "phenomenon", "type updates": "type update"}


def _count(n: int, what: str) -> str:
    """ "1 pair", "2 pairs" (counts are kept under plural names)."""
    if n != 1:
        return f"{n} {what}"
    return f"1 {SINGULAR.get(what, what[:-1] if what.endswith('s') else what)}"


@dataclass
class ImportReport:
    """Counts and lists of one import. `ok` is False when nothing was written because of `problems`."""

    format: str
    project: str
    dry_run: bool = False
    skip_invalid: bool = False
    created: Counter[str] = field(default_factory=Counter)
    unchanged: Counter[str] = field(default_factory=Counter)
    repaired: list[Problem] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems and not self.cancelled

    @property
    def written(self) -> bool:
        return self.ok and not self.dry_run

    def summary(self) -> str:
        """One line: what was created (or would be), unchanged, repaired, skipped."""
        verb = "would create" if self.dry_run else "created"
        made = ", ".join(_count(n, what) for what, n in self.created.items() if n) or "nothing"
        parts = [f"{verb} {made}"]
        kept = ", ".join(_count(n, what) for what, n in self.unchanged.items() if n)
        if kept:
            parts.append(f"already present: {kept}")
        if self.repaired:
            parts.append(f"{len(self.repaired)} repaired")
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        return f"{self.project}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "project": self.project,
            "dry_run": self.dry_run,
            "skip_invalid": self.skip_invalid,
            "ok": self.ok,
            "cancelled": self.cancelled,
            "summary": self.summary() if self.ok else f"{len(self.problems)} problems; nothing was imported",
            "created": dict(self.created) if self.ok else {},  # a failed import created nothing
            "unchanged": dict(self.unchanged),
            "repaired": [p.to_dict() for p in self.repaired],
            "skipped": [p.to_dict() for p in self.skipped],
            "problems": [p.to_dict() for p in self.problems],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ImportReport:
        return cls(
            format=data["format"],
            project=data["project"],
            dry_run=data.get("dry_run", False),
            skip_invalid=data.get("skip_invalid", False),
            created=Counter(data.get("created", {})),
            unchanged=Counter(data.get("unchanged", {})),
            repaired=[Problem.from_dict(p) for p in data.get("repaired", [])],
            skipped=[Problem.from_dict(p) for p in data.get("skipped", [])],
            problems=[Problem.from_dict(p) for p in data.get("problems", [])],
            cancelled=data.get("cancelled", False),
        )
