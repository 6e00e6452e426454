"""Re-evaluation sets follow spec §7 on a seeded example, and re-evaluation never overwrites."""

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from annotator import tasks
from annotator.agreement.document import project_document
from annotator.evaluation import reevaluation
from annotator.evaluation import services as evaluation
from annotator.models import Assignment, Judgement, ReevaluationSet
from metrics.document import parse_document
from metrics.report import build_report
from tests import make

N_UNITS = 12  # 36 items, each rated by the same three raters


def _g(rater_no: int, index: int) -> str:
    # rater 2 calls every sixth item ungrammatical (NG) where the others say Perfect/Awkward (OK)
    if rater_no == 2 and index % 6 == 0:
        return "Major Problem"
    return "Awkward" if rater_no == 3 and index % 2 else "Perfect"


def _m(rater_no: int, index: int) -> str:
    # rater 3 finds every seventh item completely different; Missing Info. is still OK on M2
    if rater_no == 3 and index % 7 == 0:
        return "Completely Different"
    return "Missing Info." if rater_no == 1 and index % 4 == 0 else "Equivalent"


def rate_all():
    raters = make.raters(3)
    project = make.evaluation_project(n_units=N_UNITS, raters=tuple(raters), r=3)
    index = 0
    for unit in project.units.order_by("position"):
        items = list(unit.items.all())
        for no, rater in enumerate(raters, 1):
            evaluation.rate_unit(
                unit,
                rater,
                {it.source_id: (_g(no, index + k), _m(no, index + k)) for k, it in enumerate(items)},
            )
        index += len(items)
    return project, raters


@pytest.fixture(scope="module")
def rated_once(module_world):
    return module_world(rate_all)


@pytest.fixture
def rated(rated_once, db):
    return make.fresh(rated_once)


def _doc_ids(project):
    return [f"{u.source_id}/{i.source_id}" for u in project.units.order_by("position") for i in u.items.all()]


def _recipe(disagreement, agreeing, seed, fraction=0.1):
    """Spec §7's normative recipe, written out independently of metrics.reeval."""
    rng = np.random.Generator(np.random.PCG64(seed))
    k = min(len(agreeing), int(np.floor(fraction * len(disagreement) + 0.5)))
    sampled = [agreeing[t] for t in rng.choice(len(agreeing), size=k, replace=False)] if k else []
    order = disagreement + sampled
    return sampled, [order[t] for t in rng.permutation(len(order))]


def test_sets_hold_the_disagreed_items_plus_a_seeded_ten_percent_sample(rated):
    project, raters = rated
    reevaluation.build_reevaluation_sets(project, seed=42)
    ids = sorted(_doc_ids(project))
    position = {doc_id: n for n, doc_id in enumerate(_doc_ids(project))}
    g_disagree = sorted(i for i in ids if position[i] % 6 == 0)
    m_disagree = sorted(i for i in ids if position[i] % 7 == 0)
    for viewpoint, disagree in (("G", g_disagree), ("M", m_disagree)):
        agreeing = [i for i in ids if i not in disagree]
        for rater in raters:
            s = ReevaluationSet.objects.get(project=project, rater=rater, viewpoint=viewpoint)
            assert (s.seed, s.fraction) == (42, 0.1)
            assert s.disagreement == disagree and s.agreeing == agreeing
            assert len(s.sampled) == 1  # 10 % of 6, rounded half up
            assert set(s.sampled) <= set(agreeing)
            assert sorted(s.order) == sorted(disagree + s.sampled)
            assert (s.sampled, s.order) == tuple(_recipe(disagree, agreeing, 42))
    assert len(g_disagree) == len(m_disagree) == 6


def test_sets_equal_the_report_of_the_exported_project(rated):
    project, raters = rated
    reevaluation.build_reevaluation_sets(project, seed=0)
    measures = build_report(parse_document(project_document(project)))["measures"]
    for viewpoint in ("G", "M"):
        for rater in raters:
            stored = ReevaluationSet.objects.get(project=project, rater=rater, viewpoint=viewpoint)
            expected = measures[f"reeval.{viewpoint}"]["by_rater"][rater.username]
            assert {k: getattr(stored, k) for k in expected} == expected


def test_the_draw_is_reproducible_and_rebuilding_changes_nothing(rated):
    project, _ = rated
    created = reevaluation.build_reevaluation_sets(project, seed=5)
    before = list(ReevaluationSet.objects.order_by("id").values("rater", "viewpoint", "order", "sampled"))
    assert reevaluation.build_reevaluation_sets(project, seed=5) == 0
    after = list(ReevaluationSet.objects.order_by("id").values("rater", "viewpoint", "order", "sampled"))
    assert before == after and created > 0


def test_round_one_units_are_those_holding_marked_items_in_shown_order(rated):
    project, raters = rated
    reevaluation.build_reevaluation_sets(project, seed=42)
    for rater in raters:
        marked_units = set()
        for s in ReevaluationSet.objects.filter(rater=rater):
            marked_units |= {doc_id.split("/")[0] for doc_id in s.order}
        round1 = evaluation.rating_queue(project, rater, round=1)
        assert {a.unit.source_id for a in round1} == marked_units
        assert all(a.status == "todo" for a in round1)


def test_reevaluation_judgements_are_kept_beside_the_initial_ones(rated):
    project, raters = rated
    reevaluation.build_reevaluation_sets(project, seed=42)
    rater = raters[1]
    unit = evaluation.rating_queue(project, rater, round=1)[0].unit
    item = unit.items.first()
    initial = Judgement.objects.get(item=item, rater=rater, step="grammaticality", phase="initial")
    before = (initial.label, initial.answers, initial.version)
    evaluation.record_judgement(
        item, rater, "grammaticality", label="Irredeemable", phase="reevaluation", base_version=0
    )
    initial.refresh_from_db()
    assert (initial.label, initial.answers, initial.version) == before != ("Irredeemable", {}, 1)
    assert Judgement.objects.filter(item=item, rater=rater, step="grammaticality").count() == 2
    revision = project_document(project)["evaluations"]["revisions"]
    assert {
        "item": f"{unit.source_id}/{item.source_id}",
        "rater": rater.username,
        "G": "Irredeemable",
    } in revision
    evaluation.finish_reevaluation(unit, rater)
    with pytest.raises(ValidationError, match="finished re-evaluating"):
        evaluation.record_judgement(item, rater, "grammaticality", label="Perfect", phase="reevaluation")


def test_unmarked_finalized_units_can_be_revisited(rated):
    project, raters = rated
    reevaluation.build_reevaluation_sets(project, seed=42)
    rater = raters[0]
    marked = {a.unit_id for a in evaluation.rating_queue(project, rater, round=1)}
    unmarked = project.units.exclude(pk__in=marked).first()
    assert unmarked is not None
    evaluation.record_judgement(
        unmarked.items.first(), rater, "meaning", label="Equivalent", phase="reevaluation"
    )
    assert Assignment.objects.filter(unit=unmarked, annotator=rater, round=1).exists()


def test_task_builds_the_sets_and_skips_a_deleted_project(rated):
    project, _ = rated
    assert tasks.build_reevaluation_sets(project.pk, 3) > 0
    assert ReevaluationSet.objects.filter(project=project, seed=3).count() == 6
    assert tasks.build_reevaluation_sets(10**9, 3) is None
