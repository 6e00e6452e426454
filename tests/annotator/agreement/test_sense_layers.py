"""ETPC's sense-preserving layer in the app: set in the editor, the REST API and adjudication, carried
by the metrics document and the exports, and per-layer agreement (ETPC Table 5.4) in the snapshot."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.core.cache import cache

from annotator.agreement import current
from annotator.agreement.computation import recompute
from annotator.agreement.document import project_document
from annotator.annotation import services as annotation_services
from annotator.corpus.exports.etpc import etpc_xml
from annotator.corpus.exports.native import native_document
from annotator.dashboard.tables import sense_layer_rows
from annotator.leadtools import adjudication
from annotator.models import ParaphraseType, Phenomenon
from tests import make
from tests.make import logged_in, save

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    yield
    cache.clear()


def ptype(name: str) -> ParaphraseType:
    return make.vila().types.get(name=name)


@pytest.fixture
def duo():
    lead = make.user("lead")
    anns = (make.user("ana"), make.user("bo"))
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=anns)
    return project, lead, anns


def annotate(project, anns) -> None:
    """p1: both +; p2: the same phenomenon, ana + and bo −; p3: both −; p4: ana's unmarked extra."""
    ana, bo = anns
    pairs = list(project.pairs.order_by("position"))
    marks = [(pairs[0], True, True), (pairs[1], True, False), (pairs[2], False, False)]
    for pair, mark_a, mark_b in marks:
        for who, mark in ((ana, mark_a), (bo, mark_b)):
            annotation_services.add_phenomenon(
                pair,
                who,
                ptype("Diathesis"),
                scope1=[2],
                scope2=[1],
                sense_preserving=mark,
                base_version=None,
            )
    annotation_services.add_phenomenon(
        pairs[3], ana, ptype("Diathesis"), scope1=[2], scope2=[1], base_version=None
    )


def cli_report(doc: dict, tmp_path: Path) -> dict:
    path = tmp_path / "project.json"
    path.write_text(json.dumps(doc))
    out = subprocess.run(
        [sys.executable, "-m", "metrics", "report", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"},
    )
    return json.loads(out.stdout)


def test_per_layer_agreement_of_two_annotators_equals_the_cli_on_the_exported_document(duo, tmp_path):
    project, _, anns = duo
    annotate(project, anns)
    assert recompute(project.pk) == "stored"
    report = current.current(project).results["report"]
    exported = native_document(project)
    assert report == cli_report(exported, tmp_path)
    m = report["measures"]
    # Overall, ana and bo agree on p1–p3; only ana's unmarked p4 phenomenon is unmatched.
    assert m["iapta.n.ph"]["value"] == pytest.approx(0.75)
    # ETPC(+): ana has p1, p2; bo only p1. ETPC(−): bo has p2, p3; ana only p3.
    assert m["iapta.sense.plus.n.ph"]["value"] == pytest.approx(0.5)
    assert m["iapta.sense.minus.n.ph"]["value"] == pytest.approx(0.5)
    # Both layers: the mark is part of the type, so p2 (+ against −) is a disagreement.
    assert m["iapta.sense.both.do.f1"]["by_pair"]["ana|bo"] < m["iapta.do.f1"]["by_pair"]["ana|bo"]
    assert m["iapta.sense.unmarked.count"]["by_annotator"] == {"ana": 1, "bo": 0}
    assert m["iapta.sense.plus.phenomena.count"]["by_annotator"] == {"ana": 2, "bo": 1}
    rows = sense_layer_rows(m)
    assert [r["layer"] for r in rows] == [
        "ETPC(+)",
        "ETPC(+)",
        "ETPC(−)",
        "ETPC(−)",
        "ETPC(+/−)",
        "ETPC(+/−)",
    ]
    assert rows[0]["phenomena"] == 3 and rows[0]["do_f1"] == m["iapta.sense.plus.do.f1"]["value"]


def test_document_carries_the_mark_only_where_set(duo):
    project, _, anns = duo
    annotate(project, anns)
    doc = project_document(project)
    ana = doc["phenomena"]["ana"]
    assert [x.get("sense_preserving", "unset") for x in ana] == [True, True, False, "unset"]


def test_a_project_without_marks_has_no_layer_keys(duo):
    project, _, (ana, bo) = duo
    pair = project.pairs.first()
    for who in (ana, bo):
        annotation_services.add_phenomenon(
            pair, who, ptype("Diathesis"), scope1=[2], scope2=[1], base_version=None
        )
    recompute(project.pk)
    measures = current.current(project).results["report"]["measures"]
    assert "iapta.do.f1" in measures and not any(k.startswith("iapta.sense.") for k in measures)
    assert sense_layer_rows(measures) is None


def test_etpc_export_writes_the_mark_and_projection(duo):
    project, _, anns = duo
    annotate(project, anns)
    pair = project.pairs.get(source_id="p4")
    annotation_services.add_phenomenon(
        pair,
        anns[1],
        ptype("Synthetic/analytic"),
        scope1=[0, 1],
        scope2=[0],
        projection="local",
        sense_preserving=False,
        base_version=None,
    )
    bo = ET.fromstring(etpc_xml(project, annotator="bo"))
    relations = bo.findall("relation")
    assert [r.findtext("sense_preserving") for r in relations] == ["yes", "no", "no", "no"]
    assert relations[-1].findtext("projection") == "local"


def test_editor_saves_and_changes_the_mark():
    desk = make.desk()
    client = logged_in(desk.anna)
    diathesis = desk.types["Diathesis"].pk
    save(
        client,
        "phenomenon-create",
        desk.pair,
        desk.anna,
        {"ptype": diathesis, "scope1": "2", "scope2": "1", "sense_preserving": "no"},
    )
    ph = Phenomenon.objects.get(pair=desk.pair, annotator=desk.anna)
    assert ph.sense_preserving is False
    response = save(
        client,
        "phenomenon-update",
        desk.pair,
        desk.anna,
        {"ptype": diathesis, "scope1": "2", "scope2": "1", "sense_preserving": "yes"},
        ph.pk,
    )
    assert response.status_code == 200
    ph.refresh_from_db()
    assert ph.sense_preserving is True
    assert 'data-sense="yes"' in response.content.decode()
    # An update that does not send the mark keeps it.
    save(
        client,
        "phenomenon-update",
        desk.pair,
        desk.anna,
        {"ptype": diathesis, "scope1": "2", "scope2": "1"},
        ph.pk,
    )
    ph.refresh_from_db()
    assert ph.sense_preserving is True


def test_editor_refuses_an_unknown_mark():
    desk = make.desk()
    response = save(
        logged_in(desk.anna),
        "phenomenon-create",
        desk.pair,
        desk.anna,
        {"ptype": desk.types["Diathesis"].pk, "scope1": "2", "scope2": "1", "sense_preserving": "maybe"},
    )
    assert "Sense-preserving" in response.content.decode()
    assert not Phenomenon.objects.exists()


def test_rest_create_and_update_set_the_mark(settings):
    world = make.two_projects()
    client = make.api_client(world.anna)
    body = {
        "pair": world.pair.pk,
        "ptype": world.any_ptype().pk,
        "scope1": [1],
        "scope2": [0],
        "base_version": 0,
    }
    response = client.post("/api/phenomena/", {**body, "sense_preserving": True}, format="json")
    assert response.status_code == 201, response.json()
    created = response.json()
    assert created["phenomenon"]["sense_preserving"] is True
    response = client.patch(
        f"/api/phenomena/{created['phenomenon']['id']}/",
        {"sense_preserving": None, "base_version": created["version"]},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["phenomenon"]["sense_preserving"] is None
    bad = client.post(
        "/api/phenomena/", {**body, "sense_preserving": "perhaps", "base_version": 3}, format="json"
    )
    assert bad.status_code == 400 and "sense_preserving" in json.dumps(bad.json())


def test_adjudication_keeps_the_mark_and_tells_marks_apart(duo):
    project, lead, anns = duo
    annotate(project, anns)
    pair = project.pairs.get(source_id="p2")
    ana_x = Phenomenon.objects.get(pair=pair, annotator=anns[0])
    bo_x = Phenomenon.objects.get(pair=pair, annotator=anns[1])
    assert adjudication.phenomenon_key(ana_x) != adjudication.phenomenon_key(bo_x)
    adjudication.add_gold_phenomenon(
        pair, lead, ana_x.ptype_id, scope1=[2], scope2=[1], sense_preserving=True, base_version=None
    )
    gold = Phenomenon.objects.get(pair=pair, is_gold=True)
    assert gold.sense_preserving is True
    adjudication.update_gold_phenomenon(pair, lead, gold.pk, base_version=None, sense_preserving=False)
    gold.refresh_from_db()
    assert gold.sense_preserving is False
