"""Every worked case of ../shared/specs/cases through the CLI, checked by the spec's compare.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_all_spec_cases_pass_compare_py(shared_specs: Path):
    proc = subprocess.run(
        [
            sys.executable,
            str(shared_specs / "compare.py"),
            "--cmd",
            f"{sys.executable} -m metrics report",
            ".",
        ],
        capture_output=True,
        text=True,
        cwd=shared_specs / "cases",
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cases pass" in proc.stdout


def test_all_spec_cases_pass_strictly(shared_specs: Path):
    """--strict also checks the exact PCG64 re-evaluation sets."""
    proc = subprocess.run(
        [
            sys.executable,
            str(shared_specs / "compare.py"),
            "--strict",
            "--cmd",
            f"{sys.executable} -m metrics report",
            ".",
        ],
        capture_output=True,
        text=True,
        cwd=shared_specs / "cases",
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
