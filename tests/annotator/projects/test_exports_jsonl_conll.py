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
    frame = pandas.read_json(io.BytesIO(data), lines=True)
    assert len(frame) == 4 and sorted(set(frame["annotator"])) == ["ann", "ben"]
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
