"""The confidence intervals of the current figures: computed by their own task once per stored full report
whose κ_C is final, stored with the figures' fingerprint and shown by `current.current` (so the API, the
dashboard and the report export) only while that fingerprint is the current one; equal to
`python -m metrics report --ci --ci-seed <options.mc_seed>` on the exported document."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator import taskqueue
from annotator.agreement import computation, current
from annotator.agreement import results as agreement_results
from annotator.agreement.computation import INTERVALS_TASK, compute_intervals, intervals_seed, recompute
from annotator.agreement.document import project_document
from annotator.annotation import services as annotation_services
from annotator.corpus.exports.report import report_document
from annotator.dashboard.tables import phenomena_tables
from annotator.demo import loader as demo
from annotator.models import AgreementSection, Project
from metrics.intervals import _is_measure
from tests import make
from tests.make import api_client, logged_in

REPO = Path(__file__).resolve().parents[3]
WRITE = re.compile(r'^\s*(INSERT INTO|UPDATE|DELETE FROM)\s+"(annotator_\w*)"', re.IGNORECASE)


@pytest.fixture
def sent(monkeypatch, eager_celery) -> list[tuple[str, tuple[Any, ...]]]:
    """Every task `taskqueue.enqueue` is asked for (it still runs them, in-process even when REDIS_URL
    names a broker: no worker serves these tests)."""
    calls: list[tuple[str, tuple[Any, ...]]] = []
    real = taskqueue.enqueue

    def spy(name: str, *args: Any, **kwargs: Any) -> None:
        calls.append((name, args))
        real(name, *args, **kwargs)

    monkeypatch.setattr(taskqueue, "enqueue", spy)
    return calls


@pytest.fixture
def team(db):
    cache.clear()
    agreement_results.forget_memos()
    agreement_results.forget_phenomena_states()
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
    assert [name for name, _ in sent] == [INTERVALS_TASK, "annotator.compute_statistics"]
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


def test_a_save_hides_the_intervals_until_the_next_report_stores_new_ones(
    team, sent, settings, django_capture_on_commit_callbacks
):
    project, lead, anns = team
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(project.pk) == "stored"
    before = api_measures(project, lead)
    assert "iapta.do.f1.ci95" in before
    pair = project.pairs.order_by("position").first()
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        # the save's recompute (sent when it commits) stores the figures, within the interval: no report
        annotation_services.set_pair_label(pair, anns[0], "non_paraphrase", base_version=None)
    assert [name for name, _ in sent] == ["annotator.recompute_agreement"]
    assert current.summary_state(project)[0] != current.intervals_fingerprint(project)
    after = api_measures(project, lead)
    assert not [k for k in after if k.endswith(".ci95")]
    assert "pair_labels.fleiss" in after  # the figures are shown, their intervals are not
    page = logged_in(lead).get(reverse("annotator:dashboard", args=[project.pk]))
    assert page.status_code == 200 and b'class="ci"' not in page.content
    assert AgreementSection.objects.filter(project=project, name="intervals").exists()  # stale, kept
    assert compute_intervals(project.pk) == "stored"  # the next report's task: for the new figures
    again = api_measures(project, lead)
    assert "pair_labels.fleiss.ci95" in again
    assert again["pair_labels.fleiss.ci95"] != before["pair_labels.fleiss.ci95"] or (
        again["pair_labels.fleiss"] == before["pair_labels.fleiss"]
    )


def test_intervals_of_moved_figures_are_not_stored(team, django_capture_on_commit_callbacks):
    project, _, anns = team
    assert recompute(project.pk) == "stored"  # (in the test's transaction: no task sent)
    pair = project.pairs.order_by("position").first()
    annotation_services.set_pair_label(pair, anns[0], "non_paraphrase", base_version=None)  # not computed
    assert compute_intervals(project.pk) == "moved"
    assert not AgreementSection.objects.filter(project=project, name="intervals").exists()


def test_a_stream_of_saves_sends_no_intervals_within_the_report_interval(
    team, sent, settings, django_capture_on_commit_callbacks
):
    project, _, anns = team
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(project.pk) == "stored"
    pairs = list(project.pairs.order_by("position"))
    sent.clear()
    for n in range(6):
        with django_capture_on_commit_callbacks(execute=True):
            annotation_services.set_pair_label(
                pairs[n % 4], anns[2], ("paraphrase", "non_paraphrase")[n % 2], base_version=None
            )
    assert [name for name, _ in sent] == ["annotator.recompute_agreement"] * 6


def test_reading_the_agreement_writes_and_sends_nothing(team, sent, django_capture_on_commit_callbacks):
    project, lead, _ = team
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(project.pk) == "stored"
    sent.clear()
    client = api_client(lead)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/api/projects/{project.pk}/agreement/").status_code == 200
    writes = [
        q["sql"] for q in queries.captured_queries if WRITE.match(q["sql"]) and "authtoken" not in q["sql"]
    ]
    assert writes == []
    assert sent == []


@pytest.mark.django_db(transaction=True)
def test_the_demo_ends_with_an_interval_for_every_measure_its_api_returns(
    tmp_path, monkeypatch, eager_celery
):
    """`make run`'s demo: no broker, tasks in-process (forced here even when REDIS_URL is set)."""
    cache.clear()
    agreement_results.forget_memos()
    agreement_results.forget_phenomena_states()
    timings: list[str] = []
    real = computation.compute_intervals
    monkeypatch.setattr(computation, "compute_intervals", lambda pk: timings.append(real(pk)) or timings[-1])
    call_command("load_demo", "--quiet-users", verbosity=0)
    assert timings and set(timings) == {"stored"}
    lead = get_user_model().objects.get(username="lena")  # the demo's lead
    for project in Project.objects.filter(name__in=demo.PROJECT_NAMES):
        measures = api_measures(project, lead)
        keys = numeric_keys(measures)
        assert keys and [k for k in keys if f"{k}.ci95" not in measures] == []
        assert_app_equals_cli(project, measures, tmp_path)
