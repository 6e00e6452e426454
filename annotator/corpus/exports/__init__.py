"""Exporters: one module per format, reading the database and returning bytes.

`export_project(format, project, …)` is the one entry point shared by `manage.py export_corpus`, the web
download and the Celery export job.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from django.core.exceptions import ValidationError

from annotator.corpus.exports import report
from annotator.corpus.exports.conll import conll_text
from annotator.corpus.exports.csv import phenomena_csv
from annotator.corpus.exports.etpc import etpc_xml
from annotator.corpus.exports.jsonl import jsonl_bytes, write_jsonl
from annotator.corpus.exports.native import write_native
from annotator.corpus.exports.pharaoh import pharaoh_text
from annotator.models import Project

FORMATS = ("native", "etpc", "csv", "pharaoh", "report", "jsonl", "conll")
ONE_ANNOTATOR = ("etpc", "pharaoh", "conll")  # formats that hold one annotator's (or the gold layer's) work


def check_options(format: str, *, annotator: str | None = None, gold: bool = False) -> None:
    """The export rules shared by the page, the API, the export job and `manage.py export_corpus`."""
    if gold and annotator:
        raise ValidationError("Choose an annotator or the gold layer, not both.")
    if format in ONE_ANNOTATOR and not gold and not annotator:
        raise ValidationError(
            {"annotator": "This format holds one annotator's work: name them or choose the gold layer."}
        )


@dataclass
class Exported:
    data: bytes
    filename: str
    content_type: str


def export_project(
    format: str,
    project: Project,
    *,
    annotator: str | None = None,
    gold: bool = False,
    jsonl: bool = False,
    history: bool = False,
    report_format: str = "json",
) -> Exported:
    """The project in the format; raises ValidationError (`check_options`), ValueError or
    report.NoSnapshot with a message for the user."""
    check_options(format, annotator=annotator, gold=gold)
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in project.name).strip("-") or "project"
    who = "gold" if gold else (annotator or "all")
    if format == "native":
        out = io.StringIO()
        write_native(project, out, jsonl=jsonl, history=history)
        ext = "jsonl" if jsonl else "json"
        return Exported(out.getvalue().encode("utf-8"), f"{slug}.{ext}", "application/json")
    if format == "etpc":
        return Exported(
            etpc_xml(project, annotator=annotator, gold=gold), f"{slug}-{who}.xml", "application/xml"
        )
    if format == "csv":
        data = phenomena_csv(project, annotator=annotator, gold=True if gold else None)
        return Exported(data, f"{slug}-phenomena-{who}.csv", "text/csv")
    if format == "pharaoh":
        return Exported(
            pharaoh_text(project, annotator=annotator, gold=gold), f"{slug}-{who}.align", "text/plain"
        )
    if format == "report":
        if report_format == "csv":
            return Exported(report.report_csv(project), f"{slug}-agreement.csv", "text/csv")
        if report_format == "html":
            return Exported(report.report_html(project), f"{slug}-agreement.html", "text/html")
        return Exported(report.report_json(project), f"{slug}-agreement.json", "application/json")
    if format == "jsonl":
        return Exported(
            jsonl_bytes(project, annotator=annotator, gold=gold), f"{slug}-{who}.jsonl", "application/jsonl"
        )
    if format == "conll":
        return Exported(
            conll_text(project, annotator=annotator, gold=gold), f"{slug}-{who}.conll", "text/plain"
        )
    raise ValueError(f"unknown export format {format!r}; expected one of {', '.join(FORMATS)}")


class ExportTooLarge(Exception):
    """The export passed its size limit; the message says which."""


class _Capped(io.RawIOBase):
    """A binary file that refuses to grow past `limit` bytes (ExportTooLarge)."""

    def __init__(self, out: BinaryIO, limit: int) -> None:
        self.out, self.limit, self.size = out, limit, 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.size += len(data)
        if self.size > self.limit:
            raise ExportTooLarge(
                f"The export is larger than {self.limit // 2**20} MB (EXPORT_MAX_MB); nothing was kept. "
                "Export one annotator or the gold layer, or ask an administrator to raise the limit."
            )
        return self.out.write(data)


@dataclass
class ExportedFile:
    path: Path
    size: int
    content_type: str


def export_to_file(
    format: str, project: Project, directory: Path, *, max_bytes: int, **options: Any
) -> ExportedFile:
    """Write the export into `directory` (created if needed), at most `max_bytes` long: JSON Lines is
    written record by record as it is read (bounded memory); the other formats are built, then written.
    Raises what `export_project` raises, and ExportTooLarge (the partial file removed)."""
    directory.mkdir(parents=True, exist_ok=True)
    exported = None if format == "jsonl" else export_project(format, project, **options)
    if exported is None:
        check_options(format, annotator=options.get("annotator"), gold=options.get("gold", False))
        path, content_type = directory / _filename(project, "jsonl", **options), "application/jsonl"
    else:
        path, content_type = directory / exported.filename, exported.content_type
    try:
        with path.open("wb") as raw:
            capped = _Capped(raw, max_bytes)
            if exported is None:
                write_jsonl(
                    project, capped, annotator=options.get("annotator"), gold=options.get("gold", False)
                )
            else:
                capped.write(exported.data)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return ExportedFile(path, capped.size, content_type)


def _filename(
    project: Project, ext: str, *, annotator: str | None = None, gold: bool = False, **_: Any
) -> str:
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in project.name).strip("-") or "project"
    who = "gold" if gold else (annotator or "all")
    return f"{slug}-{who}.{ext}"
