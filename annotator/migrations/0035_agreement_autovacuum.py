"""Autovacuum tuned per table for the agreement tables rewritten by every save or computation
(PostgreSQL; nothing on other databases). The application issues no VACUUM: these thresholds let
autovacuum take a table once a few dozen rows changed instead of a fifth of it (the server default), so
the old versions of the rewritten rows are freed for reuse at each autovacuum round
(`autovacuum_naptime`, one minute by default)."""

from __future__ import annotations

from typing import Any

from django.db import migrations

#: table → (autovacuum_vacuum_threshold, also tune its TOAST table: rows carry large JSON)
TABLES = {
    "annotator_agreementsection": (20, True),
    "annotator_agreementpairstate": (200, True),
    "annotator_agreementpairpart": (200, True),
    "annotator_agreementphenomenapart": (200, True),
    "annotator_agreementphrasepart": (200, True),
    "annotator_agreementsum": (500, False),
    "annotator_agreementchange": (200, False),
    "annotator_agreementstate": (50, False),
    "annotator_kappacchunk": (200, True),
    "annotator_kappacrun": (20, False),
}


def _options(threshold: int, toast: bool) -> str:
    parts = [
        "autovacuum_vacuum_scale_factor = 0.0",
        f"autovacuum_vacuum_threshold = {threshold}",
        "autovacuum_analyze_scale_factor = 0.05",
    ]
    if toast:
        parts += [
            "toast.autovacuum_vacuum_scale_factor = 0.0",
            f"toast.autovacuum_vacuum_threshold = {threshold}",
        ]
    return ", ".join(parts)


def tune(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, (threshold, toast) in TABLES.items():
        schema_editor.execute(f'ALTER TABLE "{name}" SET ({_options(threshold, toast)})')


def untune(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, (_, toast) in TABLES.items():
        names = [
            "autovacuum_vacuum_scale_factor",
            "autovacuum_vacuum_threshold",
            "autovacuum_analyze_scale_factor",
        ]
        if toast:
            names += ["toast.autovacuum_vacuum_scale_factor", "toast.autovacuum_vacuum_threshold"]
        schema_editor.execute(f'ALTER TABLE "{name}" RESET ({", ".join(names)})')


class Migration(migrations.Migration):
    dependencies = [("annotator", "0034_phrase_sums")]

    operations = [migrations.RunPython(tune, untune)]
