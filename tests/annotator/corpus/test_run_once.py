"""A job's run holds a lock that goes with its process: a second delivery finds it held and leaves the
job; once the holder is gone — its database session ended (PostgreSQL), its process killed (SQLite in a
file) — the next delivery takes the job. Nothing refreshes the lock: no thread, nothing that expires."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from annotator.corpus import run_once
from tests import make

pytestmark = pytest.mark.django_db(transaction=True)

NAME = "bench-job:41"


def test_a_claim_in_the_process_that_runs_the_job_finds_it_held():
    threads = set(threading.enumerate())
    with run_once.claim(NAME) as first:
        assert first is not None and run_once.is_held(NAME)
        assert set(threading.enumerate()) == threads  # no thread keeps the run alive
        with run_once.claim(NAME) as second:  # a PostgreSQL session could take its own lock again
            assert second is None
    assert not run_once.is_held(NAME)
    with run_once.claim(NAME) as later:
        assert later is not None


def test_postgresql_a_session_that_ends_without_unlocking_holds_nothing():
    if connection.vendor != "postgresql":
        pytest.skip("the advisory lock is PostgreSQL's")
    other = connection.get_new_connection(connection.get_connection_params())
    other.autocommit = True
    other.execute("SELECT pg_advisory_lock(%s, %s)", run_once.lock_ids(NAME))  # a live run elsewhere
    assert run_once.is_held(NAME)
    with run_once.claim(NAME) as run:
        assert run is None
    other.close()  # its worker dies: the server ends the session and frees its locks
    deadline = time.monotonic() + 10
    while run_once.is_held(NAME) and time.monotonic() < deadline:
        time.sleep(0.05)
    with run_once.claim(NAME) as run:
        assert run is not None
        assert run_once.is_held(NAME)
    assert not run_once.is_held(NAME)


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(120)
"""


def test_sqlite_in_a_file_a_killed_process_holds_nothing(tmp_path: Path, monkeypatch: Any):
    path = tmp_path / "db.sqlite3.run-once" / "bench-job-41.lock"
    path.parent.mkdir()
    monkeypatch.setattr(run_once, "_mechanism", lambda: "file")
    monkeypatch.setattr(run_once, "lock_path", lambda name: path)
    worker = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "held"
        assert run_once.is_held(NAME)
        with run_once.claim(NAME) as run:
            assert run is None
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(30)
    assert not run_once.is_held(NAME)
    with run_once.claim(NAME) as run:
        assert run is not None and run_once.is_held(NAME)
    assert not path.exists()  # the run removes its file while it still holds it


def test_a_lock_held_on_another_worker_leaves_the_job():
    with make.held_elsewhere(NAME):
        assert run_once.is_held(NAME)
        with run_once.claim(NAME) as run:
            assert run is None
    with run_once.claim(NAME) as run:
        assert run is not None


def test_each_kind_of_job_has_a_lock_class_of_its_own():
    from annotator.agreement import scheduling

    kinds = ("corpus-job", "aligner-run", "parse-trees", "explorer-refresh")
    classes = {run_once.lock_ids(f"{kind}:1")[0] for kind in kinds}
    assert len(classes) == len(kinds) and scheduling.ADVISORY_LOCK_CLASS not in classes
    assert all(0 < number < 2**31 for number in classes)  # PostgreSQL's int4 key
