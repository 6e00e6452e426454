"""Opening, paging past, skipping or postponing a pair records nothing as anybody's annotation.

The defect this guards against: the editor copied the pair's automatic alignment into the annotator's
links on first opening, so a person who only moved through the queue appeared in κ_C, the explorer and
the exports with word alignments they never made. Now the automatic links are suggestions only.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotator.agreement.computation import latest_snapshot, recompute
from annotator.annotation import services as annotation_services
from annotator.annotation import worklist as work
from annotator.corpus import projects
from annotator.corpus.exports import export_project
from annotator.models import (
    AgreementSnapshot,
    AlignmentLink,
    AnnotationHistory,
    Assignment,
    Pair,
    PairLabel,
    Phenomenon,
    PhraseAlignment,
)
from tests import make
from tests.make import logged_in, save, url

pytestmark = pytest.mark.django_db
ANNOTATION_MODELS = (AlignmentLink, PairLabel, Phenomenon, PhraseAlignment, AnnotationHistory, Pair)


def _rows() -> dict[str, list[dict[str, Any]]]:
    return {m.__name__: sorted(m.objects.values(), key=lambda r: r["id"]) for m in ANNOTATION_MODELS}


def _exports(project: Any) -> dict[str, bytes]:
    out = {
        "native": export_project("native", project).data,
        "native.jsonl": export_project("native", project, jsonl=True).data,
        "report": export_project("report", project).data,
    }
    for name in ("anna", "ben"):
        for fmt in ("pharaoh", "csv", "etpc"):
            out[f"{fmt}-{name}"] = export_project(fmt, project, annotator=name).data
    return out


def _without_assignment_status(data: bytes) -> bytes:
    """The native export minus the assignments' queue state (opening puts a pair in progress)."""
    doc = json.loads(data)
    for row in doc["workbench"]["assignments"]:
        row.pop("status")
    return json.dumps(doc, sort_keys=True).encode()


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


def test_open_next_previous_postpone_change_no_row_no_snapshot_and_no_export_byte(world):
    project, anna, ben, plain = world
    rows, exports = _rows(), _exports(project)
    snapshot = latest_snapshot(project)
    ben_client, anna_client = logged_in(ben), logged_in(anna)
    pairs = list(project.pairs.order_by("position"))
    for pair in pairs:  # ben pages through his whole queue with "next"
        assert ben_client.get(url("pair-edit", pair)).status_code == 200
        assert ben_client.get(url("pair-next", pair)).status_code == 302
    ben_client.get(url("pair-previous", pairs[-1]))
    assert ben_client.post(url("pair-postpone", plain)).status_code == 302
    assert anna_client.get(url("pair-edit", plain)).status_code == 200  # anna only opens 4237

    assert _rows() == rows
    assert recompute(project.pk) in ("stored", "unchanged")
    after = latest_snapshot(project)
    assert after.results == snapshot.results
    assert AgreementSnapshot.objects.filter(project=project).count() >= 1
    now = _exports(project)
    for name, data in exports.items():
        if name.startswith("native"):
            continue
        assert now[name] == data, name
    assert _without_assignment_status(now["native"]) == _without_assignment_status(exports["native"])


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
