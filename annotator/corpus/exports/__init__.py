"""Exporters: one module per format, reading the database and returning bytes.

`export_project(format, project, …)` is the one entry point shared by `manage.py export_corpus`, the web
download and the Celery export job.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from annotator.corpus.exports import report
from annotator.corpus.exports.conll import conll_text
from annotator.corpus.exports.csv import phenomena_csv
from annotator.corpus.exports.etpc import etpc_xml
from annotator.corpus.exports.jsonl import jsonl_bytes
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
