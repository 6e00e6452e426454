"""Hostile or odd input files answer clear problems, never a 500: system-alignment files with unhashable
or mixed indices or nested too deeply; a native document whose types name a `tagset`; duplicate system
links are stored once; a failed import reports nothing created."""

from __future__ import annotations

import json

import pytest

from annotator.corpus import systems
from annotator.corpus.services import import_corpus
from annotator.models import ParaphraseType, SystemAlignment, Tagset
from tests import make
from tests.make import TWO_ROWS, api_client, counts, relation, relations_file

pytestmark = pytest.mark.django_db

HOSTILE = [
    b'{"pairs": {"p1": {"phrases": [{"s1": [[1]], "s2": [0]}]}}}',
    b'{"pairs": {"p1": {"phrases": [{"s1": [1, "a"], "s2": [0]}]}}}',
    b'{"pairs": ' + b"[" * 100000 + b"]" * 100000 + b"}",
]


@pytest.fixture
def world():
    return make.two_projects()


@pytest.mark.parametrize("data", HOSTILE)
def test_hostile_system_files_are_refused_with_the_problem(world, data):
    with pytest.raises(systems.SystemImportError) as refused:
        systems.import_for(world.project, "sys", "f.json", data, "native")
    assert "f.json" in str(refused.value)
    assert not SystemAlignment.objects.exists()


def test_hostile_system_alignments_through_the_api_are_a_400(world):
    body = {"name": "sys", "alignments": {"p1": {"phrases": [{"s1": [[1]], "s2": [0]}]}}}
    answer = api_client(world.lead).post(f"/api/projects/{world.project.pk}/systems/", body, format="json")
    assert answer.status_code == 400 and "s1" in json.dumps(answer.json())


def test_duplicate_system_links_are_stored_once(world):
    doc = {"pairs": {"p1": {"sure": [[0, 0], [0, 0], [1, 1]], "possible": [[1, 1], [2, 2], [2, 2]]}}}
    systems.import_for(world.project, "sys", "f.json", json.dumps(doc).encode(), "native")
    stored = SystemAlignment.objects.get()
    assert stored.sure == [[0, 0], [1, 1]] and stored.possible == [[2, 2]]
    systems.import_for(world.project, "sys2", "f.align", b"p1\t0-0 0-0 1?1 1-1\n", "pharaoh")
    other = SystemAlignment.objects.get(system__name="sys2")
    assert other.sure == [[0, 0], [1, 1]] and other.possible == []


def test_a_native_document_whose_types_name_a_tagset_is_imported_without_it(world):
    doc = {
        "format": "paraphrase-agreement/1",
        "workbench": {
            "version": 1,
            "tagset": {
                "name": "Hostile types",
                "types": [{"code": "1", "name": "T1", "type_class": "C", "tagset": 999, "id": 5}],
            },
        },
        "pairs": [{"id": "x1", "tokens1": ["a"], "tokens2": ["b"]}],
    }
    report = import_corpus("native", "Hostile", [("doc.json", json.dumps(doc).encode())])
    assert report.ok, report.problems
    created = Tagset.objects.get(name="Hostile types")  # the type went into it, not into tagset 999
    assert list(ParaphraseType.objects.filter(tagset=created).values_list("name", flat=True)) == ["T1"]


def test_a_failed_etpc_import_reports_nothing_created():
    assert import_corpus("mrpc", "Broken", [("msr_paraphrase_train.txt", TWO_ROWS)]).ok
    before = counts()
    data = relations_file(relation("1", "6", s1="40", s2="0", s2_text="Referring"))
    report = import_corpus("etpc", "Broken", [("rel.xml", data)])
    assert not report.ok and counts() == before
    assert report.to_dict()["created"] == {}
