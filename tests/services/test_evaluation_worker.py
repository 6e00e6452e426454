"""Re-evaluation sets drawn by a real Celery worker through Redis, against PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from annotator.agreement import current_figures
from annotator.agreement.computation import document_fingerprint
from annotator.agreement.document import project_document
from annotator.evaluation.stats import snapshot_measures
from annotator.models import Assignment, ReevaluationSet
from metrics.document import parse_document
from metrics.report import build_report
from tests import make

pytestmark = pytest.mark.services


@pytest.fixture
def worker(postgres_required: None, celery_worker_process: Any) -> Any:
    cache.clear()
    return celery_worker_process


def wait_for(check: Any, timeout: float = 40) -> Any:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("the worker did not finish in time")


def rated_project(lead: Any) -> tuple[Any, list[Any]]:
    raters = make.raters(3)
    project = make.evaluation_project(n_units=4, raters=tuple(raters), lead=lead, r=3)
    for n, unit in enumerate(project.units.order_by("position")):
        for k, rater in enumerate(raters):
            g = "Irredeemable" if (n + k) % 3 == 0 else "Perfect"
            m = "Completely Different" if (n * k) % 4 == 1 else "Equivalent"
            make.rate_unit(unit, rater, g, m)
    return project, raters


def test_finalizing_the_last_unit_has_the_worker_draw_the_sets(worker: Any) -> None:
    lead = make.cast().lead
    project, raters = rated_project(lead)  # each finalize commits; the last one enqueues the draw
    wait_for(lambda: ReevaluationSet.objects.filter(project=project).count() == 6)
    measures = build_report(parse_document(project_document(project)))["measures"]
    for rater in raters:
        for viewpoint in ("G", "M"):
            stored = ReevaluationSet.objects.get(project=project, rater=rater, viewpoint=viewpoint)
            assert stored.order == measures[f"reeval.{viewpoint}"]["by_rater"][rater.username]["order"]
    assert Assignment.objects.filter(project=project, round=1).exists()


def test_lead_starts_reevaluation_with_a_seed_and_sees_the_workers_numbers(worker: Any) -> None:
    lead = make.cast().lead
    project, _ = rated_project(lead)
    wait_for(lambda: ReevaluationSet.objects.filter(project=project, seed=0).count() == 6)
    client = Client()
    client.force_login(lead)
    url = reverse("annotator:evaluation-setup", args=[project.pk])
    assert client.post(url, {"action": "reevaluation", "seed": "9"}).status_code == 302
    wait_for(lambda: ReevaluationSet.objects.filter(project=project, seed=9).count() == 6)
    current = document_fingerprint(project, project_document(project))
    # the current agreement (what the page shows), computed by the worker from the state after the draw
    figures = wait_for(lambda: (c := current_figures(project)) is not None and c.fingerprint == current and c)
    measures = snapshot_measures(figures.results)
    expected = build_report(parse_document(project_document(project)))["measures"]
    assert measures["fleiss.G2"]["value"] == pytest.approx(expected["fleiss.G2"]["value"], abs=1e-12)
    body = client.get(url).content.decode()
    assert f"{expected['fleiss.G2']['value']:.3f}" in body
