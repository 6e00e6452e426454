"""Every API write that names another object (tagset, project, pair, type, item, user, annotation row)
checks that the caller may use it: one test per such field of every writable serializer. The world:
Alpha (lead lena; anna and ben annotate) and Beta (lead otto; ben annotates), tests/make.py."""

from __future__ import annotations

import pytest

from annotator import access
from annotator.annotation import services as annotation_services
from annotator.corpus.projects import create_unit
from annotator.models import (
    AlignmentLink,
    Assignment,
    EvaluationUnit,
    Judgement,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
    Tagset,
)
from annotator.projects import tagsets
from tests import make
from tests.make import api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    w = make.two_projects()
    w.other_pair = w.other_project.pairs.get()
    w.private = tagsets.clone_tagset(
        w.other_project.tagset, w.other_lead, name="Otto's types", project=w.other_project
    )
    w.other_project.refresh_from_db()
    return w


def post(person, url, body):
    return api_client(person).post(url, body, format="json")


# ---- projects: tagset ---------------------------------------------------------------------------


def test_a_lead_cannot_give_her_project_another_leads_private_tagset(world):
    answer = api_client(world.lead).patch(
        f"/api/projects/{world.project.pk}/", {"tagset": world.private.pk}, format="json"
    )
    assert answer.status_code == 400 and "tagset" in answer.json()
    world.project.refresh_from_db()
    assert world.project.tagset_id != world.private.pk
    assert not access.may_edit_tagset(world.lead, world.private)


def test_a_new_project_cannot_take_another_leads_private_tagset(world):
    answer = post(world.lead, "/api/projects/", {"name": "Gamma", "tagset": world.private.pk})
    assert answer.status_code == 400 and "tagset" in answer.json()
    assert not Project.objects.filter(name="Gamma").exists()


def test_a_lead_may_use_built_in_and_her_own_tagsets(world):
    own = tagsets.create_tagset(world.lead, "Lena's own")
    for tagset in (Tagset.objects.filter(builtin=True).first(), own):
        answer = api_client(world.lead).patch(
            f"/api/projects/{world.project.pk}/", {"tagset": tagset.pk}, format="json"
        )
        assert answer.status_code == 200, answer.content
        assert answer.json()["tagset"] == tagset.pk


def test_the_owner_keeps_editing_her_tagset(world):
    api_client(world.lead).patch(
        f"/api/projects/{world.project.pk}/", {"tagset": world.private.pk}, format="json"
    )
    assert access.may_edit_tagset(world.other_lead, world.private)


def test_an_admin_may_give_any_tagset(world):
    answer = api_client(world.admin).patch(
        f"/api/projects/{world.project.pk}/", {"tagset": world.private.pk}, format="json"
    )
    assert answer.status_code == 200


# ---- pairs and assignments: project, pairs ------------------------------------------------------


def test_a_pair_cannot_be_added_to_another_leads_project(world):
    body = {"project": world.other_project.pk, "source_id": "x1", "tokens1": ["a"], "tokens2": ["b"]}
    assert post(world.lead, "/api/pairs/", body).status_code == 404
    assert not Pair.objects.filter(source_id="x1").exists()


def test_assignments_cannot_be_made_in_another_leads_project(world):
    body = {"project": world.other_project.pk, "annotators": [world.anna.username]}
    assert post(world.lead, "/api/assignments/", body).status_code == 404
    assert not Assignment.objects.filter(project=world.other_project, annotator=world.anna).exists()


def test_assignments_cannot_name_another_projects_pair(world):
    body = {"project": world.project.pk, "annotators": [world.anna.username], "pairs": [world.other_pair.pk]}
    answer = post(world.lead, "/api/assignments/", body)
    assert answer.status_code == 400 and "pairs" in answer.json()
    assert not Assignment.objects.filter(pair=world.other_pair, annotator=world.anna).exists()


def test_assignments_name_their_annotators_by_existing_usernames(world):
    for pairs in ([world.pair.pk], None):  # listed pairs, and the whole project through the planner
        body = {"project": world.project.pk, "annotators": ["no-such-user"], "pairs": pairs}
        answer = post(world.lead, "/api/assignments/", body)
        assert answer.status_code == 400 and "annotators" in answer.json()
    assert not Assignment.objects.filter(annotator__username="no-such-user").exists()


# ---- annotations: pair, ptype -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/pair-labels/", {"label": "paraphrase", "base_version": None}),
        ("/api/phenomena/", {"ptype": 0, "scope1": [0], "scope2": [0], "base_version": None}),
        ("/api/links/", {"links": [[0, 0]], "base_version": None}),
        ("/api/links/remove/", {"links": [[0, 0]], "base_version": None}),
        ("/api/links/toggle/", {"links": [[0, 0]], "base_version": None}),
        ("/api/phrase-alignments/", {"node1": 0, "node2": 0, "base_version": None}),
    ],
)
def test_an_annotator_cannot_write_on_a_pair_not_assigned_to_her(world, url, body):
    if body.get("ptype") == 0:
        body = {**body, "ptype": world.any_ptype().pk}
    answer = post(world.anna, url, {**body, "pair": world.other_pair.pk})
    assert answer.status_code == 404
    for model in (PairLabel, Phenomenon, AlignmentLink, PhraseAlignment):
        assert not model.objects.filter(pair=world.other_pair).exists()


def test_a_phenomenon_cannot_take_a_type_of_another_tagset(world):
    foreign = ParaphraseType.objects.filter(tagset=world.private).first()
    body = {"pair": world.pair.pk, "ptype": foreign.pk, "scope1": [0], "scope2": [0], "base_version": None}
    answer = post(world.anna, "/api/phenomena/", body)
    assert answer.status_code == 400 and "ptype" in answer.json()
    assert not Phenomenon.objects.filter(ptype=foreign).exists()


def test_a_phenomenon_cannot_be_changed_to_a_type_of_another_tagset(world):
    phenomenon, version = annotation_services.add_phenomenon(
        world.pair, world.anna, world.any_ptype(), scope1=[0], scope2=[0], base_version=None
    )
    foreign = ParaphraseType.objects.filter(tagset=world.private).first()
    answer = api_client(world.anna).patch(
        f"/api/phenomena/{phenomenon.pk}/", {"ptype": foreign.pk, "base_version": version}, format="json"
    )
    assert answer.status_code == 400 and "ptype" in answer.json()
    phenomenon.refresh_from_db()
    assert phenomenon.ptype_id == world.any_ptype().pk


# ---- evaluation: project, item ------------------------------------------------------------------


def _unit(project):
    return create_unit(project, "u1", "The film opened .", "opened", 9, 15, [("s1", "premiered", "x")])


def test_a_unit_cannot_be_created_in_another_leads_project(world):
    body = {
        "project": world.other_project.pk,
        "source_id": "u9",
        "source_sentence": "The film opened .",
        "phrase": "opened",
        "phrase_start": 9,
        "phrase_end": 15,
        "substitutions": [{"id": "s1", "paraphrase": "premiered", "candidate_source": "x"}],
    }
    assert post(world.lead, "/api/units/", body).status_code == 404
    assert not EvaluationUnit.objects.filter(source_id="u9").exists()


def test_units_cannot_be_assigned_in_another_leads_project(world):
    _unit(world.other_project)
    body = {"project": world.other_project.pk, "raters": [world.anna.username], "r": 1}
    assert post(world.lead, "/api/units/assign/", body).status_code == 404
    assert not Assignment.objects.filter(unit__project=world.other_project).exists()


def test_a_judgement_cannot_name_an_item_of_a_unit_not_assigned(world):
    item = _unit(world.other_project).items.get()
    body = {"item": item.pk, "step": "grammaticality", "answers": {}, "base_version": None}
    assert post(world.anna, "/api/judgements/", body).status_code in (403, 404)
    assert not Judgement.objects.filter(item=item).exists()


# ---- jobs: project ------------------------------------------------------------------------------


def test_an_export_cannot_name_another_leads_project(world):
    assert post(world.lead, "/api/jobs/export/", {"project": world.other_project.pk}).status_code == 404


# ---- lead tools: annotators, source, rows -------------------------------------------------------


def _adjudication(world, rest=""):
    return f"/api/projects/{world.project.pk}/pairs/{world.pair.pk}/adjudication/{rest}"


def test_the_planner_cannot_name_a_user_outside_the_project(world):
    body = {"annotators": [world.outsider.pk], "dry_run": True}
    answer = post(world.lead, f"/api/projects/{world.project.pk}/planner/plan/", body)
    assert answer.status_code == 400


def test_reassignment_cannot_name_a_user_outside_the_project(world):
    url = f"/api/projects/{world.project.pk}/planner/reassign/"
    for body in (
        {"from_user": world.outsider.pk, "to_user": world.anna.pk},
        {"from_user": world.anna.pk, "to_user": world.outsider.pk},
    ):
        assert post(world.lead, url, body).status_code == 400
    assert not Assignment.objects.filter(annotator=world.outsider).exists()


def test_gold_cannot_take_the_version_of_a_user_outside_the_project(world):
    answer = post(
        world.lead, _adjudication(world, "take/"), {"source": world.outsider.pk, "base_version": None}
    )
    assert answer.status_code == 400 and "source" in answer.json()


def test_gold_cannot_merge_rows_of_another_pair(world):
    ptype = world.other_project.tagset.types.filter(scope_sides="both", projection_required=False).first()
    other, _ = annotation_services.add_phenomenon(
        world.other_pair, world.ben, ptype, scope1=[0], scope2=[0], base_version=None
    )
    version = annotation_services.set_links(
        world.other_pair, world.ben, [(0, 0)], sure=True, base_version=None
    )
    link = AlignmentLink.objects.get(pair=world.other_pair, annotator=world.ben)
    for field, row in (("phenomena", other.pk), ("links", link.pk)):
        post(world.lead, _adjudication(world, "merge/"), {field: [row], "base_version": None})
    assert not Phenomenon.objects.filter(pair=world.pair, is_gold=True).exists()
    assert not AlignmentLink.objects.filter(pair=world.pair, is_gold=True).exists()
    assert version


def test_gold_cannot_copy_the_label_of_a_user_outside_the_project(world):
    body = {"label_from": world.outsider.pk, "base_version": None}
    answer = post(world.lead, _adjudication(world, "merge/"), body)
    assert answer.status_code == 400 and "label_from" in answer.json()


def test_a_gold_phenomenon_cannot_take_a_type_of_another_tagset(world):
    foreign = ParaphraseType.objects.filter(tagset=world.private).first()
    body = {"ptype": foreign.pk, "scope1": [0], "scope2": [0], "base_version": None}
    answer = post(world.lead, _adjudication(world, "phenomena/"), body)
    assert answer.status_code == 400 and "ptype" in answer.json()
    assert not Phenomenon.objects.filter(ptype=foreign).exists()


def test_systems_cannot_name_a_pair_of_another_project(world):
    body = {"name": "sys", "alignments": {str(world.other_pair.pk): {"sure": [[0, 0]]}}}
    answer = post(world.lead, f"/api/projects/{world.project.pk}/systems/", body)
    assert answer.status_code == 400
