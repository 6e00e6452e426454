"""Exports: ETPC XML of an annotator or the gold layer, phenomena CSV, Pharaoh alignments, agreement report."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from annotator.agreement.computation import recompute
from annotator.annotation import services as ann
from annotator.corpus.exports import export_project
from annotator.corpus.exports.report import NoSnapshot
from annotator.corpus.services import import_corpus
from annotator.models import Phenomenon, Project
from tests import make
from tests.make import TWO_ROWS, relation, relations_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def etpc_project() -> Project:
    assert import_corpus("mrpc", "X", [("msr_paraphrase_train.txt", TWO_ROWS)]).ok
    data = relations_file(
        relation("2", "1", s1="5", s2="7", s1_text="selling", s2_text="sold"),
        relation("2", "25", s1="4", s1_text="before", sense="no"),
        relation(
            "1",
            "6",
            s1="2, 3",
            s2="12, 13",
            s1_text="his brother",
            s2_text="his brother",
            k1="3",
            k1_text="brother",
        ),
    )
    assert import_corpus("etpc", "X", [("rel.xml", data)], annotator="anna").ok
    return Project.objects.get(name="X")


def phenomena(username: str) -> list[tuple[object, ...]]:
    rows = Phenomenon.objects.filter(annotator__username=username).order_by("pair__position", "pk")
    return [(p.pair_id, p.ptype_id, p.scope1, p.scope2, p.key1, p.key2, p.sense_preserving) for p in rows]


def test_etpc_xml_imports_back_unchanged(etpc_project: Project) -> None:
    exported = export_project("etpc", etpc_project, annotator="anna")
    assert exported.filename == "X-anna.xml" and exported.data.startswith(b"<?xml")
    assert (
        b"<s1_text>his brother</s1_text>" in exported.data
        and b"<sense_preserving>no</sense_preserving>" in exported.data
    )
    report = import_corpus("etpc", "X", [("back.xml", exported.data)], annotator="copy")
    assert report.ok and not report.repaired
    assert phenomena("copy") == phenomena("anna")


def test_etpc_xml_of_the_gold_layer() -> None:
    lead = make.cast().lead
    project = make.project_with_pairs("G", n_pairs=1, lead=lead)
    pair = project.pairs.get()
    ptype = project.tagset.types.get(name="Synthetic/analytic")
    ann.add_phenomenon(
        pair, lead, ptype, scope1=[1], scope2=[1], projection="local", base_version=None, is_gold=True
    )
    data = export_project("etpc", project, gold=True).data
    assert data.count(b"<relation>") == 1 and b"<pair_id>p1</pair_id>" in data
    with pytest.raises(ValidationError, match="name them or choose the gold layer"):
        export_project("etpc", project)


def test_phenomena_csv(etpc_project: Project) -> None:
    rows = list(csv.DictReader(io.StringIO(export_project("csv", etpc_project).data.decode())))
    assert len(rows) == 3
    first = rows[0]
    assert (first["pair"], first["annotator"], first["type_code"], first["scope1"], first["key1"]) == (
        "1",
        "anna",
        "6",
        "2 3",
        "3",
    )
    assert first["scope1_text"] == "his brother" and first["sense_preserving"] == "yes"


def test_pharaoh_export_imports_back() -> None:
    anna = make.cast().anna
    project = make.project_with_pairs("A", n_pairs=2)
    pair = project.pairs.get(source_id="p2")
    ann.set_links(pair, anna, [(1, 0), (4, 2)], sure=True, base_version=None)
    ann.set_links(pair, anna, [(5, 3)], sure=False, base_version=None)
    data = export_project("pharaoh", project, annotator="anna").data
    assert data == b"p2\t1-0 4-2 5?3\n"
    assert import_corpus("pharaoh", "A", [("a.align", data)], annotator="ben").created["links"] == 3
    assert export_project("pharaoh", project, annotator="ben").data == data
    assert (
        export_project("pharaoh", project, annotator="initial").data == b"p1\t1-0 4-2 5-3\np2\t1-0 4-2 5-3\n"
    )


def test_report_needs_a_snapshot_then_gives_json_csv_and_a_printable_page() -> None:
    cast = make.cast()
    anna, ben = cast.anna, cast.ben
    project = make.project_with_pairs("R", n_pairs=1, annotators=(anna, ben))
    with pytest.raises(NoSnapshot, match="R has no agreement report yet"):
        export_project("report", project)
    pair = project.pairs.get()
    for user in (anna, ben):
        ann.set_links(pair, user, [(1, 0), (4, 2)], sure=True, base_version=None)
    recompute(project.pk)
    doc = json.loads(export_project("report", project).data)
    assert doc["project"] == "R" and "alignment.words.f1" in doc["report"]["measures"]
    table = export_project("report", project, report_format="csv").data.decode().splitlines()
    assert table[0] == "measure,scope,key,value" and any(
        row.startswith("alignment.words.f1,") for row in table
    )
    page = export_project("report", project, report_format="html").data.decode()
    assert "Agreement report — R" in page and "alignment.words.f1" in page


def test_export_command_writes_the_file(etpc_project: Project, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    call_command("export_corpus", "--format", "native", "--project", "X", "--output", str(out))
    assert json.loads(out.read_text().splitlines()[0])["jsonl"] == 1
    with pytest.raises(CommandError, match="no project with id or name 'Nope'"):
        call_command("export_corpus", "--format", "csv", "--project", "Nope", "--output", str(out))
    with pytest.raises(CommandError, match="has no agreement report yet"):
        call_command(
            "export_corpus", "--format", "report", "--project", "X", "--output", str(tmp_path / "r.html")
        )
