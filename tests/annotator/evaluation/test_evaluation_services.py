from collections import Counter
from itertools import combinations

import pytest
from django.core.exceptions import ValidationError

from annotator.annotation.services import ConflictError
from annotator.corpus.projects import create_unit
from annotator.evaluation import services as evaluation
from annotator.models import AgreementState, AnnotationHistory, Assignment, Judgement
from tests import make

pytestmark = pytest.mark.django_db


# ---- create_unit ----------------------------------------------------------------------------------


def test_create_unit_builds_paraphrased_sentences_with_substitution_offsets():
    project = make.evaluation_project(n_units=0)
    unit = make.unit(project)
    items = list(unit.items.all())
    assert [i.sentence for i in items] == [
        "The council postponed the vote until Monday.",
        "The council delayed the vote until Monday.",
        "The council put away the vote until Monday.",
    ]
    assert [i.sentence[i.substitution_start : i.substitution_end] for i in items] == [
        "postponed",
        "delayed",
        "put away",
    ]
    assert [i.candidate_source for i in items] == ["lexicon-A", "lexicon-B", "system-X"]


def test_create_unit_rejects_offsets_that_do_not_mark_the_phrase():
    project = make.evaluation_project(n_units=0)
    with pytest.raises(ValidationError) as err:
        create_unit(project, "u9", make.SENTENCE, "put off", 0, 7, make.SUBSTITUTIONS)
    assert "read 'The cou', not the phrase 'put off'" in err.value.message_dict["phrase"][0]
    assert not project.units.exists()


def test_create_unit_rejects_duplicate_ids_and_empty_substitutions():
    project = make.evaluation_project(n_units=1)
    with pytest.raises(ValidationError, match="already exists"):
        make.unit(project, "u1")
    with pytest.raises(ValidationError, match="'a' is used twice"):
        make.unit(project, "u2", [("a", "x", ""), ("a", "y", "")])
    with pytest.raises(ValidationError, match="substitution 1 has no a paraphrase"):
        make.unit(project, "u3", [("a", " ", "")])
    assert project.units.count() == 1


# ---- assign_units ---------------------------------------------------------------------------------


def _raters_of_units(project):
    groups: dict[int, list[int]] = {}
    for unit_id, rater_id in Assignment.objects.filter(project=project, round=0).values_list(
        "unit_id", "annotator_id"
    ):
        groups.setdefault(unit_id, []).append(rater_id)
    return groups


@pytest.mark.parametrize(("n_raters", "n_units", "r"), [(6, 20, 3), (5, 7, 3), (4, 9, 2), (3, 4, 3)])
def test_assign_units_balances_loads_within_one_and_every_pair_overlaps(n_raters, n_units, r):
    raters = make.raters(n_raters)
    project = make.evaluation_project(n_units=n_units)
    created = evaluation.assign_units(project, raters, r=r, seed=7)
    assert created == n_units * r
    groups = _raters_of_units(project)
    assert all(len(g) == r == len(set(g)) for g in groups.values()) and len(groups) == n_units
    loads = Counter(rid for g in groups.values() for rid in g)
    assert max(loads.values()) - min(loads.values()) <= 1 and len(loads) == n_raters
    pairs = Counter(frozenset(p) for g in groups.values() for p in combinations(g, 2))
    if n_units * r * (r - 1) / 2 >= n_raters * (n_raters - 1) / 2:
        assert len(pairs) == n_raters * (n_raters - 1) // 2


def test_assign_units_is_deterministic_given_the_seed():
    raters = make.raters(6)
    p1 = make.evaluation_project("A", n_units=10)
    p2 = make.evaluation_project("B", n_units=10)
    evaluation.assign_units(p1, raters, r=3, seed=3)
    evaluation.assign_units(p2, raters, r=3, seed=3)

    def by_position(project):
        return sorted(
            Assignment.objects.filter(project=project).values_list("unit__position", "annotator_id")
        )

    assert by_position(p1) == by_position(p2)


def test_assign_units_skips_assigned_units_and_counts_existing_loads():
    raters = make.raters(4)
    project = make.evaluation_project(n_units=3)
    evaluation.assign_units(project, raters, r=3)
    make.unit(project, "u4")
    make.unit(project, "u5")
    assert evaluation.assign_units(project, raters, r=3) == 6
    loads = Counter(Assignment.objects.filter(project=project).values_list("annotator_id", flat=True))
    assert sorted(loads.values()) == [3, 4, 4, 4]


def test_assign_units_rejects_more_raters_per_unit_than_raters():
    project = make.evaluation_project(n_units=1)
    with pytest.raises(ValidationError, match="1 ≤ r ≤ 2"):
        evaluation.assign_units(project, make.raters(2), r=3)


# ---- judgements and steps -------------------------------------------------------------------------


@pytest.fixture
def setup():
    rater = make.cast().anna
    project = make.evaluation_project(raters=(rater,))
    unit = project.units.get()
    return project, unit, list(unit.items.all()), rater


def test_record_judgement_derives_label_from_answers_and_writes_history(setup):
    project, unit, items, rater = setup
    j = evaluation.record_judgement(
        items[0],
        rater,
        "grammaticality",
        answers={"grammatical": "no", "correctable": "yes", "one_edit": "no"},
        base_version=0,
    )
    assert (j.label, j.version) == ("Major Problem", 1)
    history = AnnotationHistory.objects.get(unit=unit, model="judgement")
    assert history.after["label"] == "Major Problem" and history.owner == rater
    assignment = Assignment.objects.get(unit=unit, annotator=rater)
    assert assignment.status == "in_progress" and assignment.started_at is not None
    assert AgreementState.objects.get(project=project).changed_at is not None


def test_revising_a_judgement_keeps_the_earlier_state_in_history(setup):
    _, unit, items, rater = setup
    evaluation.record_judgement(items[0], rater, "grammaticality", label="Perfect", base_version=0)
    j = evaluation.record_judgement(items[0], rater, "grammaticality", label="Awkward", base_version=1)
    assert (j.label, j.version) == ("Awkward", 2)
    update = AnnotationHistory.objects.get(unit=unit, model="judgement", action="update")
    assert (update.before["label"], update.after["label"]) == ("Perfect", "Awkward")


def test_stale_version_gets_conflict_and_changes_nothing(setup):
    _, _, items, rater = setup
    evaluation.record_judgement(items[0], rater, "grammaticality", label="Perfect", base_version=0)
    with pytest.raises(ConflictError) as err:
        evaluation.record_judgement(items[0], rater, "grammaticality", label="Awkward", base_version=0)
    assert err.value.current_version == 1 and "item u1e1" in str(err.value)
    assert Judgement.objects.get().label == "Perfect"


def test_answers_and_a_contradicting_label_are_rejected(setup):
    _, _, items, rater = setup
    with pytest.raises(ValidationError, match="lead to 'Perfect', not 'Awkward'"):
        evaluation.record_judgement(
            items[0],
            rater,
            "grammaticality",
            answers={"grammatical": "yes", "natural": "perfect"},
            label="Awkward",
        )


def test_meaning_waits_for_submitted_grammaticality(setup):
    _, unit, items, rater = setup
    with pytest.raises(ValidationError, match="Submit the grammaticality"):
        evaluation.record_judgement(items[0], rater, "meaning", label="Equivalent")
    evaluation.record_judgement(items[0], rater, "grammaticality", label="Perfect")
    with pytest.raises(ValidationError, match="missing: u1e2, u1e3"):
        evaluation.submit_grammaticality(unit, rater)


def test_grammaticality_is_frozen_once_the_original_was_shown(setup):
    _, unit, items, rater = setup
    for item in items:
        evaluation.record_judgement(item, rater, "grammaticality", label="Perfect")
    assert evaluation.submit_grammaticality(unit, rater).step == "meaning"
    with pytest.raises(ValidationError, match="no longer change"):
        evaluation.record_judgement(items[0], rater, "grammaticality", label="Awkward")


def test_finalize_needs_every_meaning_and_then_locks_the_unit(setup):
    _, unit, items, rater = setup
    for item in items:
        evaluation.record_judgement(item, rater, "grammaticality", label="Perfect")
    evaluation.submit_grammaticality(unit, rater)
    evaluation.record_judgement(items[0], rater, "meaning", label="Equivalent")
    with pytest.raises(ValidationError, match="missing: u1e2, u1e3"):
        evaluation.finalize_unit(unit, rater)
    for item in items[1:]:
        evaluation.record_judgement(item, rater, "meaning", label="Missing Info.")
    evaluation.record_judgement(
        items[0], rater, "meaning", label="Ignorable Change"
    )  # revise before finalizing
    assignment = evaluation.finalize_unit(unit, rater)
    assert (assignment.step, assignment.status) == ("finalized", "done")
    with pytest.raises(ValidationError, match="finalized"):
        evaluation.record_judgement(items[0], rater, "meaning", label="Equivalent")
    steps = [
        h.after["step"]
        for h in AnnotationHistory.objects.filter(unit=unit, model="assignment").order_by("id")
    ]
    assert steps == ["grammaticality", "meaning", "finalized"]


def test_rater_without_assignment_cannot_judge(setup):
    _, _, items, _ = setup
    stranger = make.cast().outsider
    with pytest.raises(ValidationError, match="not assigned"):
        evaluation.record_judgement(items[0], stranger, "grammaticality", label="Perfect")


def test_postponed_unit_returns_after_the_others():
    rater = make.cast().anna
    project = make.evaluation_project(n_units=3, raters=(rater,))
    u1, u2, u3 = project.units.order_by("position")
    evaluation.postpone_unit(u1, rater)
    assert [a.unit for a in evaluation.rating_queue(project, rater)] == [u2, u3, u1]
    assert evaluation.next_unit(project, rater).unit == u2
    make.rate_unit(u2, rater, "Perfect", "Equivalent")
    make.rate_unit(u3, rater, "Perfect", "Equivalent")
    back = evaluation.next_unit(project, rater)
    assert back.unit == u1 and back.status == "postponed"
    evaluation.record_judgement(u1.items.first(), rater, "grammaticality", label="Awkward")
    assert Assignment.objects.get(unit=u1).status == "in_progress"
    assert evaluation.next_unit(project, rater, after=u1.pk).unit == u1  # nothing else is left


def test_finished_unit_cannot_be_postponed(setup):
    _, unit, _, rater = setup
    make.rate_unit(unit, rater, "Perfect", "Equivalent")
    with pytest.raises(ValidationError, match="cannot be postponed"):
        evaluation.postpone_unit(unit, rater)
