"""Training a project's phenomena recommender: versioned runs, the training project, automatic
retraining every N pairs, and suggestions that write nothing."""

from __future__ import annotations

import pytest

from annotator.annotation import recommender
from annotator.annotation import services as annotation_services
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import Phenomenon, RecommenderRun, Tagset
from annotator.projects import services as project_setup
from tests import make

pytestmark = pytest.mark.django_db
ONE = "Yucaipa was selling the chain to Safeway .".split()
TWO = "Yucaipa sold it to Safeway in 1998 .".split()


@pytest.fixture(autouse=True)
def tasks_in_process(eager_celery):
    """The training task runs in-process here, even when REDIS_URL points at a broker."""


@pytest.fixture
def world():
    cast = make.cast()
    etpc = Tagset.objects.get(name=ETPC_NAME)
    team = project_setup.create_project(cast.lead, name="Team", tagset=etpc)
    pairs = [projects.add_pair(team, f"p{n}", tokens1=ONE, tokens2=TWO) for n in range(8)]
    projects.assign_pairs(team, [cast.anna, cast.ben], pairs)
    return team, cast, pairs


def annotate(pair, person):
    types = {t.code: t for t in pair.project.tagset.types.all()}
    version = None
    for code, s1, s2 in (("29", [0, 5, 6, 7], [0, 3, 4, 7]), ("6", [3, 4], [2]), ("25", [], [5, 6])):
        _, version = annotation_services.add_phenomenon(
            pair, person, types[code], scope1=s1, scope2=s2, base_version=version
        )


def train(project):
    run = recommender.create_run(project, None)
    assert recommender.run_training(run.pk) == RecommenderRun.Status.SUCCEEDED
    run.refresh_from_db()
    return run


def test_a_run_learns_the_teams_types_and_is_versioned(world):
    team, cast, pairs = world
    for pair in pairs[:6]:
        annotate(pair, cast.anna)
    first = train(team)
    assert (first.version, first.progress, first.annotated_pairs) == (1, 100, 6)
    assert first.report["pairs"] == 6 and first.model
    second = train(team)
    assert second.version == 2 and recommender.current_run(team) == second
    got = recommender.suggestions(pairs[7], cast.ben)
    assert {"6"} <= {s["ptype"].code for s in got}  # the team's contextual substitution
    assert [s for s in got if s["ptype"].code == "6"][0]["scope1"] == [3, 4]


def test_suggestions_write_nothing_and_leave_out_what_the_annotator_has(world):
    team, cast, pairs = world
    for pair in pairs[:6]:
        annotate(pair, cast.anna)
    train(team)
    before = Phenomenon.objects.count()
    mine = recommender.suggestions(pairs[0], cast.anna)
    assert Phenomenon.objects.count() == before
    assert all((s["ptype"].code, s["scope1"]) != ("6", [3, 4]) for s in mine)  # anna has it already
    assert any(s["ptype"].code == "6" for s in recommender.suggestions(pairs[0], cast.ben))


def test_no_suggestions_before_a_run_succeeded(world):
    team, cast, pairs = world
    assert recommender.suggestions(pairs[0], cast.anna) == []


def test_a_project_without_phenomena_cannot_train(world):
    team, _, _ = world
    with pytest.raises(recommender.TrainingError, match="Team has no phenomena yet"):
        recommender.create_run(team, None)


def test_one_run_at_a_time(world):
    team, cast, pairs = world
    annotate(pairs[0], cast.anna)
    recommender.create_run(team, None)
    with pytest.raises(recommender.TrainingError, match="Version 1 of the recommender is still queued"):
        recommender.create_run(team, None)


def test_another_project_trains_the_recommender(world):
    team, cast, pairs = world
    etpc = Tagset.objects.get(name=ETPC_NAME)
    source = project_setup.create_project(cast.lead, name="ETPC import", tagset=etpc)
    for n in range(4):
        annotate(projects.add_pair(source, f"s{n}", tokens1=ONE, tokens2=TWO), cast.lead)
    recommender.configure(team, training_project=source, retrain_every=None)
    run = train(team)
    assert run.training_project == source and run.report["pairs"] == 4
    assert any(s["ptype"].code == "6" for s in recommender.suggestions(pairs[0], cast.anna))


def test_a_training_project_with_an_unrelated_tagset_is_refused(world):
    team, cast, _ = world
    other = project_setup.create_project(cast.lead, name="Vila", tagset=make.vila())
    with pytest.raises(recommender.TrainingError, match="shares no type code"):
        recommender.configure(team, training_project=other, retrain_every=None)


def test_retrains_by_itself_every_n_newly_annotated_pairs(world, django_capture_on_commit_callbacks):
    team, cast, pairs = world
    recommender.configure(team, training_project=None, retrain_every=3)
    for pair in pairs[:2]:
        annotate(pair, cast.anna)
    assert recommender.maybe_retrain(team.pk) == []  # 2 < 3
    annotate(pairs[2], cast.anna)
    with django_capture_on_commit_callbacks(execute=True):
        (run,) = recommender.maybe_retrain(team.pk)
    run.refresh_from_db()
    assert run.status == RecommenderRun.Status.SUCCEEDED, run.report
    assert run.annotated_pairs == 3
    annotate(pairs[3], cast.anna)
    assert recommender.maybe_retrain(team.pk) == []  # one new pair since version 1


def label_whole_non_paraphrase(pair, person):
    whole = pair.project.tagset.types.get(code="30")
    version = annotation_services.set_pair_label(pair, person, "non_paraphrase", base_version=None)
    annotation_services.add_phenomenon(
        pair, person, whole, scope1=list(range(len(ONE))), scope2=list(range(len(TWO))), base_version=version
    )


def test_a_non_paraphrase_label_gates_the_suggestions(world):
    team, cast, pairs = world
    for pair in pairs[:4]:
        annotate(pair, cast.anna)
    for pair in pairs[4:7]:  # the team annotates the pairs it labels non-paraphrase as one whole
        label_whole_non_paraphrase(pair, cast.anna)
    run = train(team)
    assert run.report["label_gate"] == "30" and run.report["pairs"] == 4
    assert "6" in {s["ptype"].code for s in recommender.suggestions(pairs[7], cast.ben)}  # not labelled
    annotation_services.set_pair_label(pairs[7], cast.ben, "non_paraphrase", base_version=None)
    (whole,) = recommender.suggestions(pairs[7], cast.ben)
    assert (whole["ptype"].code, whole["scope1"], whole["scope2"]) == ("30", list(range(8)), list(range(8)))
    (anna,) = run.report["scores"]  # scored on her labels: the whole pair on the three she labelled
    whole_scores = next(t for t in anna["by_type"] if t["type"] == "Non-paraphrase")
    assert (whole_scores["suggested"], whole_scores["precision"], whole_scores["recall"]) == (3, 1.0, 1.0)


def test_a_run_scores_the_recommender_like_an_annotator(world):
    team, cast, pairs = world
    for pair in pairs[:6]:
        annotate(pair, cast.anna)
    run = train(team)
    (anna,) = run.report["scores"]
    assert (anna["reference"], anna["pairs"]) == ("anna", 6) and run.report["in_sample"]
    contextual = next(t for t in anna["by_type"] if t["type"] == "Same Polarity Substitution (contextual)")
    assert contextual == {
        "type": "Same Polarity Substitution (contextual)",
        "suggested": 6,
        "annotated": 6,
        "precision": 1.0,
        "recall": 1.0,
    }
    assert 0 < anna["do_f1"] <= 1 and 0 < anna["agr_ph"] <= 1


def test_the_dashboard_shows_the_stored_scores(world):
    from django.urls import reverse

    team, cast, pairs = world
    for pair in pairs[:6]:
        annotate(pair, cast.anna)
    train(team)
    page = make.logged_in(cast.lead).get(reverse("annotator:dashboard", args=[team.pk])).content.decode()
    assert 'id="recommender-scores"' in page and "in-sample" in page
