"""The recompute pipeline with a real Celery worker, Redis and PostgreSQL.

Saves go through the web (the editor's pair-label endpoint, as annotators make them); the dashboard is
read through its htmx panels, as the lead's browser does.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from annotator import taskqueue
from annotator.agreement import current, intervals
from annotator.agreement.computation import document_fingerprint, intervals_seed
from annotator.agreement.document import project_document
from annotator.annotation import services as annotation_services
from annotator.core.tagsets import install_builtin_tagsets
from annotator.models import AgreementHeadline, AgreementSnapshot, AgreementState, ParaphraseType, Tagset
from metrics.document import parse_document
from metrics.report import build_report
from tests import make
from tests.make import logged_in

pytestmark = pytest.mark.services


def ptype(name: str) -> ParaphraseType:
    return make.vila().types.get(name=name)


@pytest.fixture
def short_visibility(monkeypatch: pytest.MonkeyPatch) -> None:
    """Redeliver a dead worker's unacknowledged task after 5 s instead of 5 min (worker environment)."""
    monkeypatch.setenv("CELERY_VISIBILITY_TIMEOUT", "5")
    monkeypatch.setenv("CELERY_UNACKED_RESTORE_INTERVAL", "1")


@pytest.fixture
def worker(short_visibility: None, postgres_required: None, celery_worker_process: Any) -> Any:
    cache.clear()
    return celery_worker_process


def team(n_pairs: int = 6) -> tuple[Any, Any, tuple[Any, ...]]:
    install_builtin_tagsets(Tagset, ParaphraseType)  # a transactional test flushed the data migration's rows
    lead = make.cast().lead
    anns = make.cast().annotators
    project = make.project_with_pairs(n_pairs=n_pairs, lead=lead, annotators=anns)
    for n, pair in enumerate(project.pairs.order_by("position")):
        for who in anns:
            annotation_services.add_phenomenon(
                pair,
                who,
                ptype("Diathesis"),
                scope1=[2] if who != anns[1] or n % 2 else [3],
                scope2=[1],
                base_version=None,
            )
            annotation_services.set_links(
                pair, who, [(1, 0), (4, 2)] if who != anns[2] else [(1, 0)], sure=True, base_version=None
            )
            annotation_services.set_pair_label(pair, who, "paraphrase", base_version=None)
    return project, lead, anns


def settled(project: Any, timeout: float = 60) -> current.Current:
    """Wait until the pipeline has caught up with every change and return the current agreement."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = AgreementState.objects.filter(project=project).first()
        snapshot = current.current(project)
        if (
            state is not None
            and snapshot is not None
            and not state.is_behind
            and not state.last_error
            and not snapshot.results["pending"]
            and snapshot.fingerprint == document_fingerprint(project, project_document(project))
        ):
            return snapshot
        time.sleep(0.1)
    raise AssertionError(f"the pipeline did not settle within {timeout}s: {state and state.__dict__}")


def assert_exact(project: Any, snapshot: current.Current) -> None:
    """The figures equal the single-process report; their intervals, when their own task has stored
    them by now, equal `build_report(..., ci=True)`'s with the project's seed."""
    doc = project_document(project)
    report = snapshot.results["report"]
    intervals = {k: v for k, v in report["measures"].items() if k.endswith(".ci95")}
    figures = {k: v for k, v in report["measures"].items() if not k.endswith(".ci95")}
    assert {**report, "measures": figures} == build_report(parse_document(doc))
    if intervals:
        full = build_report(parse_document(doc), ci=True, ci_seed=intervals_seed(doc))["measures"]
        assert intervals == {k: v for k, v in full.items() if k.endswith(".ci95")}


def save_label(client: Client, project: Any, pair: Any, who: Any, label: str) -> None:
    response = client.post(
        reverse("annotator:pair-label", args=[project.pk, pair.pk]),
        {"label": label, "base_version": annotation_services.sheet_version(pair, who)},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200, response.content[:500]


def fleiss_on_dashboard(lead_client: Client, project: Any) -> str:
    html = lead_client.get(
        reverse("annotator:dashboard", args=[project.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="label-agreement",
    ).content.decode()
    found = re.search(r'<p class="big-number"><span[^>]*>([^<]+)</span>', html)
    assert found, html
    return found.group(1)


def test_saves_through_the_web_change_the_dashboard_numbers(worker):
    project, lead, (anna, ben, cat) = team()
    assert_exact(project, settled(project))
    lead_client = logged_in(lead)
    before = fleiss_on_dashboard(lead_client, project)
    assert before == "—"  # everybody said paraphrase: κ undefined
    bo_client = logged_in(ben)
    for pair in list(project.pairs.order_by("position"))[:3]:
        save_label(bo_client, project, pair, ben, "non_paraphrase")
    snapshot = settled(project)
    assert_exact(project, snapshot)
    after = fleiss_on_dashboard(lead_client, project)
    assert after != before
    assert after == f"{snapshot.results['pair_labels']['fleiss']['value']:.3f}"


def recompute_runs(worker: Any) -> int:
    return worker.log.read_text(errors="replace").count("Task annotator.recompute_agreement[") // 2


def test_burst_of_100_saves_yields_a_handful_of_recomputes(worker, settings):
    project, lead, (anna, ben, cat) = team(n_pairs=4)
    settled(project)
    runs_before = recompute_runs(worker)
    snapshots_before = AgreementSnapshot.objects.filter(project=project).count()
    computations_before = AgreementHeadline.objects.filter(project=project).count()
    bo_client = logged_in(ben)
    pairs = list(project.pairs.order_by("position"))
    started = time.monotonic()
    for n in range(100):
        save_label(bo_client, project, pairs[n % 4], ben, "non_paraphrase" if n % 3 else "paraphrase")
    burst_seconds = time.monotonic() - started
    snapshot = settled(project)
    assert_exact(project, snapshot)
    runs = recompute_runs(worker) - runs_before
    computed = AgreementHeadline.objects.filter(project=project).count() - computations_before
    stored = AgreementSnapshot.objects.filter(project=project).count() - snapshots_before
    print(
        f"100 saves in {burst_seconds:.1f}s → {runs} recompute task runs, {computed} computations stored, "
        f"{stored} full reports"
    )
    # one recompute per coalescing window (0.3 s) and per computation at most, never one per save
    assert 1 <= computed <= runs
    # full reports at the cadence: at most one per interval (and one when the stream began)
    assert stored <= 1 + burst_seconds / settings.AGREEMENT_REPORT_INTERVAL_SECONDS + 1
    assert runs <= max(12, int(burst_seconds / 0.3) + 4)
    assert runs < 100 / 3


def wait_for_provisional(project: Any, before: set[int]) -> None:
    """Wait for a computation stored after `before` with κ_C still pending."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        provisional = (
            AgreementHeadline.objects.filter(project=project).exclude(pk__in=before).order_by("-pk").first()
        )
        if provisional is not None and provisional.pending:
            return
        time.sleep(0.02)
    raise AssertionError("no provisional snapshot: the recompute did not reach κ_C")


def test_killing_the_worker_mid_task_still_produces_a_correct_snapshot(worker, settings):
    project, lead, (anna, ben, cat) = team(n_pairs=40)  # κ_C over 40 pairs × 3 annotator pairs: seconds
    settled(project, timeout=120)
    pair = project.pairs.order_by("position").first()
    # A changed link makes the task recompute κ_C's Monte Carlo: it first stores a provisional
    # computation (κ_C pending), then spends time on κ_C's parts — the window in which the worker is
    # killed. On a quiet machine the parts may all be done before the kill lands: then the worker is
    # started again and another link changed, up to five times; the test needs one kill mid-work.
    killed_mid_work = False
    for target in (3, 2, 1, 3, 2):
        before = set(AgreementHeadline.objects.filter(project=project).values_list("pk", flat=True))
        annotation_services.set_links(pair, ben, [(0, target)], sure=False, base_version=None)
        wait_for_provisional(project, before)
        worker.kill()
        killed_mid_work = AgreementState.objects.get(project=project).is_behind
        worker.start()
        if killed_mid_work:
            break
        settled(project, timeout=120)
    assert killed_mid_work, "every κ_C finished before the kill landed"
    snapshot = settled(project, timeout=180)
    assert not snapshot.results.get("pending")
    assert_exact(project, snapshot)
    links = snapshot.results["report"]["measures"]["alignment.words.possible.f1"]["by_pair"]
    assert set(links) == {"anna|ben", "anna|cat", "ben|cat"}


@pytest.fixture
def short_window(monkeypatch: pytest.MonkeyPatch, settings: Any) -> float:
    """A short report cadence, so at most one intervals task per 8 s (set before the worker starts)."""
    monkeypatch.setenv("AGREEMENT_REPORT_INTERVAL_SECONDS", "8")
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 8
    return 8.0


def intervals_tasks(worker: Any) -> int:
    """How many intervals tasks the worker has received."""
    return len(re.findall(r"compute_agreement_intervals\[[\w-]+\] received", worker.log.read_text()))


def intervals_after(project: Any, since: float, limit: float, worker: Any) -> float:
    """Wait until the current figures carry their own intervals; the seconds it took from `since`."""
    deadline = since + limit
    while time.monotonic() < deadline:
        if current.intervals_fingerprint(project) == current.figures_fingerprint(project):
            break
        taskqueue.enqueue("annotator.send_due_agreement_intervals")  # as beat does (none runs here)
        time.sleep(1)
    assert current.intervals_fingerprint(project) == current.figures_fingerprint(project), (
        worker.log.read_text()[-3000:]
    )
    return time.monotonic() - since


def test_the_worker_stores_the_intervals_of_the_settled_figures(short_window, worker):
    """A computation that leaves the figures without intervals sends the intervals task at once (the κ_C
    queue); one within the window of the project's previous task leaves the project due at the window's
    end, and the beat task sends it then (`intervals.send_due`; the test sends it). Either way the settled
    figures get their intervals within the window and a few seconds, equal to `build_report(...,
    ci=True)`'s."""
    project, _, anns = team()
    snapshot = settled(project)
    waited = intervals_after(project, time.monotonic(), short_window + 30, worker)
    print(f"intervals of the settled figures {waited:.1f}s after they settled")
    first = current.current(project)
    assert first is not None and first.fingerprint == snapshot.fingerprint and first.intervals == "current"
    # one more save within the window of that task: its figures are due at the window's end
    sent_before = intervals_tasks(worker)
    pair = project.pairs.order_by("position").first()
    annotation_services.set_pair_label(pair, anns[0], "non_paraphrase", base_version=None)
    assert current.current(project).intervals == "updating"  # the kept sums moved: not those intervals
    later = settled(project)
    settled_at = time.monotonic()
    assert project.pk in intervals.due_projects()
    waited = intervals_after(project, settled_at, short_window + 30, worker)
    print(f"intervals of the next figures {waited:.1f}s after they settled")
    assert waited <= short_window + intervals.POLL_SECONDS + 10
    assert intervals_tasks(worker) == sent_before + 1  # the due one
    now = current.current(project)
    assert now is not None and now.fingerprint == later.fingerprint and now.intervals == "current"
    measures = now.results["report"]["measures"]
    assert "kappa_c.ci95" in measures and "iapta.do.f1.ci95" in measures
    assert_exact(project, now)
