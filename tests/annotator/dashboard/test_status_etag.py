"""Cheap polling: a status poll that finds nothing new answers 304 Not Modified (ETag)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from annotator.agreement import current
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.models import AgreementSnapshot, AgreementState
from tests import make

pytestmark = pytest.mark.django_db
HEADERS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "snapshot-status"}


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()


@pytest.fixture
def setup(client):
    lead = make.user("lead")
    ana, bo = make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    first = project.pairs.order_by("position").first()
    annotation_services.set_pair_label(first, ana, "paraphrase", base_version=None)
    recompute(project.pk)
    client.force_login(lead)
    return project, ana, first


def poll(client, project, seen, etag=None):
    extra = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    return client.get(reverse("annotator:dashboard", args=[project.pk]), {"seen": seen}, **HEADERS, **extra)


def test_unchanged_status_answers_304_with_the_same_etag(client, setup):
    project, _, _ = setup
    first = poll(client, project, "1")
    assert first.status_code == 200 and first["ETag"]
    assert first["Cache-Control"] == "private, no-cache"
    again = poll(client, project, "1", first["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == first["ETag"]


def test_a_new_snapshot_or_a_pending_change_changes_the_etag(client, setup):
    project, ana, pair = setup
    etag = poll(client, project, "1")["ETag"]
    AgreementState.objects.filter(project=project).update(changed_at=timezone.now())
    behind = poll(client, project, "1", etag)
    assert behind.status_code == 200 and "recomputing" in behind.content.decode()
    annotation_services.set_pair_label(pair, ana, "non_paraphrase", base_version=None)
    recompute(project.pk)
    fresh = poll(client, project, "1", behind["ETag"])
    assert fresh.status_code == 200 and "snapshot-updated" in fresh["HX-Trigger"]


def test_the_seen_snapshot_is_part_of_the_etag(client, setup):
    project, _, _ = setup
    etag = poll(client, project, "1")["ETag"]
    assert poll(client, project, "2", etag).status_code == 200


def test_every_computation_changes_the_status_and_the_same_poll_stays_304(client, setup, settings):
    project, ana, pair = setup
    settings.AGREEMENT_REPORT_INTERVAL_SECONDS = 3600  # no full report within the stream
    seen = str(current.current(project).computation)
    etag = poll(client, project, seen)["ETag"]
    for n in range(4):
        annotation_services.set_pair_label(
            pair, ana, ("non_paraphrase", "paraphrase")[n % 2], base_version=None
        )
        assert recompute(project.pk) == "stored"
        fresh = poll(client, project, seen, etag)
        assert fresh.status_code == 200 and "snapshot-updated" in fresh["HX-Trigger"]  # panels reload
        seen = str(current.current(project).computation)
        assert f'"seen": "{seen}"' in fresh.content.decode()
        shown = poll(client, project, seen)
        assert "HX-Trigger" not in shown
        etag = shown["ETag"]
        assert poll(client, project, seen, etag).status_code == 304  # nothing new: 304
        assert poll(client, project, seen, etag).status_code == 304
    assert AgreementSnapshot.objects.filter(project=project).count() == 1
