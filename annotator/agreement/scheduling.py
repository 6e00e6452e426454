"""Scheduling of agreement recomputes: coalescing, the per-project lock, catch-up after a broker outage.

The pipeline (`schedule` here; `annotator.agreement.computation.recompute`; the Celery task
`annotator.recompute_agreement` in `annotator.tasks` joins them and schedules the rerun):

- Coalescing. `schedule(project)` enqueues the task only if no recompute of the project is already
  waiting (a cache key `agreement:scheduled:<project>` added with NX, holding when it is due), with a
  short countdown, so a burst of saves yields one task. A task deletes the key when it starts: a change
  committed after that enqueues a fresh task, and the running one reads everything committed before it.
  The task carries the key's value (its claim): a task that finds the key holding another task's claim
  is a duplicate and does nothing (`take_claim`), so a project never has two recomputes queued for long.
- One computation per project at a time: a PostgreSQL session advisory lock (released by the server if
  the worker dies), or a cache key with a TTL on other databases (the in-process default). While a
  computation runs (cache key `agreement:running:<project>`), changes only leave a "rerun" mark instead
  of enqueuing; a task that finds the project busy leaves the same mark; the holder re-schedules once
  when it finishes. The "running" key (and, off PostgreSQL, the lock key) carries the computation's
  owner token and a short expiry (AGREEMENT_RUNNING_TTL, 15 s) that a `LivenessKeeper` thread refreshes
  while the computation runs: a worker killed mid-task stops refreshing, so its marker is gone within
  seconds and the next change (or the dashboard's status poll, which re-schedules a project left with a
  rerun mark and no running computation) starts a new recompute.
- Idempotent: the snapshot stores the sha256 of the canonical document; a task whose document has the
  fingerprint of the latest complete snapshot stores nothing.
- Incremental: unchanged report sections are copied from the latest snapshot (see
  `annotator.agreement.results`). When κ_C has to be recomputed and that is expensive, a provisional
  snapshot (everything fresh but κ_C, `pending = ["kappa_c"]`) is stored first, then the exact one.
- Without a broker (the embedded default, `taskqueue.runs_in_process()`), the task runs off the request
  in a background thread of the web process (`AGREEMENT_IN_PROCESS_BACKGROUND`, default on), after the
  same short countdown and with the same coalescing, rerun marks and lock (the cache key lock: one
  process, one LocMem cache). `wait_for_background()` joins those threads (tests, commands, shutdown);
  with the setting off the task runs synchronously inside the save, as before.
- Failures: a bug is recorded in `AgreementState.last_error` and raised (the task fails once); transient
  database/broker errors are retried by the task with back-off. If the broker is down at save time
  `AgreementState.enqueue_failed` is set; the next successful enqueue (of any project) and the
  dashboard's status poll re-schedule such projects.
"""

from __future__ import annotations

import atexit
import functools
import logging
import threading
import time
import uuid
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection, connections

from annotator import taskqueue
from annotator.core import sql
from annotator.models import AgreementState

log = logging.getLogger(__name__)

TASK = "annotator.recompute_agreement"
SCHEDULED_KEY = "agreement:scheduled:{}"
RERUN_KEY = "agreement:rerun:{}"
RUNNING_KEY = "agreement:running:{}"
LOCK_KEY = "agreement:lock:{}"
ADVISORY_LOCK_CLASS = 0x5041_5257  # "PARW": namespace of the advisory locks of this pipeline


def setting(name: str, default: float) -> float:
    """An AGREEMENT_* setting (seconds, TTLs, work limits) with the pipeline's default."""
    return getattr(settings, name, default)


def schedule(project_id: int, *, catch_up: bool = True, countdown: float | None = None) -> bool:
    """Enqueue a recompute of the project unless one is already waiting. Returns whether it enqueued.

    Raises `taskqueue.QueueUnavailable` when the broker (or the Redis cache that coalesces) cannot be
    reached; the caller, `annotator.agreement.changes`, records it. In-process mode (no REDIS_URL) runs
    the task now; a failure there is already recorded in `AgreementState.last_error` by the task and
    is logged, not raised into the save that triggered it.
    """
    key = SCHEDULED_KEY.format(project_id)
    if countdown is None:
        countdown = setting("AGREEMENT_COALESCE_SECONDS", 0.3)
    due_ms = round(1000 * (time.time() + countdown))
    try:
        claimed = _claim_schedule(project_id, due_ms=due_ms)
    except taskqueue.BROKER_ERRORS as exc:
        raise taskqueue.QueueUnavailable(TASK, exc) from exc
    if not claimed:
        return False
    if taskqueue.runs_in_process():
        if runs_in_background():
            _start_background(project_id, countdown, due_ms)
        else:
            _run_in_process(project_id, due_ms)
    else:
        try:
            taskqueue.enqueue(TASK, project_id, due_ms, countdown=countdown)
        except taskqueue.QueueUnavailable:
            cache.delete(key)  # let the next change try again
            raise
    if catch_up:
        _catch_up_failed_enqueues(exclude=project_id)
    return True


def _claim_schedule(project_id: int, *, due_ms: int) -> bool:
    """Whether this caller should enqueue the project's recompute (it then holds the "scheduled" key,
    whose value is when the recompute is due, in epoch milliseconds).

    While a computation runs, leave a mark instead of a task: the holder re-schedules once when it
    finishes (mark first, then look, so a holder finishing in between still sees the mark). Otherwise
    claim the "scheduled" key; whoever claims it enqueues, every other caller of the burst does not.
    On Redis the three steps are one server-side script (one round trip per save instead of three).
    """
    scheduled, rerun, running = (k.format(project_id) for k in (SCHEDULED_KEY, RERUN_KEY, RUNNING_KEY))
    lock_ttl, scheduled_ttl = (
        int(setting("AGREEMENT_LOCK_TTL", 1800)),
        int(setting("AGREEMENT_SCHEDULED_TTL", 60)),
    )
    if taskqueue.runs_in_process() and not runs_in_background():
        return bool(cache.add(scheduled, due_ms, timeout=scheduled_ttl))
    backend = getattr(cache, "_cache", None)
    if hasattr(backend, "get_client"):  # Django's RedisCache
        keys = [cache.make_and_validate_key(k) for k in (rerun, running, scheduled)]
        script, client = _claim_script(backend)
        return bool(script(keys=keys, args=[lock_ttl, scheduled_ttl, due_ms], client=client))
    cache.set(rerun, 1, timeout=lock_ttl)
    if cache.get(running):
        return False
    return bool(cache.add(scheduled, due_ms, timeout=scheduled_ttl))


# KEYS: rerun, running, scheduled; ARGV: the first two's TTLs, the due time. Values are Django's
# encoding of an integer (its digits).
_CLAIM_LUA = """
redis.call('SET', KEYS[1], 1, 'EX', ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('SET', KEYS[3], ARGV[3], 'NX', 'EX', ARGV[2]) then return 1 end
return 0
"""


def take_claim(project_id: int, claim: int | None) -> bool:
    """A recompute task starting: whether it is the one to compute. It takes the "scheduled" key when
    the key holds its own `claim` (the due time `schedule` sent it with), or when the key is gone (a
    redelivered task, one re-sent after a broker outage) or `claim` is None (a command, a task sent
    before claims): a change committed after that enqueues a fresh task. A task whose key another
    task holds now is a duplicate — the holder is queued and computes everything recorded until it
    starts — and answers False, leaving the key alone: otherwise a change during its computation, or
    the rerun after it, would enqueue another task beside the holder, two tasks queued would stay two
    (each one's rerun claiming the key the other just took) and the worker would compute back to
    back, leaving no time to κ_C's chunks."""
    key = SCHEDULED_KEY.format(project_id)
    if claim is not None:
        held = cache.get(key)
        if held is not None and int(held) != claim:
            return False
    cache.delete(key)
    return True


@functools.lru_cache(maxsize=64)
def _claim_script(backend: Any) -> tuple[Any, Any]:
    """The registered script (EVALSHA, loaded again by redis-py if the server forgot it) and one client
    of the cache's connection pool, kept per cache backend (Django makes one per thread): its
    RedisCache builds a new client object for every call, which cost more than the round trip."""
    client = backend.get_client(write=True)
    return client.register_script(_CLAIM_LUA), client


def runs_in_background() -> bool:
    """Whether in-process recomputes run in a background thread (AGREEMENT_IN_PROCESS_BACKGROUND)."""
    return bool(getattr(settings, "AGREEMENT_IN_PROCESS_BACKGROUND", True))


def _run_in_process(project_id: int, claim: int) -> None:
    try:
        taskqueue.enqueue(TASK, project_id, claim)
    except Exception:
        log.exception("in-process recompute of project %s failed", project_id)


_background: set[threading.Thread] = set()
_background_lock = threading.Lock()


def _start_background(project_id: int, countdown: float, claim: int) -> None:
    thread = threading.Thread(
        target=_background_recompute,
        args=(project_id, countdown, claim),
        name=f"agreement-recompute-{project_id}",
        daemon=True,
    )
    with _background_lock:
        _background.add(thread)
    thread.start()


def _background_recompute(project_id: int, countdown: float, claim: int) -> None:
    """The task, run in this thread after `countdown` seconds (saves meanwhile coalesce into it)."""
    try:
        if countdown > 0:
            time.sleep(countdown)
        _run_in_process(project_id, claim)
    finally:
        connections.close_all()  # this thread's own database connections
        with _background_lock:
            _background.discard(threading.current_thread())


def wait_for_background(timeout: float | None = None) -> bool:
    """Join the in-process background recomputes, including reruns they start; whether all finished."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        with _background_lock:
            running = [t for t in _background if t is not threading.current_thread()]
        if not running:
            return True
        for thread in running:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if deadline is not None and time.monotonic() >= deadline:
            with _background_lock:
                return not any(t.is_alive() for t in _background)


@atexit.register
def _finish_background_at_exit() -> None:
    """A command that saved annotations (no broker) lets its recompute finish before the process ends."""
    wait_for_background(timeout=setting("AGREEMENT_BACKGROUND_EXIT_WAIT", 30))


def _catch_up_failed_enqueues(exclude: int) -> None:
    """Re-schedule projects whose change could not be enqueued while the broker was down."""
    for project_id in (
        AgreementState.objects.filter(enqueue_failed=True)
        .exclude(project_id=exclude)
        .values_list("project_id", flat=True)
    ):
        try:
            schedule(project_id, catch_up=False)
        except taskqueue.QueueUnavailable as exc:
            log.warning("catch-up enqueue of project %s failed: %s", project_id, exc)
            return


def catch_up(state: AgreementState | None) -> None:
    """Called by the dashboard's status poll: re-send a recompute the broker refused earlier."""
    if state is None or taskqueue.runs_in_process():
        return
    if not state.enqueue_failed:
        if stale_rerun(state.project_id):  # a killed worker's changes: nobody else will schedule them
            try:
                schedule(state.project_id, catch_up=False)
            except taskqueue.QueueUnavailable as exc:
                log.warning("re-scheduling project %s failed: %s", state.project_id, exc)
        return
    try:
        if schedule(state.project_id, catch_up=False) or cache.get(SCHEDULED_KEY.format(state.project_id)):
            AgreementState.objects.filter(pk=state.pk).update(enqueue_failed=False)
    except taskqueue.QueueUnavailable as exc:
        log.warning("dashboard catch-up of project %s: broker still unreachable (%s)", state.project_id, exc)


class ProjectLock:
    """Exclusive right to compute one project's agreement (non-blocking)."""

    def __init__(self, project_id: int) -> None:
        self.project_id = project_id
        self.token = uuid.uuid4().hex
        self.held = False

    def acquire(self) -> bool:
        if connection.vendor == "postgresql":
            self.held = sql.try_advisory_lock(ADVISORY_LOCK_CLASS, self.project_id)
        else:
            ttl = running_ttl()
            self.held = cache.add(LOCK_KEY.format(self.project_id), self.token, timeout=ttl)
        return self.held

    def cache_keys(self) -> list[str]:
        """The cache keys that hold this lock (none on PostgreSQL: the server drops a dead session's lock)."""
        return [] if connection.vendor == "postgresql" else [LOCK_KEY.format(self.project_id)]

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        if connection.vendor == "postgresql":
            sql.advisory_unlock(ADVISORY_LOCK_CLASS, self.project_id)
        elif cache.get(LOCK_KEY.format(self.project_id)) == self.token:
            cache.delete(LOCK_KEY.format(self.project_id))


def take_rerun_mark(project_id: int) -> bool:
    """Whether changes arrived while the project was computing (and clear that mark)."""
    return bool(cache.delete(RERUN_KEY.format(project_id)))


def rerun_delay(elapsed: float) -> float:
    """How long a rerun waits after a computation that took `elapsed` seconds (wall time).

    Under a steady stream of saves, leave the worker a breather between computations — at least
    AGREEMENT_RERUN_DELAY_SECONDS (0.1 s), and at least half as long as the computation took (a worker
    at a lower CPU priority than the web takes longer when requests need the CPU), so that a project
    whose computation is expensive keeps a worker busy at most two thirds of the time while people are
    saving: the rest goes to κ_C's chunks (which step aside when the rerun falls due) and to other
    projects. A computation costs what its changes touch, so the time a save waits for the dashboard is
    mostly this delay and the computation it waits behind.
    """
    return max(setting("AGREEMENT_RERUN_DELAY_SECONDS", 0.1), elapsed / 2)


def running_ttl() -> int:
    """Seconds a computation's marker outlives its last refresh (how soon a killed worker's is gone)."""
    return max(1, int(setting("AGREEMENT_RUNNING_TTL", 15)))


class LivenessKeeper:
    """Holds the "running" marker (and the cache lock's key) of a live computation.

    The keys carry `token` (the owner) and expire `running_ttl()` seconds after the last refresh; a
    daemon thread refreshes them every third of that while the computation runs, and only while they
    still carry this owner's token. `stop()` deletes them. A killed worker refreshes nothing: its keys
    expire and the project can be computed again.
    """

    def __init__(self, project_id: int, token: str, extra_keys: list[str]) -> None:
        self.token = token
        self.keys = [RUNNING_KEY.format(project_id), *extra_keys]
        self.ttl = running_ttl()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._refresh, name=f"agreement-marker-{project_id}", daemon=True
        )

    def start(self) -> LivenessKeeper:
        cache.set(self.keys[0], self.token, timeout=self.ttl)
        self._thread.start()
        return self

    def _refresh(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            for key in self.keys:
                if cache.get(key) == self.token:
                    cache.touch(key, self.ttl)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        if cache.get(self.keys[0]) == self.token:
            cache.delete(self.keys[0])


def stale_rerun(project_id: int) -> bool:
    """Whether changes wait for a computation that no longer runs (its worker was killed)."""
    return bool(cache.get(RERUN_KEY.format(project_id))) and not cache.get(RUNNING_KEY.format(project_id))
