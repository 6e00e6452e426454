"""The native format: export → import into a fresh project → export gives the identical document."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from annotator.accounts import services as accounts
from annotator.annotation import services as ann
from annotator.corpus.exports.native import native_document, to_jsonl, write_native
from annotator.corpus.imports.native import from_jsonl
from annotator.corpus.services import import_corpus
from annotator.models import Project
from metrics.document import parse_document
from metrics.report import build_report
from tests import make
from tests.make import counts, rate_unit, unit

pytestmark = pytest.mark.django_db


def rich_project() -> Project:
    """Every kind of content: labels, comments, phenomena, links, phrase alignments, gold, units, judgements."""
    cast = make.cast()
    lead, a, b = cast.lead, cast.anna, cast.ben
    project = make.project_with_pairs(
        "Rich",
        n_pairs=3,
        lead=lead,
        annotators=(a, b),
        layer_phrase_alignment=True,
        layer_evaluation=True,
        description="d",
        guidelines="g",
        phase="agreement",
    )
    p1, p2, _ = project.pairs.all()
    types = {t.name: t for t in project.tagset.types.all()}
    for user, label in ((a, "paraphrase"), (b, "non_paraphrase")):
        ann.set_pair_label(p1, user, label, base_version=None)
        ann.add_phenomenon(
            p1,
            user,
            types["Synthetic/analytic"],
            scope1=[1, 2],
            scope2=[1],
            projection="local",
            base_version=None,
        )
        ann.set_links(p1, user, [(1, 0), (4, 2)], sure=True, base_version=None)
        ann.set_links(p1, user, [(5, 3)], sure=False, base_version=None)
        ann.add_phrase_alignment(p1, user, 1, 1, base_version=None)
    ann.set_comment(p2, a, "unsure about the date", base_version=None)
    ann.add_phenomenon(
        p2,
        a,
        types["Addition/deletion"],
        scope1=[0],
        scope2=[],
        projection="global",
        comment="the article",
        base_version=None,
    )
    ann.add_phrase_alignment(p2, a, 2, None, sure=False, base_version=None)
    ann.add_phenomenon(
        p1,
        lead,
        types["Synthetic/analytic"],
        scope1=[1, 2],
        scope2=[1],
        projection="local",
        base_version=None,
        is_gold=True,
    )
    ann.set_links(p1, lead, [(1, 0)], sure=True, base_version=None, is_gold=True)
    ann.set_pair_label(p1, lead, "paraphrase", base_version=None, is_gold=True)
    evaluation_unit = unit(project)
    from annotator.evaluation import services as evaluation

    evaluation.assign_units(project, [a, b], r=2, seed=0)
    rate_unit(evaluation_unit, a, "Perfect", "Equivalent")
    rate_unit(evaluation_unit, b, "Awkward", "Missing Info.")
    return project


def exported(project: Project, **options: Any) -> bytes:
    out = io.StringIO()
    write_native(project, out, **options)
    return out.getvalue().encode()


def same_except_name(doc1: dict[str, Any], doc2: dict[str, Any]) -> None:
    for doc in (doc1, doc2):
        doc["workbench"]["project"].pop("name")
    assert doc1 == doc2


def test_round_trip_into_a_fresh_project_gives_the_identical_document() -> None:
    project = rich_project()
    data = exported(project)
    report = import_corpus("native", "Copy", [("rich.json", data)])
    assert report.ok, report.problems
    assert (
        report.created["pairs"] == 3
        and report.created["phenomena"] == 4
        and report.created["judgements"] == 12
    )
    same_except_name(json.loads(data), native_document(Project.objects.get(name="Copy")))


def test_json_lines_round_trip() -> None:
    doc = native_document(rich_project())
    assert from_jsonl(json.loads(json.dumps(to_jsonl(doc)))) == json.loads(json.dumps(doc))
    data = exported(Project.objects.get(name="Rich"), jsonl=True)
    assert len(data.splitlines()) == 1 + 3
    report = import_corpus("native", "Lines", [("rich.jsonl", data)])
    assert report.ok, report.problems
    same_except_name(json.loads(json.dumps(doc)), native_document(Project.objects.get(name="Lines")))


def test_reimport_is_idempotent() -> None:
    data = exported(rich_project())
    assert import_corpus("native", "Copy", [("rich.json", data)]).ok
    before = counts()
    again = import_corpus("native", "Copy", [("rich.json", data)])
    assert again.ok and sum(again.created.values()) == 0 and again.unchanged["phenomena"] == 4
    assert counts() == before


def test_the_metrics_library_reads_the_export() -> None:
    doc = native_document(rich_project())
    report = build_report(parse_document(doc))
    assert "iapta.do.f1" in report["measures"] and "alignment.words.f1" in report["measures"]


def test_invalid_document_names_the_json_path() -> None:
    doc = native_document(rich_project())
    doc["phenomena"]["anna"][0]["s1"] = [99]
    before = counts()
    report = import_corpus("native", "Bad", [("bad.json", json.dumps(doc).encode())])
    assert [str(p) for p in report.problems] == [
        "bad.json: phenomena.anna[0].s1[0]: index 99 out of range for tokens1 (6 tokens)"
    ]
    assert counts() == before


def test_truncated_json_names_the_line() -> None:
    report = import_corpus(
        "native", "Bad", [("bad.json", b'{"format": "paraphrase-agreement/1",\n "pairs": [')]
    )
    assert [str(p) for p in report.problems] == ["bad.json:2: json: Expecting value at column 12"]


@pytest.mark.slow
def test_real_mrpc_and_etpc_round_trip(corpora_dir: Path) -> None:
    etpc = corpora_dir / "etpc"
    files = [
        *sorted((corpora_dir / "mrpc").glob("*.txt")),
        etpc / "textual_np_pos.xml",
        etpc / "textual_np_neg.xml",
    ]
    assert import_corpus("etpc", "Real", files, annotator="etpc", skip_invalid=True).ok
    data = exported(Project.objects.get(name="Real"))
    report = import_corpus("native", "Real copy", [("real.json", data)])
    assert report.ok and report.created["pairs"] == 5801 and report.created["phenomena"] >= 8900
    same_except_name(json.loads(data), native_document(Project.objects.get(name="Real copy")))
    accounts.create_account("unused", "x" * 10)  # the documents do not depend on other users
