"""REST API: agreement (latest snapshot, behind/queue state) and snapshot lists."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotator.agreement import computation
from annotator.models import AgreementState
from tests import make
from tests.make import annotate_marked, api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return make.two_projects()


def test_lead_fetches_latest_agreement(world):
    annotate_marked(world, world.anna)
    annotate_marked(world, world.ben)
    computation.recompute(world.project.pk)
    body = api_client(world.lead).get(f"/api/projects/{world.project.pk}/agreement/").json()
    assert body["behind"] is False and body["snapshot"]["project"] == world.project.pk
    measures = body["snapshot"]["results"]["report"]["measures"]
    assert measures  # the metrics report as stored by the pipeline


def test_agreement_is_behind_after_a_change(world):
    annotate_marked(world, world.anna)
    computation.recompute(world.project.pk)
    AgreementState.objects.filter(project=world.project).update(changed_at=timezone.now())
    body = api_client(world.lead).get(f"/api/projects/{world.project.pk}/agreement/").json()
    assert body["behind"] is True


def test_annotator_never_gets_agreement_numbers(world):
    annotate_marked(world, world.anna)
    annotate_marked(world, world.ben)
    computation.recompute(world.project.pk)
    client = api_client(world.anna)
    assert client.get(f"/api/projects/{world.project.pk}/agreement/").status_code == 403
    assert client.get("/api/snapshots/").json()["results"] == []
    snapshot_id = computation.latest_snapshot(world.project).pk
    assert client.get(f"/api/snapshots/{snapshot_id}/").status_code == 404
    assert api_client(world.other_lead).get(f"/api/projects/{world.project.pk}/agreement/").status_code == 404


def test_snapshot_list_for_leads_filters_by_project(world):
    annotate_marked(world, world.anna)
    computation.recompute(world.project.pk)
    body = api_client(world.lead).get(f"/api/snapshots/?project={world.project.pk}").json()
    assert body["count"] == 1 and body["results"][0]["fingerprint"]
    assert api_client(world.other_lead).get("/api/snapshots/").json()["count"] == 0
