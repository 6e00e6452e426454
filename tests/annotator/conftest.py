"""Fixtures of the in-process suite (no broker, no worker): a private cache for every test."""

from __future__ import annotations

from typing import Any

import pytest

from tests.make import isolate_cache


@pytest.fixture(autouse=True)
def private_cache(settings: Any) -> None:
    """Job progress and cancel flags, recompute marks and the like live in the cache, keyed by ids the
    next test reuses, and are not rolled back with the database: each test gets its own cache."""
    isolate_cache(settings)
