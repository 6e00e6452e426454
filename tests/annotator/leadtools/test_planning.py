"""Planning the work: choosing pairs, distributing them, previewing the load, writing, reassigning."""

from collections import Counter

import pytest
from django.core.exceptions import ValidationError

from annotator.annotation import services as annotation_services
from annotator.corpus import projects
from annotator.leadtools import planning
from annotator.models import Assignment, Membership
from annotator.projects import members
from annotator.projects.roles import grant_role
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    lead = make.cast().lead
    people = [*make.cast().annotators, make.user("dan")]
    project = make.project_with_pairs("Plan", n_pairs=12, lead=lead)
    for user in people:
        grant_role(project, user, Membership.Role.ANNOTATOR)
    return project, people


def ids(users):
    return [u.pk for u in users]


def test_all_selects_every_pair_in_order(setup):
    project, _ = setup
    assert planning.select_pairs(project) == list(
        project.pairs.order_by("position").values_list("pk", flat=True)
    )


def test_sample_is_seeded_and_has_n_pairs(setup):
    project, _ = setup
    first = planning.select_pairs(project, selection="sample", n=5, seed=7)
    assert len(first) == 5 and first == planning.select_pairs(project, selection="sample", n=5, seed=7)
    assert first != planning.select_pairs(project, selection="sample", n=5, seed=8)


def test_sample_larger_than_the_project_says_how_many_there_are(setup):
    project, _ = setup
    with pytest.raises(ValidationError) as err:
        planning.select_pairs(project, selection="sample", n=50, seed=1)
    assert "only 12 pairs" in err.value.message_dict["n"][0]


def test_filter_by_source_prefix_corpus_label_and_unassigned(setup):
    project, people = setup
    pairs = list(project.pairs.order_by("position"))
    pairs[0].corpus_labels = {"quality": 1}
    pairs[0].save()
    pairs[1].corpus_labels = {"quality": "0"}
    pairs[1].save()
    by_label = planning.select_pairs(
        project, selection="filter", conditions=planning.PairFilter(label_key="quality", label_value="1")
    )
    assert by_label == [pairs[0].pk]
    assert planning.select_pairs(
        project, selection="filter", conditions=planning.PairFilter(source_prefix="p1")
    ) == [p.pk for p in pairs if p.source_id.startswith("p1")]
    projects.assign_pairs(project, people[:1], pairs[:3])
    unassigned = planning.select_pairs(
        project, selection="filter", conditions=planning.PairFilter(unassigned=True)
    )
    assert unassigned == [p.pk for p in pairs[3:]]


def test_filter_no_annotations_yet_leaves_out_annotated_pairs_but_not_gold_only(setup):
    project, people = setup
    pairs = list(project.pairs.order_by("position"))
    projects.assign_pairs(project, people[:1], pairs[:1])
    annotation_services.set_pair_label(pairs[0], people[0], "paraphrase", base_version=None)
    annotation_services.set_pair_label(pairs[1], people[0], "paraphrase", base_version=None, is_gold=True)
    chosen = planning.select_pairs(
        project, selection="filter", conditions=planning.PairFilter(unannotated=True)
    )
    assert pairs[0].pk not in chosen and pairs[1].pk in chosen


def test_everyone_gives_every_pair_to_every_annotator(setup):
    project, people = setup
    plan = planning.plan_assignments(project, annotator_ids=ids(people[:3]), per_pair="everyone")
    assert len(plan.assignments) == 36
    assert {load.username: load.new for load in plan.loads} == {"anna": 12, "ben": 12, "cat": 12, "dan": 0}


def test_one_each_splits_the_pairs_evenly_without_overlap(setup):
    project, people = setup
    plan = planning.plan_assignments(project, annotator_ids=ids(people), per_pair="one", seed=3)
    per_pair = Counter(p for _, p in plan.assignments)
    assert set(per_pair.values()) == {1} and len(per_pair) == 12
    assert sorted(Counter(a for a, _ in plan.assignments).values()) == [3, 3, 3, 3]


@pytest.mark.parametrize(("m", "k", "n"), [(4, 2, 12), (3, 2, 12), (4, 3, 12)])
def test_k_each_balances_load_and_overlap(setup, m, k, n):
    project, people = setup
    plan = planning.plan_assignments(project, annotator_ids=ids(people[:m]), per_pair="k", k=k, seed=11)
    per_pair = Counter(p for _, p in plan.assignments)
    assert set(per_pair.values()) == {k}
    loads = Counter(a for a, _ in plan.assignments).values()
    assert max(loads) - min(loads) <= 1
    shared = plan.overlap.values()
    assert len(shared) == m * (m - 1) // 2 and max(shared) - min(shared) <= 1


def test_k_larger_than_the_annotators_chosen_is_refused(setup):
    project, people = setup
    with pytest.raises(ValidationError) as err:
        planning.plan_assignments(project, annotator_ids=ids(people[:2]), per_pair="k", k=3)
    assert "between 1 and 2" in err.value.message_dict["k"][0]


def test_a_user_who_is_not_an_annotator_cannot_be_planned(setup):
    project, _ = setup
    outsider = make.user("zed")
    with pytest.raises(ValidationError) as err:
        planning.plan_assignments(project, annotator_ids=[outsider.pk])
    assert "not an annotator" in err.value.message_dict["annotators"][0]


def test_preview_writes_nothing_and_apply_is_idempotent(setup):
    project, people = setup
    plan = planning.plan_assignments(
        project, annotator_ids=ids(people), per_pair="k", k=2, seed=5, phase="agreement"
    )
    assert Assignment.objects.count() == 0
    assert planning.apply_plan(plan) == 24
    assert set(Assignment.objects.values_list("phase", flat=True)) == {"agreement"}
    assert planning.apply_plan(plan) == 0
    again = planning.plan_assignments(
        project, annotator_ids=ids(people), per_pair="k", k=2, seed=5, phase="agreement"
    )
    assert again.new_assignments == [] and {load.existing for load in again.loads} == {6}


def test_reassign_moves_only_unfinished_work(setup):
    project, people = setup
    anna, ben = people[:2]
    pairs = list(project.pairs.order_by("position"))
    projects.assign_pairs(project, [anna], pairs[:4])
    projects.assign_pairs(project, [ben], pairs[3:5])
    rows = list(Assignment.objects.filter(annotator=anna).order_by("queue_position"))
    rows[0].status = Assignment.Status.DONE
    rows[0].save()
    rows[1].status, rows[1].time_spent = Assignment.Status.POSTPONED, 30
    rows[1].save()
    result = members.reassign(project, anna, ben)
    assert (result.moved, result.already_held) == (2, 1)  # p4 was already ben's
    assert list(Assignment.objects.filter(annotator=anna).values_list("pair_id", flat=True)) == [pairs[0].pk]
    moved = Assignment.objects.get(annotator=ben, pair=pairs[1])
    assert moved.status == Assignment.Status.TODO and moved.time_spent == 0
    assert Assignment.objects.filter(annotator=ben).count() == 4
    assert project.memberships.filter(user=anna).exists()


def test_reassign_can_remove_the_annotator_from_the_project(setup):
    project, people = setup
    projects.assign_pairs(project, people[:1], project.pairs.all()[:2])
    result = members.reassign(project, people[0], people[1], remove_member=True)
    assert result.removed_from_project
    assert not project.memberships.filter(user=people[0], role=Membership.Role.ANNOTATOR).exists()


def test_reassign_to_oneself_or_an_outsider_is_refused(setup):
    project, people = setup
    with pytest.raises(ValidationError):
        members.reassign(project, people[0], people[0])
    with pytest.raises(ValidationError) as err:
        members.reassign(project, people[0], make.user("zed"))
    assert "not an annotator" in err.value.message_dict["to_user"][0]
