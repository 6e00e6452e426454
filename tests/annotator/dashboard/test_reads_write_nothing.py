"""Reading the agreement writes nothing and sends nothing: the dashboard, its panels, its status poll,
the statistics panel, the disagreement explorer (page and pair) and the agreement and explorer API
issue no INSERT, UPDATE or DELETE and enqueue no task — also while the project is behind, its last
enqueue failed and the explorer's rows are not current (the catch-up is Celery beat's task, the
explorer's refresh the computation's, never a reader's); without a broker no task runs in a read."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotator import taskqueue
from annotator.agreement import changes
from annotator.agreement.computation import recompute
from annotator.agreement.statistics import compute_statistics
from annotator.dashboard.views import PANELS
from annotator.models import AgreementState
from tests import make

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


@pytest.fixture
def behind(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A project with figures, a later change whose enqueue the broker refused, in worker mode with a
    broker that records what would be sent."""
    lead = make.user("lead")
    anns = (make.user("ana"), make.user("bo"), make.user("cleo"))
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=anns)
    make.partly_agree(project, anns)
    recompute(project.pk)
    compute_statistics(project)
    changes.project_changed(project.pk, project.pairs.first().pk)  # a save nobody computed yet
    AgreementState.objects.filter(project=project).update(enqueue_failed=True, queued_at=None)
    sent: list[Any] = []
    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: False)
    monkeypatch.setattr(taskqueue, "enqueue", lambda *args, **kwargs: sent.append(args))
    monkeypatch.setattr(taskqueue, "enqueue_chord", lambda *args, **kwargs: sent.append(args))
    return project, lead, sent


def reads(project: Any) -> list[tuple[str, dict[str, str]]]:
    dashboard = reverse("annotator:dashboard", args=[project.pk])
    htmx = {"HTTP_HX_REQUEST": "true"}
    pair = project.pairs.order_by("position").first()
    return [
        (reverse("annotator:explorer", args=[project.pk]), {}),
        (reverse("annotator:explorer-pair", args=[project.pk, pair.pk]), {}),
        (f"/api/projects/{project.pk}/explorer/", {}),
        (f"/api/projects/{project.pk}/explorer/{pair.pk}/", {}),
        (dashboard, {}),
        *[(dashboard, {**htmx, "HTTP_HX_TARGET": panel}) for panel in PANELS],
        (dashboard, {**htmx, "HTTP_HX_TARGET": "snapshot-status"}),  # the status poll
        (reverse("annotator:dashboard-statistics", args=[project.pk]), htmx),
        (f"/api/projects/{project.pk}/agreement/", {}),
    ]


def _read_all(client: Any, project: Any) -> None:
    for url, headers in reads(project):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, **headers)
        assert response.status_code in (200, 304), (url, headers, response.status_code)
        writes = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)]
        assert writes == [], (url, headers, writes)


def test_reading_the_agreement_writes_nothing_and_enqueues_nothing(client, behind):
    project, lead, sent = behind
    client.force_login(lead)
    state_before = AgreementState.objects.filter(project=project).values().get()
    _read_all(client, project)
    assert sent == []
    assert AgreementState.objects.filter(project=project).values().get() == state_before
    api = client.get(f"/api/projects/{project.pk}/agreement/").json()
    assert api["behind"] is True and api["enqueue_failed"] is True  # told, not acted upon


def test_without_a_broker_reading_runs_no_task(client, monkeypatch):
    """The embedded default: a read while the figures and the explorer's rows are behind a save runs no
    task in the request (none after its response either)."""
    lead = make.user("lead")
    anns = (make.user("ana"), make.user("bo"), make.user("cleo"))
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=anns)
    make.partly_agree(project, anns)
    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: True)
    recompute(project.pk)
    now = timezone.now()  # a save nobody computed yet: figures and explorer rows are behind it
    AgreementState.objects.filter(project=project).update(changed_at=now, queued_at=now)
    ran: list[Any] = []
    real = taskqueue._run
    monkeypatch.setattr(taskqueue, "_run", lambda name, args: ran.append((name, args)) or real(name, args))
    client.force_login(lead)
    _read_all(client, project)
    assert ran == []
