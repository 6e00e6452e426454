"""One run at a time of a background job, held by a lock that goes with the run's process, and its cancel.

A run holds its job's lock while it works (`hold`). Nothing refreshes the lock and nothing expires: it
is released when the run ends, and when the run's worker dies it goes with it.

- PostgreSQL: a session advisory lock on the run's database connection (class: a number of the job's
  kind, key: the job's id). The server releases it when the connection is gone, so a killed worker
  holds nothing (as `annotator.agreement.scheduling.project_lock` does for the recomputes).
- SQLite in a file (one machine): an exclusive `flock` of a file beside the database
  (`<database>.run-once/<kind>-<id>.lock`), which the kernel releases when the process dies. A run
  that ends removes its file while it still holds the lock; a run that finds the file it locked
  removed opens the new one.
- An in-memory database (the tests') lives in one process: the process's own record is the lock.

The process's record of the jobs its runs hold is read first in every case: a PostgreSQL session may
take an advisory lock it holds once more, so a delivery handled by the very process running the job
must find the job held there.

A job is named `<kind>:<id>` (`aligner-run:7`). `claim(name)` holds the job while its block runs: a
second delivery of the task (a job longer than the broker's visibility timeout, a lost
acknowledgement) finds it held and leaves the job to the run that holds it; once that run's worker
died the next delivery takes it. Jobs with a row of their own (`CorpusJob`) hold the same lock around
the row's claim (`annotator.corpus.jobs`).

`request_cancel(name)` sets the job's cancel flag in the cache; the run reads it at its checkpoints
(`Run.check`, at most every `CHECK_EVERY` seconds) and stops with `Cancelled`.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.core.cache import cache
from django.db import DatabaseError, connection

from annotator.core import sql

log = logging.getLogger(__name__)

CANCEL_KEY = "run-once:{}:cancel"
CANCEL_TTL = 24 * 3600
CHECK_EVERY = 0.5  # seconds between two reads of the cancel flag
#: A look at a file lock (`is_held`) takes it for an instant: a run's claim tries this many times.
FILE_LOCK_TRIES = 5

_record_guard = threading.Lock()  # a worker may run tasks in threads: they share the record
_held: dict[str, int | None] = {}  # the jobs this process's runs hold → the lock file's descriptor


class Cancelled(Exception):
    """The job was asked to stop (`request_cancel`)."""


def lock_ids(name: str) -> tuple[int, int]:
    """The two 32-bit numbers of the job's advisory lock: (its kind's number, its id)."""
    kind, _, key = name.rpartition(":")
    return zlib.crc32(f"run-once:{kind}".encode()) & 0x7FFF_FFFF, int(key)


def _mechanism() -> str:
    """ "advisory" (PostgreSQL), "file" (SQLite in a file) or "process" (in-memory database)."""
    if connection.vendor == "postgresql":
        return "advisory"
    if connection.vendor == "sqlite" and not connection.is_in_memory_db():  # type: ignore[attr-defined]
        return "file"
    return "process"


def lock_path(name: str) -> Path:
    """The file whose `flock` holds the job on SQLite in a file (beside the database)."""
    kind, _, key = name.rpartition(":")
    return Path(f"{connection.settings_dict['NAME']}.run-once") / f"{kind}-{int(key)}.lock"


def _lock_file(path: Path) -> int | None:
    """An exclusive flock of `path` (its descriptor), or None when another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(FILE_LOCK_TRIES):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            time.sleep(0.02)
            continue
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # the run that held it removed the file meanwhile: lock the new one
    return None


def _take(name: str) -> bool:
    with _record_guard:
        if name in _held:
            return False
        _held[name] = None  # reserved while the lock is asked for
    fd: int | None = None
    try:
        how = _mechanism()
        if how == "advisory":
            taken = sql.try_advisory_lock(*lock_ids(name))
        elif how == "file":
            fd = _lock_file(lock_path(name))
            taken = fd is not None
        else:
            taken = True
    except BaseException:
        _forget(name)
        raise
    if not taken:
        _forget(name)
        return False
    with _record_guard:
        _held[name] = fd
    return True


def _forget(name: str) -> int | None:
    with _record_guard:
        return _held.pop(name, None)


def _release(name: str) -> None:
    fd = _forget(name)
    if fd is not None:
        try:
            os.unlink(lock_path(name))  # while it is still locked: the next run creates a new one
        except FileNotFoundError:
            pass
        os.close(fd)
        return
    if _mechanism() != "advisory":
        return
    try:
        sql.advisory_unlock(*lock_ids(name))
    except DatabaseError:  # the session cannot say it (an aborted transaction): end the session
        log.warning("could not release the lock of %s; closing the connection", name, exc_info=True)
        connection.close()


@contextmanager
def hold(name: str) -> Iterator[bool]:
    """Hold the job within the block: yields True, or False (and holds nothing) when a live run holds it."""
    if not _take(name):
        yield False
        return
    try:
        yield True
    finally:
        _release(name)


def is_held(name: str) -> bool:
    """Whether a live run holds the job (reads only; on SQLite in a file, takes the lock for an instant)."""
    with _record_guard:
        if name in _held:
            return True
    how = _mechanism()
    if how == "advisory":
        return sql.advisory_lock_held(*lock_ids(name))
    if how == "file":
        try:
            fd = os.open(lock_path(name), os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # closing the descriptor also releases a lock taken through it
        return False
    return False


@dataclass
class Run:
    """A claimed run of the job `name`."""

    name: str
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


@contextmanager
def claim(name: str) -> Iterator[Run | None]:
    """Hold the job while the block runs (`hold`): yields the run, or None when a live run holds it.
    The job's cancel flag goes with the run."""
    with hold(name) as held:
        if not held:
            yield None
            return
        try:
            yield Run(name)
        finally:
            cache.delete(CANCEL_KEY.format(name))


def request_cancel(name: str) -> None:
    """Ask the job's run to stop at its next checkpoint."""
    cache.set(CANCEL_KEY.format(name), True, CANCEL_TTL)


def clear_cancel(name: str) -> None:
    """Forget an earlier cancel (a new job of the same name starts)."""
    cache.delete(CANCEL_KEY.format(name))
