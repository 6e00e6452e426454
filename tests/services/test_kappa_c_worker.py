"""κ_C's Monte Carlo parts as one Celery chord with real workers, Redis and PostgreSQL: the part a
killed worker was computing is delivered again by the broker (acks late) and computed again, and the
combined snapshot is the single-process one."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.core.cache import cache

from annotator.agreement import scheduling
from annotator.models import AgreementSnapshot, AgreementState, KappaCChunk, KappaCRun
from tests.services.test_recompute_worker import assert_exact, settled, team

pytestmark = pytest.mark.services
RECEIVED = re.compile(r"Task annotator\.compute_kappa_c_part\[([0-9a-f-]+)\] received")
SUCCEEDED = re.compile(r"Task annotator\.compute_kappa_c_part\[([0-9a-f-]+)\] succeeded")


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, postgres_required: None, celery_worker_process: Any) -> Any:
    cache.clear()
    return celery_worker_process


@pytest.fixture(autouse=True)
def in_parts(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    """Parts of about 120 items (half an annotator pair, a tenth of a second or more each, so the kill
    lands inside one), a lost part delivered again after 5 s; the worker reads these from its
    environment, set before the `celery_worker_process` fixture starts it."""
    for name, value in {
        "CELERY_VISIBILITY_TIMEOUT": "5",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "AGREEMENT_KAPPA_C_CHUNK_DRAWS": "6000000",
    }.items():
        monkeypatch.setenv(name, value)
    settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS = 6_000_000


def _log(worker: Any) -> str:
    return worker.log.read_text(errors="replace")


def _diagnosis(project: Any, worker: Any) -> str:
    """What the pipeline shows when the expected step did not come: the parts by status, the plan, the
    agreement state, the snapshots and the end of the worker's log."""
    parts = list(KappaCChunk.objects.filter(project=project).values_list("status", flat=True))
    plan = KappaCRun.objects.filter(project=project).values("fingerprint", "done", "total").first()
    state = AgreementState.objects.filter(project=project).values().first()
    snapshots = list(AgreementSnapshot.objects.filter(project=project).values_list("pk", "results__pending"))
    return "\n".join(
        [
            f"parts (status): {parts}",
            f"κ_C plan: {plan}",
            f"agreement state: {state}",
            f"snapshots (id, pending): {snapshots}",
            "worker log:",
            *_log(worker).splitlines()[-40:],
        ]
    )


def _kill_inside_a_part(worker: Any, project: Any) -> str:
    """Start the worker, kill it while it computes a part (received, not succeeded); that part's task id."""
    while True:  # a part can end between the look and the kill: then the next one
        worker.start()
        deadline = time.monotonic() + 120
        running: set[str] = set()
        while time.monotonic() < deadline and not running:
            log = _log(worker)
            running = set(RECEIVED.findall(log)) - set(SUCCEEDED.findall(log))
            time.sleep(0.01)
        assert running, "no part was taken by the worker within 120 s\n" + _diagnosis(project, worker)
        worker.kill()
        log = _log(worker)
        killed = running - set(SUCCEEDED.findall(log))
        if killed:
            return killed.pop()
        left = KappaCChunk.objects.filter(project=project, status="pending").exists()
        assert left, "every part ended before a kill landed in one\n" + _diagnosis(project, worker)


def test_the_part_of_a_killed_worker_is_delivered_again_and_the_result_is_exact(worker: Any) -> None:
    # The worker is off while the team annotates: its recomputes then all see the final annotations, so
    # one plan is computed and none replaces the killed part.
    worker.kill()
    project, _, _ = team(n_pairs=240)  # 240 pairs × 3 annotator pairs: half a dozen parts
    scheduling.schedule(project.pk)
    killed = _kill_inside_a_part(worker, project)
    worker.start()
    snapshot = settled(project, timeout=180)
    assert RECEIVED.findall(_log(worker)).count(killed) >= 2, _diagnosis(project, worker)  # delivered again
    total = KappaCChunk.objects.filter(project=project).count()
    assert total >= 4 and KappaCChunk.objects.filter(project=project, status="done").count() == total
    assert KappaCRun.objects.get(project=project).done == total  # each part counted once
    assert_exact(project, snapshot)  # == the single-process report (build_report), bit for bit
