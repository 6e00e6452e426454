"""κ_C's Monte Carlo spread over the workers: planned in chunks, computed by any worker, combined.

When κ_C is expensive (`computation._kappa_c_is_expensive`), the recompute stores its provisional
snapshot (κ_C pending) and calls `start`: the chance Monte Carlo is cut into chunks — per annotator
pair, and within one by ranges of items of at most AGREEMENT_KAPPA_C_CHUNK_DRAWS uniform draws
(`metrics.chance.kappa_c_chunks`) — stored as `KappaCChunk` rows keyed by the digest of their content,
and one task `annotator.compute_kappa_c_chunk(chunk id)` is enqueued per chunk still to compute. Any
worker takes them (`compute`); the last one to finish schedules a recompute, which finds every chunk
of the κ_C inputs done (`chance_results`) and combines them into the final snapshot. Each chunk starts
its generator where the single stream of the normative recipe is at its first item (PCG64 `advance`),
so the combined π̂0 is the single-process one bit for bit (docs/measures.md#kappa-c).

- Reuse: a chunk's digest covers everything it depends on (items, edit probabilities, options), so a
  change by one annotator recomputes only the chunks of that annotator's pairs; a new plan deletes the
  chunks and runs it no longer uses (storage stays bounded by one plan per project).
- A killed worker: the task is acknowledged late (redelivered after the broker's visibility timeout),
  and a computing worker refreshes the chunk's `heartbeat_at`; a chunk claimed by a worker that stopped
  refreshing for AGREEMENT_KAPPA_C_CHUNK_STALE seconds is taken over by the redelivered task (which,
  finding the heartbeat still fresh, retries after that many seconds), or re-enqueued by
  `requeue_stale` (called by the dashboard's status poll). Two workers computing the same
  chunk store the same bits; the first to finish stores them.
- Without a broker (the embedded default) `taskqueue.enqueue` runs each chunk at once, in the thread of
  the recompute (the background thread of `scheduling`), and the final snapshot follows in the same run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import timedelta

import numpy as np
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from annotator import taskqueue
from annotator.agreement import scheduling
from annotator.agreement.scheduling import setting
from annotator.models import KappaCChunk, KappaCRun, Project
from metrics.chance import ChanceChunk, chance_chunk, kappa_c_chunks
from metrics.types import Document

log = logging.getLogger(__name__)

TASK = "annotator.compute_kappa_c_chunk"
#: A chunk that failed this many times is not re-enqueued by `requeue_stale` (a bug, not a dead worker).
MAX_ATTEMPTS = 5
#: Chance results of one annotator pair "a|b": per item, the mean and the variance of its J concordances.
Chance = dict[str, tuple[list[float], list[float]]]


def enabled() -> bool:
    """Whether an expensive κ_C is spread over chunks (AGREEMENT_KAPPA_C_CHUNKS, default on)."""
    return bool(setting("AGREEMENT_KAPPA_C_CHUNKS", True))


def small_work() -> float:
    """Monte Carlo work (items × samples) small enough to run inside a recompute rather than be deferred
    to the workers' chunks (AGREEMENT_KAPPA_C_DEFER_WORK)."""
    return setting("AGREEMENT_KAPPA_C_DEFER_WORK", 20_000)


def stale_seconds() -> float:
    """Seconds without a heartbeat after which a claimed chunk's worker is taken for dead."""
    return float(setting("AGREEMENT_KAPPA_C_CHUNK_STALE", 30))


def chance_results(project_id: int, fingerprint: str) -> Chance | None:
    """The combined chunk results for κ_C inputs `fingerprint` (the κ_C section's), or None while a
    chunk is missing or not done. Per annotator pair its chunks' items end to end, in item order."""
    run = KappaCRun.objects.filter(project_id=project_id, fingerprint=fingerprint).first()
    if run is None:
        return None
    rows = {  # the project's chunks are its one plan's (`start_plan` deletes the others)
        digest: (means, variances)
        for digest, means, variances in KappaCChunk.objects.filter(
            project_id=project_id, status=KappaCChunk.Status.DONE
        ).values_list("digest", "means", "variances")
    }
    if any(d not in rows for d in run.digests):
        return None
    out: Chance = {}
    for key, digests in run.chunks.items():
        means = [x for d in digests for x in _floats(rows[d][0])]
        variances = [x for d in digests for x in _floats(rows[d][1])]
        out[key] = (means, variances)
    return out


def progress(project_id: int) -> tuple[int, int] | None:
    """(done, total) chunks of the project's latest κ_C plan, None without one."""
    run = KappaCRun.objects.filter(project_id=project_id).order_by("-id").first()
    if run is None:
        return None
    done = KappaCChunk.objects.filter(project_id=project_id, status=KappaCChunk.Status.DONE).count()
    return done, len(run.digests)  # the project's chunks are that plan's (`start_plan`)


def max_draws() -> int:
    """Uniform draws at most in one chunk (AGREEMENT_KAPPA_C_CHUNK_DRAWS)."""
    return int(setting("AGREEMENT_KAPPA_C_CHUNK_DRAWS", 25_000_000))


def start(project: Project, document: Document, fingerprint: str, *, fresh: bool = False) -> tuple[int, int]:
    """Plan the κ_C chunks of `document` (inputs `fingerprint`), store them and enqueue those still to
    compute; returns (done, total). `fresh` drops every stored chunk first (a full recompute)."""
    return start_plan(project, kappa_c_chunks(document, max_draws=max_draws()), fingerprint, fresh=fresh)


def start_plan(
    project: Project,
    plan: Mapping[str, list[ChanceChunk]],
    fingerprint: str,
    *,
    fresh: bool = False,
    here: bool = False,
) -> tuple[int, int]:
    """Store the chunks of `plan` (annotator pair "a|b" → its chunks in item order) as the plan of κ_C
    inputs `fingerprint` and enqueue those still to compute; returns (done, total).

    The project's chunk rows are always those of its one stored plan: storing a plan deletes the
    others' (readers count and read the project's chunks without listing the plan's digests).
    One plan at a time is in flight: while the workers are still computing another plan's chunks
    (some pending and alive), the new plan waits and (done, total) are that plan's — its last chunk
    schedules the recompute that plans again for the inputs as they are then, reusing every chunk whose
    items did not change. Under a stream of link changes κ_C thus follows at the pace its Monte Carlo
    allows instead of queueing a new plan's chunks per computation.

    `here`: the chunks still to compute run in this process (the caller's recompute; a small Monte
    Carlo, e.g. the pairs of annotators who have aligned a few pairs) instead of being queued — as long
    as they are within AGREEMENT_KAPPA_C_DEFER_WORK items × samples; more are queued as usual."""
    if not fresh and (in_flight := plan_in_flight(project.pk, fingerprint)) is not None:
        return in_flight
    rows: list[KappaCChunk] = []
    chunks: dict[str, list[str]] = {}
    for key, parts in plan.items():
        chunks[key] = []
        for part in parts:
            spec = json.dumps(part.as_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            digest = hashlib.sha256(spec.encode("utf-8")).hexdigest()
            chunks[key].append(digest)
            rows.append(
                KappaCChunk(
                    project=project,
                    digest=digest,
                    key=key,
                    start=part.start,
                    n_items=len(part.pairs),
                    draws=part.draws,
                    spec=spec,
                )
            )
    digests = [d for key in sorted(chunks) for d in chunks[key]]
    with transaction.atomic():
        if fresh:
            KappaCChunk.objects.filter(project=project).delete()
        run, _ = KappaCRun.objects.update_or_create(
            project=project, fingerprint=fingerprint, defaults={"chunks": chunks}
        )
        KappaCRun.objects.filter(project=project).exclude(pk=run.pk).delete()
        KappaCChunk.objects.filter(project=project).exclude(digest__in=digests).delete()
        KappaCChunk.objects.bulk_create(rows, ignore_conflicts=True)
    pending = dict(
        KappaCChunk.objects.filter(
            project=project, digest__in=digests, status=KappaCChunk.Status.PENDING
        ).values_list("pk", "n_items")
    )
    todo = list(pending)
    samples = next((parts[0].mc_samples for parts in plan.values() if parts), 0)
    if here and sum(pending.values()) * samples <= small_work():
        done = sum(compute(pk, here=True) == "done" for pk in todo)
        return len(digests) - len(todo) + done, len(digests)
    _enqueue(todo)  # (`here` with more to compute than a small Monte Carlo: an older plan's chunks)
    return len(digests) - len(todo), len(digests)


def plan_in_flight(project_id: int, fingerprint: str) -> tuple[int, int] | None:
    """(done, total) of the project's stored plan when it is for other inputs than `fingerprint` and
    still being computed: a chunk pending that a worker holds (fresh heartbeat) or that was queued
    less than ten stale periods ago (as `requeue_stale` counts a lost message); None otherwise."""
    if taskqueue.runs_in_process():
        return None  # without a broker the chunks run at once: nothing stays in flight
    run = KappaCRun.objects.filter(project_id=project_id).exclude(fingerprint=fingerprint).first()
    if run is None:
        return None
    now = timezone.now()
    alive = KappaCChunk.objects.filter(project_id=project_id, status=KappaCChunk.Status.PENDING).filter(
        Q(claimed_at__isnull=False, heartbeat_at__gte=now - timedelta(seconds=stale_seconds()))
        | Q(claimed_at__isnull=True, queued_at__gte=now - timedelta(seconds=10 * stale_seconds()))
    )
    if not alive.exists():
        return None
    return progress(project_id)


def _enqueue(chunk_ids: list[int]) -> None:
    """Send one task per chunk; each is marked queued (unclaimed) before it is sent."""
    KappaCChunk.objects.filter(pk__in=chunk_ids).update(claimed_at=None, queued_at=timezone.now())
    for pk in chunk_ids:
        try:
            taskqueue.enqueue(TASK, pk)
        except taskqueue.QueueUnavailable as exc:  # the status poll's requeue_stale sends them later
            log.warning("κ_C chunks left to re-enqueue: %s", exc)
            return


def compute(chunk_id: int, *, here: bool = False) -> str:
    """Compute one chunk and store its items' means and variances: "done", "skipped" (already done or
    dropped by a newer plan), "held" (a worker claimed it and its heartbeat is fresh: the task looks
    again once that heartbeat could have gone stale), or "yielded" / "deferred" (a recompute of its
    project fell due: see `_yield`). `here`: inside the recompute that planned it (`start_plan`), which
    holds the project: no stepping aside, and no recompute is scheduled when it is the plan's last."""
    project_id = KappaCChunk.objects.filter(pk=chunk_id).values_list("project_id", flat=True).first()
    if project_id is None:
        return "skipped"
    if not here and _should_yield(project_id):
        return "deferred"  # the task sends it again in `yield_seconds()`; nothing was claimed
    now = timezone.now()
    claimed = (
        KappaCChunk.objects.filter(pk=chunk_id, status=KappaCChunk.Status.PENDING)
        .filter(Q(claimed_at__isnull=True) | Q(heartbeat_at__lt=now - timedelta(seconds=stale_seconds())))
        .update(claimed_at=now, heartbeat_at=now, attempts=F("attempts") + 1)
    )
    if not claimed:
        held = KappaCChunk.objects.filter(pk=chunk_id, status=KappaCChunk.Status.PENDING).exists()
        return "held" if held else "skipped"
    row = (
        KappaCChunk.objects.filter(pk=chunk_id)
        .values_list("spec", "done_items", "means", "variances")
        .first()
    )
    if row is None:
        return "skipped"
    spec, done_items, kept_means, kept_variances = row
    chunk = ChanceChunk.from_dict(json.loads(spec))
    kept = (_floats(kept_means), _floats(kept_variances)) if done_items else ([], [])
    heartbeat = _Heartbeat(chunk_id, stale_seconds() / 3).start()
    try:
        means, variances = chance_chunk(
            chunk.rest(done_items) if done_items else chunk, stop=None if here else _yield_check(project_id)
        )
    finally:
        heartbeat.stop()
    means, variances = kept[0] + means, kept[1] + variances
    if len(means) < len(chunk.pairs):
        return _yield(chunk_id, done_items, means, variances)
    stored = KappaCChunk.objects.filter(
        pk=chunk_id, status=KappaCChunk.Status.PENDING, done_items=done_items
    ).update(
        status=KappaCChunk.Status.DONE,
        done_items=len(means),
        means=_bytes(means),
        variances=_bytes(variances),
        finished_at=timezone.now(),
    )
    if stored and not here and not taskqueue.runs_in_process() and _latest_plan_done(project_id):
        scheduling.schedule(project_id)  # the recompute combines the chunks into the final snapshot
    return "done" if stored else "skipped"


def yield_seconds() -> float:
    """How long a chunk that found its project's recompute due waits before it is tried again
    (AGREEMENT_KAPPA_C_YIELD_SECONDS): in the meantime the worker takes the recompute."""
    return float(setting("AGREEMENT_KAPPA_C_YIELD_SECONDS", 1.0))


def _should_yield(project_id: int) -> bool:
    """Whether a chunk of the project steps aside now: its recompute is due and waits (on a worker
    that may be this one, whose only pool process the chunk holds). Never without a broker (the chunks
    then run inside the recompute)."""
    return not taskqueue.runs_in_process() and scheduling.recompute_due(project_id)


def _yield_check(project_id: int) -> Callable[[], bool] | None:
    """`chance_chunk`'s `stop`: asks `_should_yield` at most every AGREEMENT_KAPPA_C_YIELD_CHECK
    seconds (one cache read), so that a due recompute waits for one item at most, not a whole chunk."""
    if taskqueue.runs_in_process():
        return None
    every = float(setting("AGREEMENT_KAPPA_C_YIELD_CHECK", 0.02))
    last = time.monotonic()

    def stop() -> bool:
        nonlocal last
        now = time.monotonic()
        if now - last < every:
            return False
        last = now
        return _should_yield(project_id)

    return stop


def _yield(chunk_id: int, done_before: int, means: list[float], variances: list[float]) -> str:
    """Keep the values of the items computed so far (`done_items`; the next run resumes after them,
    `ChanceChunk.rest`) and give the chunk back to the queue: "yielded". A yield is not a failed
    attempt (`MAX_ATTEMPTS`); a run that another worker's finished meanwhile stores nothing."""
    kept = KappaCChunk.objects.filter(
        pk=chunk_id, status=KappaCChunk.Status.PENDING, done_items=done_before
    ).update(
        done_items=len(means),
        means=_bytes(means),
        variances=_bytes(variances),
        claimed_at=None,
        heartbeat_at=None,
        attempts=F("attempts") - 1,
    )
    if not kept:
        return "skipped"
    _enqueue([chunk_id])
    return "yielded"


def requeue_stale(project_id: int) -> int:
    """Re-enqueue the project's pending chunks whose worker stopped (claimed, no heartbeat for
    AGREEMENT_KAPPA_C_CHUNK_STALE s) or that nobody took for ten times as long (a message lost, the
    queue down when they were planned), unless they were tried MAX_ATTEMPTS times; returns how many. Their `queued_at` is set to now so the next
    poll does not send them again before they can go stale once more."""
    now = timezone.now()
    stale = now - timedelta(seconds=stale_seconds())
    never_taken = now - timedelta(seconds=10 * stale_seconds())
    pending = KappaCChunk.objects.filter(
        project_id=project_id, status=KappaCChunk.Status.PENDING, attempts__lt=MAX_ATTEMPTS
    )
    ids = list(
        pending.filter(
            Q(claimed_at__isnull=False, heartbeat_at__lt=stale)
            | Q(claimed_at__isnull=True, queued_at__lt=never_taken)
        ).values_list("pk", flat=True)
    )
    if not ids:
        return 0
    _enqueue(ids)
    return len(ids)


def _latest_plan_done(project_id: int) -> bool:
    done_total = progress(project_id)
    return done_total is not None and done_total[0] == done_total[1]


def _bytes(values: list[float]) -> bytes:
    return np.asarray(values, dtype="<f8").tobytes()


def _floats(raw: bytes | memoryview | None) -> list[float]:
    if raw is None:
        raise ValueError("a κ_C chunk marked done has no stored values")
    return np.frombuffer(bytes(raw), dtype="<f8").tolist()


class _Heartbeat:
    """Refreshes a chunk's `heartbeat_at` every `every` seconds while a worker computes it."""

    def __init__(self, chunk_id: int, every: float) -> None:
        self.chunk_id, self.every = chunk_id, max(every, 0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"kappa-c-chunk-{chunk_id}", daemon=True)

    def start(self) -> _Heartbeat:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.every):
                KappaCChunk.objects.filter(pk=self.chunk_id, status=KappaCChunk.Status.PENDING).update(
                    heartbeat_at=timezone.now()
                )
        finally:
            connection.close()  # this thread's own connection

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
