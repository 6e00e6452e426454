"""Exporters: one module per format, reading the database and returning bytes.

`export_project(format, project, …)` is the one entry point shared by `manage.py export_corpus`, the web
download and the Celery export job.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from django.core.exceptions import ValidationError

from annotator.corpus.exports import report
from annotator.corpus.exports.conll import conll_text, write_conll
from annotator.corpus.exports.csv import phenomena_csv, write_csv
from annotator.corpus.exports.etpc import etpc_xml, write_etpc
from annotator.corpus.exports.jsonl import jsonl_bytes, write_jsonl
from annotator.corpus.exports.native import write_native, write_native_jsonl
from annotator.corpus.exports.pharaoh import pharaoh_text, write_pharaoh
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
    slug = _slug(project)
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


class ExportCancelled(Exception):
    """The export's job was cancelled while it wrote; the partial file is removed."""


CANCEL_CHECK_EVERY = 0.5  # seconds between two reads of a running export's cancel flag


class _Capped(io.RawIOBase):
    """A binary file that refuses to grow past `limit` bytes (ExportTooLarge) and stops when its job is
    cancelled (ExportCancelled; `cancelled` is read at most every CANCEL_CHECK_EVERY seconds)."""

    def __init__(self, out: BinaryIO, limit: int, cancelled: Callable[[], bool] | None = None) -> None:
        self.out, self.limit, self.size = out, limit, 0
        self.cancelled, self.checked = cancelled, time.monotonic()

    def writable(self) -> bool:
        return True

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise ExportCancelled("The export was cancelled; its partial file was removed.")

    def write(self, data: Any) -> int:
        self.size += len(data)
        if self.size > self.limit:
            raise ExportTooLarge(
                f"The export is larger than {self.limit // 2**20} MB (EXPORT_MAX_MB); nothing was kept. "
                "Export one annotator or the gold layer, or ask an administrator to raise the limit."
            )
        now = time.monotonic()
        if now - self.checked >= CANCEL_CHECK_EVERY:
            self.checked = now
            self.check()
        return self.out.write(data)


@dataclass
class ExportedFile:
    path: Path
    size: int
    content_type: str


@dataclass(frozen=True)
class Streamed:
    """A format written to the file as it is read (bounded memory)."""

    write: Callable[..., None]
    ext: str
    content_type: str
    what: str = ""  # the file name's word for the content ("phenomena")


STREAMED = {
    "jsonl": Streamed(write_jsonl, "jsonl", "application/jsonl"),
    "csv": Streamed(write_csv, "csv", "text/csv", "phenomena"),
    "pharaoh": Streamed(write_pharaoh, "align", "text/plain"),
    "conll": Streamed(write_conll, "conll", "text/plain"),
    "etpc": Streamed(write_etpc, "xml", "application/xml"),
}


def export_to_file(
    format: str,
    project: Project,
    directory: Path,
    *,
    max_bytes: int,
    cancelled: Callable[[], bool] | None = None,
    **options: Any,
) -> ExportedFile:
    """Write the export into `directory` (created if needed), at most `max_bytes` long. The `STREAMED`
    formats and the native JSON Lines file are written as they are read (memory does not grow with the
    project); the native JSON document and the agreement report are built, then written. Raises what
    `export_project` raises, ExportTooLarge, and ExportCancelled once `cancelled()` is true (the partial
    file removed either way)."""
    directory.mkdir(parents=True, exist_ok=True)
    writer = _stream_writer(format, project, **options)
    exported = None if writer else export_project(format, project, **options)
    if writer is not None:
        check_options(format, annotator=options.get("annotator"), gold=options.get("gold", False))
        name, content_type, write = writer
        path = directory / name
    else:
        assert exported is not None
        path, content_type = directory / exported.filename, exported.content_type
    try:
        with path.open("wb") as raw:
            capped = _Capped(raw, max_bytes, cancelled)
            capped.check()
            if writer is not None:
                write(capped)
            else:
                assert exported is not None
                capped.write(exported.data)
            capped.check()
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return ExportedFile(path, capped.size, content_type)


def _stream_writer(
    format: str, project: Project, **options: Any
) -> tuple[str, str, Callable[[_Capped], None]] | None:
    """(file name, content type, write) of a format written as it is read, or None."""
    if format == "native" and options.get("jsonl"):
        history = bool(options.get("history"))
        name = f"{_slug(project)}.jsonl"
        return name, "application/json", lambda out: write_native_jsonl(project, out, history=history)
    streamed = STREAMED.get(format)
    if streamed is None:
        return None
    annotator, gold = options.get("annotator"), options.get("gold", False)
    # the phenomena CSV without the gold flag holds every annotator's and the gold layer
    layer = (True if gold else None) if format == "csv" else gold
    return (
        _filename(project, streamed.ext, what=streamed.what, **options),
        streamed.content_type,
        lambda out: streamed.write(project, out, annotator=annotator, gold=layer),
    )


def _filename(
    project: Project, ext: str, *, what: str = "", annotator: str | None = None, gold: bool = False, **_: Any
) -> str:
    who = "gold" if gold else (annotator or "all")
    return f"{_slug(project)}-{what + '-' if what else ''}{who}.{ext}"


def _slug(project: Project) -> str:
    """The project's name as a file name's first part."""
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in project.name).strip("-") or "project"
