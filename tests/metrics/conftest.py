"""Fixtures of the metrics tests: the shared worked cases and small builders of documents.

The metrics tests never need Django; run them alone with ``pytest -p no:django tests/metrics``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def shared_specs() -> Path:
    """``../shared/specs`` next to the repository (skip if absent, fail if REQUIRE_CORPORA=1)."""
    path = Path(__file__).resolve().parents[3] / "shared" / "specs"
    if not (path / "cases").is_dir():
        reason = f"../shared/specs not found at {path}: the spec's worked cases are not on this machine"
        if os.environ.get("REQUIRE_CORPORA", "") in {"1", "true", "yes"}:
            pytest.fail(f"{reason} (required because REQUIRE_CORPORA=1)")
        pytest.skip(reason)
    return path
