"""The confidence intervals of the current figures: computed by their own task once a computation
leaves final figures without intervals and no other save waits (`annotator.agreement.intervals`: without
a broker at once; with one at once, or, within AGREEMENT_REPORT_INTERVAL_SECONDS of the project's
previous task, recorded as due at that window's end and sent by a worker's `send_due`), stored with the
figures' fingerprint (which covers the sums the database keeps) and shown by `current.current` (so the
API, the dashboard and the report export) only while that fingerprint is the current one; equal to
`python -m metrics report --ci --ci-seed <options.mc_seed>` on the exported document."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotator import taskqueue
from annotator.agreement import computation, current, intervals
from annotator.agreement.computation import compute_intervals, intervals_seed, recompute
from annotator.agreement.document import project_document
from annotator.agreement.intervals import INTERVALS_TASK
from annotator.annotation import services as annotation_services
from annotator.celery import app
from annotator.corpus.exports.report import report_document
from annotator.dashboard.tables import phenomena_tables
from annotator.demo import loader as demo
from annotator.models import AgreementSection, AgreementState, Project
from metrics.intervals import _is_measure
from tests import make
from tests.make import api_client, logged_in

REPO = Path(__file__).resolve().parents[3]
WRITE = re.compile(r'^\s*(INSERT INTO|UPDATE|DELETE FROM)\s+"(annotator_\w*)"', re.IGNORECASE)


@pytest.fixture
def sent(monkeypatch, eager_celery) -> list[tuple[str, tuple[Any, ...]]]:
    """Every task `taskqueue.enqueue` is asked for but the explorer's refresh, which every computation
    that stores figures sends (it still runs them, in-process even when REDIS_URL names a broker: no
    worker serves these tests)."""
    calls: list[tuple[str, tuple[Any, ...]]] = []
    real = taskqueue.enqueue

    def spy(name: str, *args: Any, **kwargs: Any) -> None:
        if name != "annotator.refresh_explorer":
            calls.append((name, args))
        real(name, *args, **kwargs)

    monkeypatch.setattr(taskqueue, "enqueue", spy)
    return calls


@pytest.fixture
def queued(monkeypatch, eager_celery) -> list[tuple[tuple[Any, ...], float | None]]:
    """As with a broker: the intervals tasks are queued (their arguments and countdown kept here, for the
    test to run them when it wants); every other task runs when it is sent (no worker serves these tests)."""
    tasks: list[tuple[tuple[Any, ...], float | None]] = []

    def send(name: str, *args: Any, countdown: float | None = None, after_response: bool = False) -> None:
        if name == INTERVALS_TASK:
            tasks.append((args, countdown))
        else:
            if name not in app.tasks:
                app.loader.import_default_modules()
            app.tasks[name].apply(args=args, throw=True)

    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: False)
    monkeypatch.setattr(taskqueue, "enqueue", send)
    return tasks


@pytest.fixture
def team(db):
    cache.clear()
    lead = make.cast().lead
    anns = make.cast().annotators
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=anns)
    make.partly_agree(project, anns)
    return project, lead, anns


def cli(doc: dict, tmp_path: Path, *args: str) -> dict:
    path = tmp_path / "project.json"
    path.write_text(json.dumps(doc))
    out = subprocess.run(
        [sys.executable, "-m", "metrics", "report", str(path), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"},
    )
    return json.loads(out.stdout)


def api_measures(project: Project, lead: Any) -> dict[str, Any]:
    response = api_client(lead).get(f"/api/projects/{project.pk}/agreement/")
    assert response.status_code == 200
    return response.json()["snapshot"]["results"]["report"]["measures"]


def numeric_keys(measures: dict[str, Any]) -> list[str]:
    """The measure keys that carry a number (`metrics.intervals._is_measure`: a float value or member)."""
    return [k for k, entry in measures.items() if _is_measure(k, entry)]


def assert_app_equals_cli(project: Project, measures: dict[str, Any], tmp_path: Path) -> None:
    doc = project_document(project)
    expected = cli(doc, tmp_path, "--ci", "--ci-seed", str(intervals_seed(doc)))["measures"]
    intervals = {k: v for k, v in measures.items() if k.endswith(".ci95")}
    assert intervals == {k: v for k, v in expected.items() if k.endswith(".ci95")}
    assert measures == expected  # the figures themselves too


def test_a_computed_project_shows_an_interval_for_every_measure_equal_to_the_clis(
    team, sent, tmp_path, django_capture_on_commit_callbacks
):
    project, lead, _ = team
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(project.pk) == "stored"
    assert sorted(name for name, _ in sent) == sorted([INTERVALS_TASK, "annotator.compute_statistics"])
    measures = api_measures(project, lead)
    keys = numeric_keys(measures)
    assert {"iapta.do.f1", "iapta.tpo.total.f1", "kappa_c", "alignment.words.precision"} <= set(keys)
    assert [k for k in keys if f"{k}.ci95" not in measures] == []
    assert_app_equals_cli(project, measures, tmp_path)
    rows = [
        row
        for _, group in phenomena_tables(measures, list(project_document(project)["annotators"]))["groups"]
        for row in group
    ]
    assert rows and all(row.ci is not None for row in rows)  # the dashboard's cells render them
    page = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk]))
    assert page.status_code == 200 and page.content.count(b'class="ci"') >= len(rows)
    exported = report_document(project)["report"]["measures"]
    assert {k for k in exported if k.endswith(".ci95")} == {f"{k}.ci95" for k in keys}
    assert compute_intervals(project.pk) == "unchanged"


def test_without_a_broker_a_save_ends_with_the_intervals_of_its_figures(
    team, sent, settings, django_capture_on_commit_callbacks
):
    project, lead, anns = team
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600  # no full report: the intervals do not wait for one
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(project.pk) == "stored"
    before = api_measures(project, lead)
    pair = project.pairs.order_by("position").first()
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        annotation_services.set_pair_label(pair, anns[0], "non_paraphrase", base_version=None)
    # the save's recompute, then (no other save waiting) the intervals of the figures it left
    names = [name for name, _ in sent]
    assert names == ["annotator.recompute_agreement", INTERVALS_TASK]
    assert current.intervals_fingerprint(project) == current.figures_fingerprint(project)
    after = api_measures(project, lead)
    assert after["pair_labels.fleiss"] != before["pair_labels.fleiss"]
    assert [k for k in numeric_keys(after) if f"{k}.ci95" not in after] == []
    page = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk]))
    assert page.status_code == 200 and b'class="ci"' in page.content


def test_intervals_of_moved_figures_are_not_stored(team, django_capture_on_commit_callbacks):
    project, _, anns = team
    assert recompute(project.pk) == "stored"  # (in the test's transaction: no task sent)
    pair = project.pairs.order_by("position").first()
    annotation_services.set_pair_label(pair, anns[0], "non_paraphrase", base_version=None)  # not computed
    assert compute_intervals(project.pk) == "moved"
    assert not AgreementSection.objects.filter(project=project, name="intervals").exists()


def test_a_save_not_yet_computed_hides_the_intervals_of_the_figures_read_from_the_kept_sums(team, sent):
    """The pair-label and word-alignment figures are read from the sums the database keeps, which a
    save moves at once: the intervals' fingerprint covers them, so they are not shown beside newer sums."""
    project, lead, anns = team
    assert recompute(project.pk) == "stored"  # (in the test's transaction: no task sent)
    shown = current.figures_fingerprint(project)
    assert compute_intervals(project.pk, shown) == "stored"
    assert "pair_labels.fleiss.ci95" in api_measures(project, lead)
    digest = current.summary_state(project)[0]
    pair = project.pairs.order_by("position").first()
    annotation_services.set_pair_label(pair, anns[0], "non_paraphrase", base_version=None)  # not computed
    assert current.summary_state(project)[0] == digest  # the computed figures did not move, the sums did
    assert current.figures_fingerprint(project) != shown
    measures = api_measures(project, lead)
    assert not [k for k in measures if k.endswith(".ci95")]
    assert compute_intervals(project.pk, shown) == "moved"  # the task sent for the earlier figures
    assert current.intervals_fingerprint(project) == shown


def test_a_stream_of_saves_sends_one_task_at_once_and_the_last_figures_are_due_after_the_window(
    team, queued, settings, django_capture_on_commit_callbacks
):
    project, lead, anns = team
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600
    started = time.time()
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(project.pk) == "stored"
    [(args, countdown)] = queued
    assert args == (project.pk, current.figures_fingerprint(project))
    assert countdown is None  # sent at once: no task waits in the broker
    [(pk, due)] = intervals.due_projects().items()  # the end of its window looks again
    assert pk == project.pk and started + 3600 <= due <= time.time() + 3600
    pairs = list(project.pairs.order_by("position"))
    for n in range(6):
        with django_capture_on_commit_callbacks(execute=True):
            annotation_services.set_pair_label(
                pairs[n % 4], anns[2], ("paraphrase", "non_paraphrase")[n % 2], base_version=None
            )
    assert len(queued) == 1  # one task per window: the stream's figures are due at its end
    assert intervals.due_projects() == pytest.approx({project.pk: due})
    assert compute_intervals(*args) == "moved"  # sent for the first figures: nothing stored
    snapshot = api_client(lead).get(f"/api/projects/{project.pk}/agreement/").json()["snapshot"]
    assert snapshot["intervals"] == "updating"
    assert not [k for k in snapshot["results"]["report"]["measures"] if k.endswith(".ci95")]
    page = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk])).content
    assert b"intervals updating" in page and b'class="ci"' not in page and b"every 3s" in page
    assert intervals.send_due(now=due - 1) == []
    assert intervals.send_due(now=due) == [project.pk]
    assert intervals.due_projects() == pytest.approx({project.pk: due + 3600})  # should it be lost
    (late, countdown) = queued[-1]
    assert late == (project.pk,) and countdown is None
    assert compute_intervals(*late) == "stored"  # the figures current when it runs: the last ones
    snapshot = api_client(lead).get(f"/api/projects/{project.pk}/agreement/").json()["snapshot"]
    assert snapshot["intervals"] == "current"
    assert snapshot["figures_fingerprint"] == current.intervals_fingerprint(project)
    measures = snapshot["results"]["report"]["measures"]
    assert [k for k in numeric_keys(measures) if f"{k}.ci95" not in measures] == []
    page = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk])).content
    assert b"intervals updating" not in page and b'class="ci"' in page and b"every 3s" not in page
    assert intervals.send_due(now=due + 3600) == []  # they have their intervals: no longer due
    assert intervals.due_projects() == {} and len(queued) == 2
    assert compute_intervals(*late) == "unchanged"


def test_a_computation_that_leaves_more_saves_waiting_sends_nothing(team, queued, settings):
    project, _, _ = team
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600
    assert recompute(project.pk) == "stored"  # (in the test's transaction: no task sent)
    # a save during the computation, or one after it: the project is dirty again (`queued_at`)
    AgreementState.objects.filter(project=project).update(queued_at=timezone.now())
    assert intervals.send_intervals(project.pk) == "none"
    assert queued == [] and intervals.due_projects() == {}
    AgreementState.objects.filter(project=project).update(queued_at=None)
    assert intervals.send_intervals(project.pk) == "sent"  # as the recompute that follows does


def test_a_due_task_the_broker_refuses_stays_due(team, queued, settings, monkeypatch):
    project, _, _ = team
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600
    assert recompute(project.pk) == "stored"  # (in the test's transaction: no task sent)
    assert intervals.send_intervals(project.pk) == "sent"
    assert intervals.send_intervals(project.pk) == "due"  # within the window of the first
    due = intervals.due_projects()[project.pk]

    def refuse(name: str, *args: Any, **kwargs: Any) -> None:
        raise taskqueue.QueueUnavailable(name, ConnectionError("broker down"))

    monkeypatch.setattr(taskqueue, "enqueue", refuse)
    with pytest.raises(taskqueue.QueueUnavailable):
        intervals.send_due(now=due)
    assert intervals.due_projects() == pytest.approx({project.pk: due + intervals.POLL_SECONDS})


def test_reading_the_agreement_writes_and_sends_nothing(
    team, queued, settings, django_capture_on_commit_callbacks
):
    project, lead, anns = team
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(project.pk) == "stored"
    queued.clear()
    due = intervals.due_projects()
    compute_intervals(project.pk)  # (the queued task, not run)
    AgreementSection.objects.filter(project=project, name="intervals").delete()  # none to show
    client = api_client(lead)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/api/projects/{project.pk}/agreement/").status_code == 200
        page = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk]))
        assert page.status_code == 200
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if WRITE.match(q["sql"]) and not any(t in q["sql"] for t in ("authtoken", "session", "last_login"))
    ]
    assert writes == []
    assert queued == [] and intervals.due_projects() == due


@pytest.mark.django_db(transaction=True)
def test_the_demo_ends_with_an_interval_for_every_measure_its_api_returns(
    tmp_path, monkeypatch, eager_celery
):
    """`make run`'s demo: no broker, tasks in-process (forced here even when REDIS_URL is set)."""
    cache.clear()
    timings: list[str] = []
    real = computation.compute_intervals
    monkeypatch.setattr(
        computation, "compute_intervals", lambda *args: timings.append(real(*args)) or timings[-1]
    )
    call_command("load_demo", "--quiet-users", verbosity=0)
    assert timings and set(timings) == {"stored"}
    lead = get_user_model().objects.get(username="lena")  # the demo's lead
    for project in Project.objects.filter(name__in=demo.PROJECT_NAMES):
        measures = api_measures(project, lead)
        keys = numeric_keys(measures)
        assert keys and [k for k in keys if f"{k}.ci95" not in measures] == []
        assert_app_equals_cli(project, measures, tmp_path)
