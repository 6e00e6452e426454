"""κ_C's Monte Carlo in chunks with real Celery workers, Redis and PostgreSQL: a worker killed in the
middle of a chunk leaves it to be computed again, and the combined snapshot is the single-process one."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core.cache import cache

from annotator.agreement import scheduling
from annotator.models import AgreementSnapshot, AgreementState, KappaCChunk, KappaCRun
from tests.services.test_recompute_worker import assert_exact, settled, team

pytestmark = pytest.mark.services


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch, postgres_required: None, celery_worker_process: Any) -> Any:
    cache.clear()
    return celery_worker_process


@pytest.fixture(autouse=True)
def chunked(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    """Chunks of about 120 items (half an annotator pair, a tenth of a second or more each, so the kill
    lands inside one), a dead worker noticed after 2 s; the worker reads these from its environment,
    set before the `celery_worker_process` fixture starts it."""
    for name, value in {
        "CELERY_VISIBILITY_TIMEOUT": "5",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "AGREEMENT_KAPPA_C_CHUNK_DRAWS": "6000000",
        "AGREEMENT_KAPPA_C_CHUNK_STALE": "2",
    }.items():
        monkeypatch.setenv(name, value)
    settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS = 6_000_000
    settings.AGREEMENT_KAPPA_C_CHUNK_STALE = 2


def _diagnosis(project: Any, worker: Any) -> str:
    """What the pipeline shows when the expected step did not come: the chunks by status, the plan,
    the agreement state, the snapshots and the end of the worker's log."""
    chunks = list(KappaCChunk.objects.filter(project=project).values_list("status", "claimed_at", "attempts"))
    state = AgreementState.objects.filter(project=project).values().first()
    snapshots = list(AgreementSnapshot.objects.filter(project=project).values_list("pk", "results__pending"))
    log = worker.log.read_text(errors="replace").splitlines()[-40:]
    return "\n".join(
        [
            f"chunks (status, claimed_at, attempts): {chunks}",
            f"κ_C plans: {KappaCRun.objects.filter(project=project).count()}",
            f"agreement state: {state}",
            f"snapshots (id, pending): {snapshots}",
            "worker log:",
            *log,
        ]
    )


def test_a_chunk_of_a_killed_worker_is_computed_again_and_the_result_is_exact(worker: Any) -> None:
    # The worker is off while the team annotates: its recomputes (which a worker takes before chunks)
    # then all see the final annotations, so one plan is computed and none replaces the killed chunk.
    worker.kill()
    project, _, _ = team(n_pairs=240)  # 240 pairs × 3 annotator pairs: half a dozen chunks
    scheduling.schedule(project.pk)
    killed = None
    while killed is None:  # a chunk can end between the look and the kill: then the next one
        left = KappaCChunk.objects.filter(project=project, status="pending").exists()
        planned = KappaCChunk.objects.filter(project=project).exists()
        assert left or not planned, "every chunk ended before a kill landed in one\n" + _diagnosis(
            project, worker
        )
        worker.start()
        deadline = time.monotonic() + 120
        taken = None
        while time.monotonic() < deadline and taken is None:
            taken = (
                KappaCChunk.objects.filter(project=project, status="pending", claimed_at__isnull=False)
                .values_list("pk", flat=True)
                .first()
            )
            time.sleep(0.01)
        assert taken is not None, "no chunk was taken by the worker within 120 s\n" + _diagnosis(
            project, worker
        )
        worker.kill()  # in the middle of chunk `taken`
        if KappaCChunk.objects.get(pk=taken).status == "pending":
            killed = taken
    taken = killed
    worker.start()
    snapshot = settled(project, timeout=180)
    chunk = KappaCChunk.objects.get(pk=taken)
    assert chunk.status == "done" and chunk.attempts >= 2  # computed again after the kill
    total = KappaCChunk.objects.filter(project=project).count()
    assert total >= 4 and KappaCChunk.objects.filter(project=project, status="done").count() == total
    assert_exact(project, snapshot)  # == the single-process report (build_report), bit for bit
