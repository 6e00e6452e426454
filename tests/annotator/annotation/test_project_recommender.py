"""The lead's "Phenomena suggestions" panel: learn-from project, automatic retraining, Retrain now."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import RecommenderRun, RecommenderSettings, Tagset
from annotator.projects import services as project_setup
from tests import make
from tests.make import HTMX, logged_in

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
    source = project_setup.create_project(cast.lead, name="ETPC import", tagset=etpc)
    types = {t.code: t for t in etpc.types.all()}
    for n in range(4):
        pair = projects.add_pair(source, f"s{n}", tokens1=ONE, tokens2=TWO)
        version = None
        for code, s1, s2 in (("29", [0, 5, 6, 7], [0, 3, 4, 7]), ("6", [3, 4], [2]), ("25", [], [5, 6])):
            _, version = annotation_services.add_phenomenon(
                pair, cast.lead, types[code], scope1=s1, scope2=s2, base_version=version, is_gold=True
            )
    projects.assign_pairs(team, [cast.anna], [projects.add_pair(team, "p0", tokens1=ONE, tokens2=TWO)])
    return team, source, cast


def url(project):
    return reverse("annotator:project-recommender", args=[project.pk])


def test_corpus_page_loads_the_panel(world):
    team, _, cast = world
    page = logged_in(cast.lead).get(reverse("annotator:corpus-jobs", args=[team.pk])).content.decode()
    assert 'id="recommender"' in page and url(team) in page
    panel = logged_in(cast.lead).get(url(team), **HTMX).content.decode()
    assert "Phenomena suggestions" in panel and "none yet" in panel and "ETPC import" in panel


def test_lead_picks_the_training_project_and_retrains_now(world, django_capture_on_commit_callbacks):
    team, source, cast = world
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in(cast.lead).post(
            url(team), {"training_project": source.pk, "retrain_every": "", "train": "1"}, **HTMX
        )
    assert response.status_code == 200
    run = RecommenderRun.objects.get(project=team)
    assert run.status == "succeeded" and run.training_project == source  # in-process, on commit
    assert "Version 1" in response.content.decode()
    assert RecommenderSettings.objects.get(project=team).training_project == source


def test_lead_sets_retraining_every_n_pairs_without_training(world):
    team, _, cast = world
    response = logged_in(cast.lead).post(
        url(team), {"training_project": "", "retrain_every": "5", "save": "1"}, **HTMX
    )
    assert response.status_code == 200 and not RecommenderRun.objects.exists()
    assert RecommenderSettings.objects.get(project=team).retrain_every == 5


def test_retrain_now_without_phenomena_says_why(world):
    team, _, cast = world
    response = logged_in(cast.lead).post(url(team), {"training_project": "", "train": "1"}, **HTMX)
    assert response.status_code == 422 and "Team has no phenomena yet" in response.content.decode()


def test_zero_pairs_is_refused_at_the_field(world):
    team, _, cast = world
    response = logged_in(cast.lead).post(url(team), {"retrain_every": "0"}, **HTMX)
    assert response.status_code == 422 and not RecommenderSettings.objects.filter(retrain_every=0).exists()


def test_annotators_cannot_see_or_train(world):
    team, _, cast = world
    assert logged_in(cast.anna).get(url(team)).status_code in (403, 404)
    response = logged_in(cast.anna).post(url(team), {"train": "1"})
    assert response.status_code in (403, 404) and not RecommenderRun.objects.exists()
