"""A killed worker's "running" marker and lock expire within seconds; a live computation keeps its own."""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache
from django.db import connection

from annotator.agreement import scheduling
from annotator.agreement.computation import recompute
from annotator.models import AgreementSnapshot
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def short_ttl(settings):

    settings.AGREEMENT_RUNNING_TTL = 1


def test_a_killed_workers_marker_expires_and_the_recompute_proceeds():
    project = make.project_with_pairs("Killed", annotators=(make.user("anna"),))
    # What a worker killed mid-computation leaves behind: its lock key and marker, last refreshed now.
    dead = "token-of-a-dead-worker"
    cache.set(scheduling.RUNNING_KEY.format(project.pk), dead, timeout=scheduling.running_ttl())
    if connection.vendor != "postgresql":  # PostgreSQL's advisory lock went with the dead session
        cache.set(scheduling.LOCK_KEY.format(project.pk), dead, timeout=scheduling.running_ttl())
        assert recompute(project.pk) == "busy"
    cache.set(scheduling.RERUN_KEY.format(project.pk), 1)  # a change saved while it "computed"
    assert scheduling.stale_rerun(project.pk) is False  # the marker still looks alive
    time.sleep(1.3)
    assert scheduling.stale_rerun(project.pk) is True  # changes wait for nobody: the poll re-schedules
    assert recompute(project.pk) == "stored"
    assert AgreementSnapshot.objects.filter(project=project).count() == 1
    assert cache.get(scheduling.RUNNING_KEY.format(project.pk)) is None


def test_a_live_computation_refreshes_its_marker_beyond_the_ttl():
    keeper = scheduling.LivenessKeeper(7, "live", ["agreement:lock:7"])
    cache.set("agreement:lock:7", "live", timeout=1)
    keeper.start()
    try:
        time.sleep(2.2)
        assert cache.get(scheduling.RUNNING_KEY.format(7)) == "live"
        assert cache.get("agreement:lock:7") == "live"
    finally:
        keeper.stop()
    assert cache.get(scheduling.RUNNING_KEY.format(7)) is None


def test_a_marker_taken_over_by_another_owner_is_not_refreshed_or_deleted():
    keeper = scheduling.LivenessKeeper(8, "mine", []).start()
    cache.set(scheduling.RUNNING_KEY.format(8), "theirs", timeout=1)
    keeper.stop()
    assert cache.get(scheduling.RUNNING_KEY.format(8)) == "theirs"
