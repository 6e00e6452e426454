"""System checks of what the hand-written SQL (`annotator.core.sql`) needs from the database."""

from __future__ import annotations

import sqlite3
from typing import Any

from django.core.checks import Error
from django.db import connections


def returning_supported(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[Error]:
    """Every save bumps the sheet version with `UPDATE … RETURNING` (`sql.bump_sheet`): the database
    must return rows from a write. PostgreSQL does; SQLite from 3.35 on. Reads the backend's features
    only (no connection is opened). Registered in `annotator.apps`."""
    errors = []
    for alias in connections:
        features = connections[alias].features
        if not (features.can_return_columns_from_insert and features.can_return_rows_from_bulk_insert):
            vendor = connections[alias].vendor
            version = f" {sqlite3.sqlite_version}" if vendor == "sqlite" else ""
            errors.append(
                Error(
                    f"Database {alias!r} ({vendor}{version}) cannot return rows from a write "
                    "(UPDATE … RETURNING), which every annotation save uses.",
                    hint="Use PostgreSQL, or SQLite 3.35 or newer.",
                    id="annotator.E001",
                )
            )
    return errors
