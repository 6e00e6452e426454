"""The phenomena recommender's lead panel in Chromium: the lead picks the project it learns from,
presses "Retrain now", sees version 1 finish, and the dashboard shows the recommender scored against
the annotator. Screenshots go to artifacts/screenshots/recommender-*.png."""

from __future__ import annotations

import pytest

from annotator.annotation import services as annotation_services
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import RecommenderRun, Tagset
from annotator.projects import services as project_setup
from tests import make
from tests.make import screenshot as save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ONE = "Yucaipa was selling the chain to Safeway .".split()
TWO = "Yucaipa sold it to Safeway in 1998 .".split()


@pytest.fixture
def world():
    cast = make.cast()
    etpc = Tagset.objects.get(name=ETPC_NAME)
    team = project_setup.create_project(cast.lead, name="Team", tagset=etpc)
    types = {t.code: t for t in etpc.types.all()}
    pairs = [projects.add_pair(team, f"p{n}", tokens1=ONE, tokens2=TWO) for n in range(6)]
    projects.assign_pairs(team, [cast.anna], pairs)
    for pair in pairs:
        version = None
        for code, s1, s2 in (("29", [0, 5, 6, 7], [0, 3, 4, 7]), ("6", [3, 4], [2]), ("25", [], [5, 6])):
            _, version = annotation_services.add_phenomenon(
                pair, cast.anna, types[code], scope1=s1, scope2=s2, base_version=version
            )
    return team, cast


def test_lead_retrains_now_and_sees_the_scores_on_the_dashboard(page, live_server, world, eager_celery):
    team, cast = world
    make.signed_in(page, live_server, cast.lead)
    page.goto(f"{live_server.url}/projects/{team.pk}/corpus/")
    page.wait_for_selector("[data-recommender-train]")
    page.fill("#recommender input[name=retrain_every]", "10")
    page.click("[data-recommender-train]")
    page.wait_for_selector("#recommender-run-1.job-succeeded", timeout=90_000)
    assert "version 1" in page.locator("#recommender .baseline").inner_text()
    page.locator("#recommender").scroll_into_view_if_needed()
    save_screenshot(page, "recommender-panel-1280")
    run = RecommenderRun.objects.get(project=team)
    assert run.report["pairs"] == 6 and team.recommender_settings.retrain_every == 10
    page.goto(f"{live_server.url}/projects/{team.pk}/dashboard/")
    page.wait_for_selector("#recommender-scores")
    page.locator("#recommender-scores").scroll_into_view_if_needed()
    save_screenshot(page, "recommender-dashboard-1280")
    assert "anna" in page.locator("table.machine-recommender").inner_text()
