"""Flat JSON Lines and CoNLL exports: pandas reads the JSON Lines file as it is."""

import io
import json

import pandas
import pytest
from django.core.exceptions import ValidationError

from annotator.annotation import services as annotation_services
from annotator.corpus.exports import export_project
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    lead, ann, ben = make.user("lead"), make.user("ann"), make.user("ben")
    project = make.project_with_pairs("P", n_pairs=2, lead=lead, annotators=(ann, ben))
    pair = project.pairs.first()
    ptype = project.tagset.types.get(name="Diathesis")
    annotation_services.set_pair_label(pair, ann, "paraphrase", base_version=None)
    annotation_services.add_phenomenon(
        pair, ann, ptype, scope1=[1, 2], scope2=[0], key1=[2], base_version=None
    )
    annotation_services.set_links(pair, ann, [(1, 0)], sure=True, base_version=None)
    annotation_services.set_links(pair, ann, [(4, 2)], sure=False, base_version=None)
    return project


def test_pandas_reads_the_json_lines_export(project):
    data = export_project("jsonl", project).data
    frame = pandas.read_json(io.BytesIO(data), lines=True, dtype=False)
    corpus = frame[frame["record"] == "pair"]
    assert list(corpus["source_id"]) == ["p1", "p2"] and corpus["annotator"].isna().all()
    annotations = frame[frame["record"] == "annotation"]
    assert len(annotations) == 4 and sorted(set(annotations["annotator"])) == ["ann", "ben"]
    row = frame[(frame["annotator"] == "ann") & (frame["source_id"] == "p1")].iloc[0]
    assert row["label"] == "paraphrase" and row["tokens1"][1] == "film"
    assert row["phenomena"][0]["type"] == "Diathesis" and row["phenomena"][0]["scope1"] == [1, 2]
    assert {(link["i"], link["j"], link["sure"]) for link in row["links"]} == {(1, 0, True), (4, 2, False)}


def test_every_record_has_the_same_keys(project):
    lines = export_project("jsonl", project, annotator="ann").data.decode().splitlines()
    keys = {tuple(json.loads(line)) for line in lines}
    assert len(lines) == 2 and len(keys) == 1


def test_conll_marks_scopes_keys_and_links(project):
    text = export_project("conll", project, annotator="ann").data.decode()
    block = text.split("\n\n")[0].splitlines()
    assert "# member = 1" in block and "# label = paraphrase" in block
    assert block[7].split("\t") == ["2", "film", "1:Diathesis", "_", "1"]
    assert block[8].split("\t") == ["3", "opened", "1:Diathesis", "1", "_"]
    with pytest.raises(ValidationError, match="one annotator"):
        export_project("conll", project)


def test_etpc_export_keeps_projection_and_sense_preserving(project):
    ann = project.memberships.get(role="annotator", user__username="ann").user
    pair = project.pairs.last()
    ptype = project.tagset.types.get(name="Semantics")
    annotation_services.add_phenomenon(
        pair, ann, ptype, scope1=[0], scope2=[0], projection="local", base_version=None
    )
    xml = export_project("etpc", project, annotator="ann").data.decode()
    assert "<projection>local</projection>" in xml and "<sense_preserving" in xml


def test_the_whole_corpus_is_exported_before_anyone_annotates_with_string_ids_and_imported_labels():
    from annotator.corpus import projects
    from annotator.projects import services as project_setup

    project = project_setup.create_project(None, name="Corpus", tagset=make.vila())
    for n, (source_id, quality) in enumerate((("0012", 1), ("7", 0), ("x-3", None))):
        labels = {} if quality is None else {"mrpc_quality": quality, "mrpc_id1": "1", "mrpc_id2": "2"}
        projects.add_pair(project, source_id, tokens1=["a"], tokens2=["b"], position=n, corpus_labels=labels)
    data = export_project("jsonl", project).data
    frame = pandas.read_json(io.BytesIO(data), lines=True, dtype=False)
    assert list(frame["record"]) == ["pair"] * 3
    assert list(frame["source_id"]) == ["0012", "7", "x-3"]  # strings, leading zeros kept
    assert list(frame["imported_label"])[:2] == ["paraphrase", "non_paraphrase"]
    assert frame["imported_label"].isna().tolist() == [False, False, True]
    # each line's JSON types are what a reader without options (datasets' JSON builder) sees
    assert [json.loads(line)["source_id"] for line in data.decode().splitlines()] == ["0012", "7", "x-3"]


def test_phrase_alignments_are_in_the_flat_export():
    from annotator.corpus import projects
    from annotator.projects import services as project_setup

    ann = make.user("ann")
    project = project_setup.create_project(
        None,
        name="Phr",
        tagset=make.vila(),
        annotators=[ann],
        layer_phrase_alignment=True,
    )
    tree = "(S (NP (DT A) (NN cat)) (VBD sat))"
    pair = projects.add_pair(
        project, "1", tokens1="A cat sat".split(), tokens2="A cat sat".split(), tree1=tree, tree2=tree
    )
    pair.refresh_from_db()
    annotation_services.add_phrase_alignment(pair, ann, 1, 1, base_version=None)
    records = [json.loads(line) for line in export_project("jsonl", project).data.decode().splitlines()]
    mine = [r for r in records if r["annotator"] == "ann"][0]
    assert mine["phrase_alignments"] == [
        {
            "node1": 1,
            "node2": 1,
            "span1": [0, 2],
            "span2": [0, 2],
            "label1": "NP",
            "label2": "NP",
            "sure": True,
        }
    ]
    assert len({tuple(r) for r in records}) == 1  # every record has the same keys


def test_hugging_face_datasets_loads_the_flat_export_with_string_ids(project, tmp_path, monkeypatch):
    """`datasets.load_dataset("json", …)` infers one schema for the whole file: pair rows and
    annotation rows side by side, ids as strings, phenomena and links as lists of records."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets

    path = tmp_path / "flat.jsonl"
    path.write_bytes(export_project("jsonl", project).data)
    table = datasets.load_dataset(
        "json", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert table.features["source_id"].dtype == "string"
    records = list(table)
    assert [r["source_id"] for r in records if r["record"] == "pair"] == ["p1", "p2"]
    ann = next(r for r in records if r["annotator"] == "ann" and r["source_id"] == "p1")
    assert ann["phenomena"][0]["type"] == "Diathesis" and ann["phenomena"][0]["scope1"] == [1, 2]
    assert {(link["i"], link["j"], link["sure"]) for link in ann["links"]} == {(1, 0, True), (4, 2, False)}
