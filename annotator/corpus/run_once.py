"""One run at a time of a background job, and its cancel, through the cache (shared by web and workers
with Redis): for the jobs whose state is not a `CorpusJob` row — tree parsing, aligner training (whose
`AlignerRun` row is claimed as well) and the explorer refresh.

`claim(name)` takes the job's alive key with one atomic add; a second delivery of the task (a job longer
than the broker's visibility timeout, a lost acknowledgement) finds the key and leaves the job to the run
that holds it. `running(run)` keeps the key while the run works (a thread refreshes it every third of
JOB_ALIVE_SECONDS) and removes it, with the job's cancel flag, when the run ends. A run whose worker died
stops refreshing its key: once it has expired the next delivery claims the job.

`request_cancel(name)` sets the job's cancel flag; the run reads it at its checkpoints (`Run.check`, at
most every `CHECK_EVERY` seconds) and stops with `Cancelled`.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache

ALIVE_KEY = "run-once:{}:alive"
CANCEL_KEY = "run-once:{}:cancel"
CANCEL_TTL = 24 * 3600
CHECK_EVERY = 0.5  # seconds between two reads of the cancel flag


class Cancelled(Exception):
    """The job was asked to stop (`request_cancel`)."""


def alive_seconds() -> float:
    """How long a run's alive key lasts without a heartbeat (JOB_ALIVE_SECONDS)."""
    return float(settings.JOB_ALIVE_SECONDS)


@dataclass
class Run:
    """A claimed run of the job `name`."""

    name: str
    token: str
    last_check: float = field(default=0.0)

    def cancelled(self) -> bool:
        """Whether the job was asked to stop (reads the cache at most every CHECK_EVERY seconds)."""
        now = time.monotonic()
        if now - self.last_check < CHECK_EVERY:
            return False
        self.last_check = now
        return bool(cache.get(CANCEL_KEY.format(self.name)))

    def check(self) -> None:
        """A checkpoint: raise `Cancelled` if the job was asked to stop."""
        if self.cancelled():
            raise Cancelled(f"{self.name} was cancelled.")


def _token() -> str:
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def claim(name: str) -> Run | None:
    """Claim the job for this run, or None when a live run holds it."""
    token = _token()
    if cache.add(ALIVE_KEY.format(name), token, alive_seconds()):
        return Run(name, token)
    return None


def holder(name: str) -> str | None:
    """The token of the live run holding the job, if any."""
    value = cache.get(ALIVE_KEY.format(name))
    return str(value) if value else None


@contextmanager
def running(run: Run) -> Iterator[Run]:
    """Keep the run's alive key while the block runs; remove it and the cancel flag after."""
    stop = threading.Event()
    key, life = ALIVE_KEY.format(run.name), alive_seconds()

    def beat() -> None:
        while not stop.wait(life / 3):
            if cache.get(key) in (run.token, None):
                cache.set(key, run.token, life)

    thread = threading.Thread(target=beat, name=f"{run.name}-heartbeat", daemon=True)
    thread.start()
    try:
        yield run
    finally:
        stop.set()
        thread.join()
        if cache.get(key) == run.token:
            cache.delete(key)
        cache.delete(CANCEL_KEY.format(run.name))


def request_cancel(name: str) -> None:
    """Ask the job's run to stop at its next checkpoint."""
    cache.set(CANCEL_KEY.format(name), True, CANCEL_TTL)


def clear_cancel(name: str) -> None:
    """Forget an earlier cancel (a new job of the same name starts)."""
    cache.delete(CANCEL_KEY.format(name))
