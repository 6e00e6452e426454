"""The PostgreSQL count triggers (migration 0018) return at once when their statement changed no row.

They fire once per statement (FOR EACH STATEMENT, with transition tables), so an UPDATE that matches
no row fires them too: every save's "put the annotator's assignment in progress" matches none once
the assignment is in progress, and the assignment tally's trigger then ran its upsert and its delete
over empty transition tables (about 30 µs of the database's CPU a save; nothing was written). The
functions now look at their transition table first. SQLite's triggers are per row and unchanged.
"""

import importlib

from django.db import migrations

counts = importlib.import_module("annotator.migrations.0018_counts")

#: Each function's first statement: return when the statement's transition table is empty.
GUARD = """BEGIN
          IF TG_OP = 'DELETE' THEN
            IF NOT EXISTS (SELECT FROM old_rows) THEN RETURN NULL; END IF;
          ELSIF NOT EXISTS (SELECT FROM new_rows) THEN
            RETURN NULL;
          END IF;
"""


def functions(guarded: bool) -> list[str]:
    """The CREATE OR REPLACE of migration 0018's trigger functions, with the guard or without it."""
    out = []
    for statement in counts.postgresql():
        if not statement.startswith("CREATE FUNCTION"):
            continue
        statement = statement.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
        if guarded:
            head, _, body = statement.partition("BEGIN\n")
            statement = head + GUARD + body
        out.append(statement)
    return out


def guard(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for statement in functions(guarded=True):
            schema_editor.execute(statement)


def unguard(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for statement in functions(guarded=False):
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0038_agreement_full_computation"),
    ]

    operations = [migrations.RunPython(guard, unguard)]
