"""`annotator.agreement.document.project_document`: the database as the metrics interchange document (spec §9)."""

from __future__ import annotations

import pytest

from annotator.agreement.document import project_document
from annotator.annotation import services as annotation_services
from annotator.models import Assignment, EvaluationItem, EvaluationUnit, Judgement, Membership, ParaphraseType
from annotator.projects.roles import grant_role
from metrics.document import parse_document
from metrics.report import build_report
from tests import make

pytestmark = pytest.mark.django_db


def ptype(name: str) -> ParaphraseType:
    return make.vila().types.get(name=name)


@pytest.fixture
def team():
    lead = make.cast().lead
    cast = make.cast()
    anns = (cast.cat, cast.anna, cast.ben)
    project = make.project_with_pairs(n_pairs=3, lead=lead, annotators=anns, layer_phrase_alignment=True)
    return project, lead, anns


def test_annotators_are_annotator_members_in_username_order(team):
    project, lead, _ = team
    grant_role(project, make.user("zed"), Membership.Role.LEAD)
    doc = project_document(project)
    assert doc["annotators"] == ["anna", "ben", "cat"]
    assert doc["format"] == "paraphrase-agreement/1"


def test_pairs_follow_position_with_tokens_and_initial_alignment(team):
    project, _, _ = team
    doc = project_document(project)
    assert [p["id"] for p in doc["pairs"]] == ["p1", "p2", "p3"]
    assert doc["pairs"][0]["tokens1"][:2] == ["The", "film"]
    assert doc["pairs"][0]["initial_alignment"] == [[1, 0], [4, 2], [5, 3]]


def test_tagset_carries_one_sided_flag_from_scope_sides(team):
    project, _, _ = team
    types = {t["name"]: t["one_sided"] for t in project_document(project)["tagset"]["types"]}
    assert types["Addition/deletion"] is True
    assert types["Synthetic/analytic"] is False
    assert types["Identical"] is False  # "any" sides is not one-sided
    assert len(types) == 24


def test_phenomena_of_started_annotators_with_null_projection_and_keys(team):
    project, lead, (cat, anna, ben) = team
    p1 = project.pairs.get(source_id="p1")
    annotation_services.add_phenomenon(
        p1,
        anna,
        ptype("Synthetic/analytic"),
        scope1=[1, 0],
        scope2=[0],
        projection="local",
        base_version=None,
    )
    annotation_services.add_phenomenon(
        p1, anna, ptype("Diathesis"), scope1=[2], scope2=[1], key1=[2], base_version=None
    )
    annotation_services.add_phenomenon(
        p1, cat, ptype("Addition/deletion"), scope1=[3], scope2=[], projection="global", base_version=None
    )
    doc = project_document(project)
    assert set(doc["phenomena"]) == {"anna", "cat"}  # ben has not started
    assert doc["phenomena"]["anna"] == [
        {
            "pair": "p1",
            "type": "Synthetic/analytic",
            "s1": [0, 1],
            "s2": [0],
            "projection": "local",
            "key1": [],
            "key2": [],
        },
        {
            "pair": "p1",
            "type": "Diathesis",
            "s1": [2],
            "s2": [1],
            "projection": None,
            "key1": [2],
            "key2": [],
        },
    ]
    assert doc["phenomena"]["cat"][0]["s2"] == []


def test_annotator_with_done_pair_but_no_phenomena_takes_part_with_empty_list(team):
    project, _, (cat, anna, ben) = team
    Assignment.objects.filter(annotator=ben, pair__source_id="p2").update(status=Assignment.Status.DONE)
    doc = project_document(project)
    assert doc["phenomena"] == {"ben": []}


def test_gold_rows_and_former_annotators_are_left_out(team):
    project, lead, (cat, anna, ben) = team
    p1 = project.pairs.get(source_id="p1")
    annotation_services.add_phenomenon(
        p1, lead, ptype("Diathesis"), scope1=[2], scope2=[1], base_version=None, is_gold=True
    )
    annotation_services.set_links(p1, lead, [(1, 0)], sure=True, base_version=None, is_gold=True)
    outsider = make.user("gone")
    annotation_services.add_phenomenon(
        p1, outsider, ptype("Diathesis"), scope1=[2], scope2=[1], base_version=None
    )
    doc = project_document(project)
    assert doc["phenomena"] == {}
    assert doc["word_alignments"] == {}


def test_word_alignment_entry_when_links_or_assignment_done(team):
    project, _, (cat, anna, ben) = team
    p1, p2 = project.pairs.get(source_id="p1"), project.pairs.get(source_id="p2")
    annotation_services.set_links(p1, anna, [(1, 0), (4, 2)], sure=True, base_version=None)
    annotation_services.set_links(p1, anna, [(2, 1)], sure=False, base_version=None)
    Assignment.objects.filter(annotator=anna, pair=p2).update(status=Assignment.Status.DONE)
    doc = project_document(project)
    assert doc["word_alignments"] == {
        "anna": {"p1": {"sure": [[1, 0], [4, 2]], "possible": [[2, 1]]}, "p2": {"sure": [], "possible": []}}
    }


def test_phrase_alignments_are_node_token_spans(team):
    project, _, (cat, anna, ben) = team
    p1 = project.pairs.get(source_id="p1")
    # node 1 of tree 1 = NP "The film" (tokens 0-1); node 1 of tree 2 = NP "Film" (token 0)
    annotation_services.add_phrase_alignment(p1, anna, 1, 1, base_version=None)
    annotation_services.add_phrase_alignment(p1, anna, 1, None, sure=False, base_version=None)
    doc = project_document(project)
    assert doc["phrase_alignments"] == {
        "anna": [
            {"pair": "p1", "s1": [0, 1], "s2": [0], "label": "sure"},
            {"pair": "p1", "s1": [0, 1], "s2": None, "label": "possible"},
        ]
    }


def test_pair_labels_extension_key(team):
    project, _, (cat, anna, ben) = team
    p1, p2 = project.pairs.get(source_id="p1"), project.pairs.get(source_id="p2")
    annotation_services.set_pair_label(p1, anna, "paraphrase", base_version=None)
    annotation_services.set_pair_label(p2, anna, "non_paraphrase", base_version=None)
    annotation_services.set_pair_label(p1, ben, "paraphrase", base_version=None)
    annotation_services.set_comment(p1, cat, "unsure", base_version=None)  # a sheet without a label
    assert project_document(project)["pair_labels"] == {
        "anna": {"p1": "paraphrase", "p2": "non_paraphrase"},
        "ben": {"p1": "paraphrase"},
    }


def test_layers_switched_off_leave_their_sections_out(team):
    project, _, _ = team
    project.layer_word_alignment = project.layer_phrase_alignment = project.layer_pair_label = False
    project.save()
    doc = project_document(project)
    assert "word_alignments" not in doc and "phrase_alignments" not in doc and "pair_labels" not in doc
    assert "evaluations" not in doc and "phenomena" in doc


def add_unit(project, source_id: str, n_items: int) -> list[EvaluationItem]:
    unit = EvaluationUnit.objects.create(
        project=project,
        source_id=source_id,
        source_sentence="a b c",
        phrase="b",
        phrase_start=2,
        phrase_end=3,
    )
    return [
        EvaluationItem.objects.create(
            unit=unit,
            source_id=f"e{n}",
            position=n,
            paraphrase="x",
            sentence="a x c",
            substitution_start=2,
            substitution_end=3,
        )
        for n in range(n_items)
    ]


def test_evaluations_combine_steps_into_one_rating_and_revisions(team):
    project, _, (cat, anna, ben) = team
    project.layer_evaluation = True
    project.save()
    (u1e0,) = add_unit(project, "u1", 1)
    (u2e0,) = add_unit(project, "u2", 1)  # same item source id in another unit
    Judgement.objects.create(item=u1e0, rater=anna, step="grammaticality", label="Perfect")
    Judgement.objects.create(item=u1e0, rater=anna, step="meaning", label="Equivalent")
    Judgement.objects.create(item=u2e0, rater=ben, step="grammaticality", label="Awkward")
    Judgement.objects.create(
        item=u1e0, rater=anna, step="meaning", phase="reevaluation", label="Missing Info."
    )
    Judgement.objects.create(item=u2e0, rater=anna, step="meaning", phase="reevaluation", label="Equivalent")
    ev = project_document(project)["evaluations"]
    assert ev["raters"] == ["anna", "ben", "cat"]
    assert ev["ratings"] == [
        {"item": "u1/e0", "rater": "anna", "G": "Perfect", "M": "Equivalent"},
        {"item": "u2/e0", "rater": "ben", "G": "Awkward"},
    ]
    assert ev["revisions"] == [{"item": "u1/e0", "rater": "anna", "M": "Missing Info."}]


def test_document_is_valid_for_the_metrics_library(team):
    project, _, (cat, anna, ben) = team
    project.layer_evaluation = True
    project.save()
    p1 = project.pairs.get(source_id="p1")
    for who, scope in ((anna, [0, 1]), (ben, [1]), (cat, [0, 1])):
        annotation_services.add_phenomenon(
            p1,
            who,
            ptype("Synthetic/analytic"),
            scope1=scope,
            scope2=[0],
            projection="local",
            base_version=None,
        )
        annotation_services.set_links(p1, who, [(1, 0), (2, 1)], sure=True, base_version=None)
        annotation_services.set_pair_label(p1, who, "paraphrase", base_version=None)
    doc = parse_document(project_document(project))
    assert doc.annotators == ("anna", "ben", "cat")
    report = build_report(
        parse_document({k: v for k, v in project_document(project).items() if k != "phrase_alignments"})
    )
    assert report["measures"]["iapta.phenomena.count"]["by_annotator"] == {"anna": 1, "ben": 1, "cat": 1}


def test_query_count_does_not_grow_with_data(team, django_assert_max_num_queries):
    project, _, (cat, anna, ben) = team
    project.layer_evaluation = True
    project.save()
    for pair in project.pairs.all():
        for who in (anna, ben, cat):
            annotation_services.add_phenomenon(
                pair, who, ptype("Diathesis"), scope1=[2], scope2=[1], base_version=None
            )
            annotation_services.set_links(pair, who, [(1, 0)], sure=True, base_version=None)
            annotation_services.add_phrase_alignment(pair, who, 1, 1, base_version=None)
    with django_assert_max_num_queries(11):
        project_document(project)
