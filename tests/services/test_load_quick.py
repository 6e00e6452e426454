"""The load benchmark at reduced size (bench/bench_load.py --quick): the whole production-shaped stack
(private PostgreSQL, Redis, gunicorn, a worker) takes concurrent saves without a single error.

The full-size run with the latency/throughput/memory targets is `make bench`; on CI's shared 2-core
machine only correctness is asserted here, the figures are printed for the log.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench.stack import REPO, available, free_port
from tests.conftest import unavailable

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_quick_load_run_has_no_errors(tmp_path):
    reason = available()
    if reason:
        unavailable("REQUIRE_SERVICES", f"private stack cannot start: {reason}")
    out = tmp_path / "load.json"
    result = subprocess.run(
        [
            sys.executable,
            "bench/bench_load.py",
            "--quick",
            "--port",
            str(free_port()),
            "--pg-port",
            str(free_port()),
            "--redis-port",
            str(free_port()),
            "--json",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
    )
    print(result.stdout[-3000:])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert [row["errors"] for row in figures["rows"]] == [0, 0]
    assert all(row["requests"] > 10 for row in figures["rows"])
    assert figures["memory"]["under load (peak)"]["total"] > 0
    # the worker yields the CPU to the web, yet the agreement follows the saves and catches up
    assert figures["checks"]["dashboards updated during both scenarios"]
    assert figures["checks"]["dashboards brought up to date after both"]
