"""The native format holds the automatic pre-annotation too: the aligner's runs and the version each
pair's initial alignment comes from, each pair's tree source (imported, or the parser with its model and
versions), and the registered systems with their imported alignments — exported, imported back into a
new project identically, and refused with the JSON path of every broken value."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from annotator.corpus import aligner_training as training
from annotator.corpus import projects, systems
from annotator.corpus.exports.native import native_document, to_jsonl, write_native
from annotator.corpus.imports.native import from_jsonl
from annotator.corpus.services import import_corpus
from annotator.corpus.tree_parsing import parse_missing_trees, parser_source
from annotator.models import AlignerRun, AlignmentSystem, Pair, Project, SystemAlignment
from tests import make
from tests.make import counts

pytestmark = pytest.mark.django_db
GIZA = {
    "pairs": {
        "p1": {
            "sure": [[1, 0], [4, 2]],
            "possible": [[2, 1]],
            "phrases": [{"s1": [1, 2], "s2": [1], "label": "sure"}],
        },
        "bare": {"sure": [[0, 0]]},
    }
}


@pytest.fixture
def project() -> Project:
    """Imported trees and alignments (p1, p2), a pair the aligner and the parser did (bare), two systems."""
    cast = make.cast()
    project = make.project_with_pairs(
        "Auto", n_pairs=2, lead=cast.lead, annotators=(cast.anna,), layer_phrase_alignment=True
    )
    bare = projects.add_pair(
        project, "bare", tokens1="A cat sat on the mat .".split(), tokens2="The cat was sitting .".split()
    )
    projects.assign_pairs(project, [cast.anna], [bare])
    run = training.create_run(project, None, training.settings_from("grow-diag-final"))
    assert training.run_training(run.pk) == AlignerRun.Status.SUCCEEDED
    parse_missing_trees(project)
    systems.import_for(project, "giza", "giza.json", json.dumps(GIZA).encode(), "native", user=cast.lead)
    systems.register_system(project, "baseline", description="nothing imported yet")
    return project


def exported(project: Project, **options: Any) -> bytes:
    out = io.StringIO()
    write_native(project, out, **options)
    return out.getvalue().encode()


def same_except_name(doc1: dict[str, Any], doc2: dict[str, Any]) -> None:
    for doc in (doc1, doc2):
        doc["workbench"]["project"].pop("name")
    assert doc1 == doc2


def test_the_export_holds_runs_versions_tree_sources_and_systems(project):
    wb = native_document(project)["workbench"]
    assert [(r["version"], r["status"], r["settings"]["symmetrize"]) for r in wb["aligner_runs"]] == [
        (1, "succeeded", "grow-diag-final")
    ]
    pairs = wb["pairs"]
    assert pairs["bare"]["initial_alignment_version"] == 1
    assert pairs["bare"]["initial_alignment_source"] == "eflomal/grow-diag-final"
    assert pairs["bare"]["tree_source"] == parser_source("spacy") and pairs["bare"]["tree1"].startswith("(")
    assert pairs["p1"]["tree_source"] == "imported" and pairs["p1"]["initial_alignment_version"] is None
    assert wb["systems"]["baseline"] == {"description": "nothing imported yet", "alignments": {}}
    assert wb["systems"]["giza"]["alignments"] == {
        "p1": GIZA["pairs"]["p1"],
        "bare": {"sure": [[0, 0]], "possible": [], "phrases": []},
    }


def test_round_trip_into_a_new_project_gives_the_same_document(project):
    data = exported(project)
    report = import_corpus("native", "Copy", [("auto.json", data)])
    assert report.ok, report.problems
    assert report.created["systems"] == 2 and report.created["system alignments"] == 2
    assert report.created["aligner runs"] == 1
    copy = Project.objects.get(name="Copy")
    same_except_name(json.loads(data), native_document(copy))
    bare = Pair.objects.get(project=copy, source_id="bare")
    assert bare.tree_source == parser_source("spacy") and bare.nodes1  # nodes rebuilt from the tree
    assert Pair.objects.get(project=copy, source_id="p1").tree_source == ""  # imported: a parser keeps off
    # The copy's aligner continues the version numbers its pairs refer to.
    assert training.create_run(copy, None, training.settings_from()).version == 2


def test_json_lines_round_trip_keeps_system_alignments_per_pair(project):
    doc = json.loads(json.dumps(native_document(project)))
    lines = to_jsonl(doc)
    assert lines[0]["workbench"]["systems"]["giza"] == {"description": "", "alignments": {}}
    assert [line.get("systems") for line in lines[1:]] == [
        {"giza": GIZA["pairs"]["p1"]},
        None,
        {"giza": {"sure": [[0, 0]], "possible": [], "phrases": []}},
    ]
    assert from_jsonl(json.loads(json.dumps(lines))) == doc
    report = import_corpus("native", "Lines", [("auto.jsonl", exported(project, jsonl=True))])
    assert report.ok, report.problems
    same_except_name(doc, native_document(Project.objects.get(name="Lines")))


def test_reimport_creates_nothing_and_keeps_what_the_project_has(project):
    data = exported(project)
    assert import_corpus("native", "Copy", [("auto.json", data)]).ok
    before = (
        counts(),
        SystemAlignment.objects.count(),
        AlignmentSystem.objects.count(),
        AlignerRun.objects.count(),
    )
    again = import_corpus("native", "Copy", [("auto.json", data)])
    assert again.ok and sum(again.created.values()) == 0
    assert again.unchanged["system alignments"] == 2 and again.unchanged["aligner runs"] == 1
    after = (
        counts(),
        SystemAlignment.objects.count(),
        AlignmentSystem.objects.count(),
        AlignerRun.objects.count(),
    )
    assert after == before


def _problems(doc: dict[str, Any]) -> list[str]:
    before = (
        counts(),
        SystemAlignment.objects.count(),
        AlignmentSystem.objects.count(),
        AlignerRun.objects.count(),
    )
    report = import_corpus("native", "Bad", [("auto.json", json.dumps(doc).encode())])
    after = (
        counts(),
        SystemAlignment.objects.count(),
        AlignmentSystem.objects.count(),
        AlignerRun.objects.count(),
    )
    assert after == before  # nothing written
    return [str(p) for p in report.problems]


def test_broken_system_alignments_are_named_by_their_json_path(project):
    doc = native_document(project)
    giza = doc["workbench"]["systems"]["giza"]["alignments"]
    giza["p1"]["sure"].append([9, 0])
    giza["p1"]["phrases"][0]["label"] = "maybe"
    giza["bare"]["phrases"] = [{"s1": [], "s2": [7], "label": "sure"}]
    giza["nowhere"] = {"sure": []}
    assert _problems(doc) == [  # the shape first: nothing else is checked while it is wrong
        "auto.json: workbench.systems.giza.alignments.p1.phrases[0].label: 'maybe' is not one of sure, possible"
    ]
    giza["p1"]["phrases"][0]["label"] = "sure"
    assert _problems(doc) == [
        "auto.json: workbench.systems.giza.alignments.p1.sure[2]: link 9-0 outside the pair's members "
        "(6 and 4 tokens)",
        "auto.json: workbench.systems.giza.alignments.bare.phrases[0].s2: token 7 outside member 2 (5 tokens)",
        "auto.json: workbench.systems.giza.alignments.nowhere: no pair with this id in the document's pairs",
    ]


def test_a_version_without_its_run_and_a_tree_source_too_long_are_refused(project):
    doc = native_document(project)
    doc["workbench"]["aligner_runs"] = []
    doc["workbench"]["pairs"]["p2"]["tree_source"] = "x" * 41
    assert _problems(doc) == [
        "auto.json: workbench.pairs.p2.tree_source: 41 characters; at most 40 are allowed",
    ]
    doc["workbench"]["pairs"]["p2"]["tree_source"] = "imported"
    assert _problems(doc) == [
        "auto.json: workbench.pairs.bare.initial_alignment_version: no aligner run 1 in workbench.aligner_runs"
    ]
