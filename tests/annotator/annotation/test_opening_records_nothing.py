"""Opening, paging past, skipping or postponing a pair records nothing: no row, no snapshot value, no
export byte.

The defect this guards against: the editor copied the pair's automatic alignment into the annotator's
links on first opening, so a person who only moved through the queue appeared in κ_C, the explorer and
the exports with word alignments they never made. Now the automatic links are suggestions only.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.apps import apps
from django.urls import reverse

from annotator.agreement.computation import latest_snapshot, recompute
from annotator.annotation import services as annotation_services
from annotator.annotation import worklist as work
from annotator.corpus import projects
from annotator.corpus.exports import export_project
from annotator.models import Assignment, Pair
from tests import make
from tests.make import HTMX, logged_in, save, url

pytestmark = pytest.mark.django_db


def _fingerprint() -> dict[str, list[dict[str, Any]]]:
    """Count and content of every table of the workbench (assignments, history, snapshots, headlines,
    annotations, corpus …), row by row."""
    return {
        model.__name__: sorted(model.objects.values(), key=lambda row, pk=model._meta.pk.attname: row[pk])
        for model in apps.get_app_config("annotator").get_models()
    }


def _changed(before: dict[str, list[dict[str, Any]]], after: dict[str, list[dict[str, Any]]]) -> list[str]:
    return [name for name in before if before[name] != after[name]]


def _exports(project: Any) -> dict[str, bytes]:
    """Every export: native (JSON, JSON lines, with history), the report in each form, and each
    per-annotator format for each annotator and for the gold layer, the CSVs included."""
    out = {
        "native": export_project("native", project).data,
        "native.jsonl": export_project("native", project, jsonl=True).data,
        "native+history": export_project("native", project, history=True).data,
        "csv-all": export_project("csv", project).data,
        "jsonl-all": export_project("jsonl", project).data,
    }
    for form in ("json", "csv", "html"):
        out[f"report.{form}"] = export_project("report", project, report_format=form).data
    for who in ("anna", "ben", None):
        for fmt in ("pharaoh", "csv", "etpc", "jsonl", "conll"):
            out[f"{fmt}-{who or 'gold'}"] = export_project(fmt, project, annotator=who, gold=who is None).data
    return out


@pytest.fixture
def world():
    anna, ben, lead = make.user("anna"), make.user("ben"), make.user("lena")
    project = make.project_with_pairs(
        "MRPC", n_pairs=3, lead=lead, annotators=(anna, ben), layer_phrase_alignment=True
    )
    plain = projects.add_pair(project, "4237", tokens1=["He", "left", "."], tokens2=["He", "went", "."])
    projects.assign_pairs(project, [anna, ben], [plain])
    first = project.pairs.order_by("position").first()
    # Real work by anna on the first pair, so the snapshot has numbers to keep.
    annotation_services.set_links(first, anna, [(1, 0), (4, 2)], sure=True, base_version=None)
    annotation_services.set_pair_label(first, anna, "paraphrase", base_version=None)
    assert recompute(project.pk) == "stored"
    return project, anna, ben, plain


def _move_through_everything(project: Any, person: Any, plain: Pair) -> None:
    """Open, skip, page back, postpone, take up again — through the pages, the htmx partials and the API."""
    client, api = logged_in(person), make.api_client(person)
    pairs = list(project.pairs.order_by("position"))
    assert client.get(reverse("annotator:queue", args=[project.pk])).status_code == 200
    for pair in pairs:  # the whole queue with "next"
        assert client.get(url("pair-edit", pair)).status_code == 200
        for target in ("links", "workspace", "queue-nav"):
            assert (
                client.get(url("pair-edit", pair), HTTP_HX_REQUEST="true", HTTP_HX_TARGET=target).status_code
                == 200
            )
        assert client.get(url("pair-next", pair)).status_code == 302
    for pair in reversed(pairs):  # and back with "previous"
        assert client.get(url("pair-previous", pair)).status_code == 302
    assert client.post(url("pair-postpone", plain)).status_code == 302
    assert client.post(url("pair-postpone", pairs[0]), **HTMX).status_code == 200
    assert client.get(url("pair-edit", plain)).status_code == 200  # taken up again, and left again
    assert client.post(url("pair-time", plain), {"seconds": "25"}).status_code == 204  # the leaving beacon
    assert client.get(reverse("annotator:queue", args=[project.pk])).status_code == 200
    for pair in pairs:
        for path in (
            f"/api/pairs/{pair.pk}/",
            f"/api/pairs/{pair.pk}/suggestions/",
            f"/api/pairs/{pair.pk}/sheet/",
        ):
            assert api.get(path).status_code == 200, path
    for path in ("/api/pairs/", "/api/assignments/", "/api/pair-labels/", "/api/links/", "/api/phenomena/"):
        assert api.get(path, {"project": project.pk}).status_code == 200, path


def test_open_next_previous_postpone_change_no_row_no_snapshot_and_no_export_byte(world):
    project, anna, ben, plain = world
    make.api_client(anna), make.api_client(ben)  # tokens and logins made before the fingerprint
    logged_in(anna), logged_in(ben)
    rows, exports = _fingerprint(), _exports(project)
    snapshot = latest_snapshot(project)

    _move_through_everything(project, ben, plain)  # ben has done nothing yet
    _move_through_everything(project, anna, plain)  # anna has work on the first pair

    assert _changed(rows, _fingerprint()) == []
    assert recompute(project.pk) == "unchanged"
    assert latest_snapshot(project).results == snapshot.results
    now = _exports(project)
    assert [name for name, data in exports.items() if now[name] != data] == []
    ben_queue = Assignment.objects.filter(annotator=ben).values_list("status", "started_at", "time_spent")
    assert set(ben_queue) == {("todo", None, 0)}


def test_a_pair_counts_as_word_aligned_once_marked_done_after_seeing_it(world):
    project, anna, ben, plain = world
    client = logged_in(ben)
    client.get(url("pair-edit", plain))
    annotation_services.set_pair_label(plain, ben, "paraphrase", base_version=None)
    identical = project.tagset.types.get(name="Identical")
    annotation_services.add_phenomenon(plain, ben, identical, scope1=[0], scope2=[0], base_version=None)
    assignment = work.assignment_for(ben, plain)
    assert work.mark_done(assignment, plain, ben) == []
    recompute(project.pk)
    doc = export_project("native", project).data.decode()
    alignments = json.loads(doc)["word_alignments"]
    # ben finished 4237 without accepting a suggestion: an empty alignment of his, not the aligner's.
    assert alignments["ben"] == {"4237": {"sure": [], "possible": []}}
    assert "4237" not in alignments["anna"]


def test_accepting_suggestions_makes_them_the_annotators_own_links(world):
    project, anna, ben, plain = world
    client = logged_in(ben)
    client.get(url("pair-edit", plain))
    assert save(client, "link-accept", plain, ben, {}).status_code == 200
    recompute(project.pk)
    assert latest_snapshot(project).results != {}
    pharaoh = export_project("pharaoh", project, annotator="ben").data.decode()
    assert "4237\t0-0 2-2" in pharaoh
    assert Assignment.objects.get(annotator=ben, pair=plain).status == "in_progress"
