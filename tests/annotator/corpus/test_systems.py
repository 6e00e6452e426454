"""Registered alignment systems: import (Pharaoh, native JSON, API) all or nothing, scored on the
dashboard against annotators and gold, their phrase alignments by SPADE's ALIR/ALIP."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator.agreement.computation import latest_snapshot, recompute
from annotator.annotation import services as annotation_services
from annotator.corpus import systems
from annotator.models import AlignmentLink, AlignmentSystem, SystemAlignment
from tests import make
from tests.make import logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    anna, ben, lead = make.user("anna"), make.user("ben"), make.user("lena")
    project = make.project_with_pairs(
        "Systems", n_pairs=2, lead=lead, annotators=(anna, ben), layer_phrase_alignment=True
    )
    pair = project.pairs.order_by("position").first()
    annotation_services.set_links(pair, anna, [(1, 0), (2, 1), (4, 2)], sure=True, base_version=None)
    annotation_services.set_links(pair, ben, [(1, 0), (2, 1)], sure=True, base_version=None)
    return project, anna, ben, lead, pair


def test_pharaoh_import_stores_the_system_apart_from_annotations(world):
    project, *_ = world
    n = systems.import_for(project, "giza", "giza.txt", b"p1\t1-0 2-1 3?2\n", "pharaoh")
    assert n == 1
    row = SystemAlignment.objects.get(system__name="giza")
    assert row.sure == [[1, 0], [2, 1]] and row.possible == [[3, 2]]
    assert AlignmentLink.objects.filter(annotator__username="giza").count() == 0


def test_a_bad_line_imports_nothing_and_says_where(world):
    project, *_ = world
    with pytest.raises(systems.SystemImportError) as exc:
        systems.import_for(project, "giza", "giza.txt", b"p1\t1-0\np9\t0-0\np2\t0-9\n", "pharaoh")
    text = "\n".join(exc.value.problems)
    assert "giza.txt:2: pair: no pair 'p9'" in text and "giza.txt:3" in text
    assert not AlignmentSystem.objects.exists() and not SystemAlignment.objects.exists()


def test_native_json_with_phrases_and_its_errors(world):
    project, *_ = world
    good = {
        "pairs": {"p1": {"sure": [[1, 0]], "phrases": [{"s1": [2, 3, 4], "s2": [1, 2], "label": "sure"}]}}
    }
    assert systems.import_for(project, "spade-sys", "s.json", json.dumps(good).encode(), "native") == 1
    bad = {"pairs": {"p1": {"phrases": [{"s1": [99], "s2": [], "label": "maybe"}]}}}
    with pytest.raises(systems.SystemImportError) as exc:
        systems.import_for(project, "other", "s.json", json.dumps(bad).encode(), "native")
    assert any("s1: expected token indices of member 1" in p for p in exc.value.problems)
    assert any("label: expected 'sure' or 'possible'" in p for p in exc.value.problems)


def test_snapshot_scores_aligner_and_systems_and_the_dashboard_shows_them(world):
    project, anna, ben, lead, pair = world
    systems.import_for(project, "giza", "g.txt", b"p1\t1-0 2-1\n", "pharaoh")
    good = {"pairs": {"p1": {"phrases": [{"s1": [1], "s2": [0], "label": "sure"}]}}}
    systems.import_for(project, "giza", "g.json", json.dumps(good).encode(), "native")
    annotation_services.set_links(pair, lead, [(1, 0), (2, 1)], sure=True, base_version=None, is_gold=True)
    recompute(project.pk)
    results = latest_snapshot(project).results
    assert [r["annotator"] for r in results["machine"]["aligner"]] == ["anna", "ben"]
    giza = results["machine"]["systems"][0]
    assert giza["system"] == "giza" and {r["reference"] for r in giza["against"]} == {"anna", "ben", "gold"}
    assert results["kappa_c_baseline"]["sources"]
    assert "spade.system.alir" in results["report"]["measures"]
    html = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk])).content.decode()
    assert "Annotators against the automatic aligner" in html and "System “giza”" in html
    assert "κ_C baseline" in html


def test_a_new_system_import_triggers_a_new_snapshot(world):
    project, *_ = world
    recompute(project.pk)
    assert recompute(project.pk) == "unchanged"
    systems.import_for(project, "giza", "g.txt", b"p1\t1-0\n", "pharaoh")
    assert recompute(project.pk).startswith("stored")


def test_lead_imports_through_the_page_and_the_api(world):
    project, anna, ben, lead, pair = world
    client = logged_in(lead)
    upload = SimpleUploadedFile("g.txt", b"p1\t1-0\n")
    response = client.post(
        reverse("annotator:corpus-systems", args=[project.pk]),
        {"name": "giza", "format": "pharaoh", "file": upload},
    )
    assert (
        response.status_code == 200
        and "Imported the alignments of 1 pairs for giza" in response.content.decode()
    )
    url = reverse("api-systems-list", kwargs={"project_pk": project.pk})
    body = {"name": "fast", "format": "native", "alignments": {"p2": {"sure": [[0, 0]]}}}
    created = client.post(url, body, content_type="application/json")
    assert created.status_code == 201 and created.json() == {"name": "fast", "pairs": 1}
    bad = client.post(
        url, {"name": "x", "format": "native", "alignments": {"nope": {}}}, content_type="application/json"
    )
    assert bad.status_code == 400 and "no pair 'nope'" in json.dumps(bad.json())
    listed = client.get(url).json()
    assert {s["name"] for s in listed["systems"]} == {"giza", "fast"}
    assert logged_in(anna).get(url).status_code in (403, 404)
