"""Without a broker (`make run`), the work a save leaves for after its response runs in the thread that
serves the annotator's connection, so the browser's next save waits for it: that work is the save's
recompute only. The figures' confidence intervals and the corpus statistics (seconds of CPU at the demo's
scale) are asked for by the lead's dashboard (`annotator.agreement.intervals.ask`, a POST) and run after
that request's response: when the saves have stopped, once per window under a stream of saves, or at once
when the lead presses "compute the intervals now"."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotator import taskqueue
from annotator.agreement import current, intervals
from annotator.agreement.computation import STATISTICS_TASK
from annotator.agreement.intervals import INTERVALS_TASK
from annotator.annotation import services as annotation_services
from annotator.models import AgreementState, Project
from tests import make
from tests.make import api_client, logged_in

RECOMPUTE = "annotator.recompute_agreement"


@pytest.fixture
def ran(monkeypatch, eager_celery) -> list[str]:
    """The name of every task run in this process, in order (they still run)."""
    names: list[str] = []
    real = taskqueue._run

    def spy(name: str, args: tuple[Any, ...]) -> None:
        names.append(name)
        real(name, args)

    monkeypatch.setattr(taskqueue, "_run", spy)
    return names


@pytest.fixture
def team(transactional_db, settings, eager_celery):
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600
    cache.clear()
    people = make.cast()
    anns = people.annotators
    project = make.project_with_pairs(n_pairs=4, lead=people.lead, annotators=anns)
    make.partly_agree(project, anns)
    return project, people, anns


def save_label(project: Project, annotator: Any, label: str) -> None:
    pair = project.pairs.order_by("position").first()
    body = {"pair": pair.pk, "label": label, "base_version": None}
    assert api_client(annotator).post("/api/pair-labels/", body, format="json").status_code in (200, 201)


def ask(person: Any, project: Project, **data: str) -> Any:
    return logged_in(person).post(reverse("annotator:dashboard-intervals", args=[project.pk]), data)


def updating(project: Project) -> bool:
    now = current.current(project)
    return now is not None and now.intervals == "updating"


def test_a_save_through_the_web_leaves_only_its_recompute_after_its_response(team, ran):
    project, people, anns = team
    save_label(project, anns[0], "non_paraphrase")
    # neither the intervals nor the statistics in the annotator's thread: the recompute, and the explorer's
    # refresh that a computation storing new figures sends
    assert ran == [RECOMPUTE, "annotator.refresh_explorer"]
    assert updating(project)
    assert intervals.due_projects() == {}
    page = logged_in(people.lead).get(reverse("annotator:dashboard", args=[project.pk])).content
    assert b"intervals updating" in page and b"dashboard/intervals/" in page


def test_the_leads_compute_now_runs_the_intervals_and_the_statistics_after_its_response(team, ran):
    project, people, anns = team
    save_label(project, anns[0], "non_paraphrase")
    ran.clear()
    response = ask(people.lead, project, when="now")
    assert response.status_code == 200 and "computing" in response.content.decode()
    assert ran == [INTERVALS_TASK, STATISTICS_TASK]
    assert not updating(project)
    assert current.intervals_fingerprint(project) == current.figures_fingerprint(project)
    ran.clear()
    assert ask(people.lead, project, when="now").content == b""  # they have their intervals
    assert ran == []


def test_the_dashboards_ask_sends_once_per_window_and_when_the_saves_stop(team, ran):
    project, people, anns = team
    save_label(project, anns[0], "non_paraphrase")
    ran.clear()
    started = time.time()
    assert intervals.ask(project.pk) == "sent"  # never sent before: at once
    assert ran == [INTERVALS_TASK]  # (outside a request: now)
    due = intervals.due_projects()[project.pk]
    assert started + 3600 <= due <= time.time() + 3600
    save_label(project, anns[1], "non_paraphrase")
    ran.clear()
    assert intervals.ask(project.pk) == "waiting"  # a save came a moment ago, within the window
    assert intervals.ask(project.pk, now=due) == "sent"  # the window is over
    assert intervals.ask(project.pk, now=due + 1) == "none"  # computed (outside a request: now)
    assert ran == [INTERVALS_TASK]
    # the saves stopped: the last one, after the last task, is QUIET_SECONDS old
    save_label(project, anns[2], "non_paraphrase")
    later = time.time() + intervals.QUIET_SECONDS
    AgreementState.objects.filter(project=project).update(
        changed_at=dt.datetime.fromtimestamp(later - intervals.QUIET_SECONDS, tz=dt.UTC),
        intervals_due_at=dt.datetime.fromtimestamp(later - 1 + 3600, tz=dt.UTC),
    )
    assert intervals.ask(project.pk, now=later - 1) == "waiting"  # sent after that save
    AgreementState.objects.filter(project=project).update(
        intervals_due_at=dt.datetime.fromtimestamp(later - 2 - intervals.QUIET_SECONDS + 3600, tz=dt.UTC)
    )
    ran.clear()
    assert intervals.ask(project.pk, now=later) == "sent"
    assert intervals.ask(project.pk, now=later) == "none"  # computed: nothing more to ask for
    assert ran == [INTERVALS_TASK] and not updating(project)


def test_of_two_dashboards_that_read_the_same_due_time_one_takes_it(team):
    project, _, anns = team
    save_label(project, anns[0], "non_paraphrase")
    store = intervals._due_store()
    seen = AgreementState.objects.get(project=project).intervals_due_at  # both read it: not due
    assert seen is None
    later = dt.datetime.fromtimestamp(time.time() + 3600, tz=dt.UTC)
    assert store.replace(project.pk, seen, later) is True
    assert store.replace(project.pk, seen, later) is False
    assert store.claim(project.pk, time.time(), 3600) is False  # due within the window, no quiet


def test_only_the_projects_lead_asks_and_only_with_a_post(team):
    project, people, anns = team
    url = reverse("annotator:dashboard-intervals", args=[project.pk])
    assert logged_in(people.lead).get(url).status_code == 405
    assert ask(anns[0], project, when="now").status_code in (403, 404)
    assert ask(people.other_lead, project, when="now").status_code in (403, 404)
    assert logged_in(None).post(url, {"when": "now"}).status_code in (302, 403)


def test_outside_a_request_a_save_still_has_its_intervals_computed_at_once(team, ran):
    """A command (the demo's load, an import) has no annotator waiting on its thread."""
    project, _, anns = team
    pair = project.pairs.order_by("position").first()
    annotation_services.set_pair_label(pair, anns[0], "non_paraphrase", base_version=None)
    assert ran[0] == RECOMPUTE and INTERVALS_TASK in ran
    assert not updating(project)
