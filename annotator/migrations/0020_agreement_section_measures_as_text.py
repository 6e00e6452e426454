"""Agreement sections' measures kept as JSON text (`JSONTextField`), compressed with lz4 on PostgreSQL:
a section is written whole on every computation and never queried by key; jsonb's parse and pglz's
compression of the 3 MB phenomena section of a 50-annotator project took ~0.1 s per write, lz4 on text
~0.01 s (575 KB stored; uncompressed, every computation would leave 3 MB behind until vacuum)."""

from django.db import migrations

import annotator.models.fields


def lz4(apps, schema_editor):
    """lz4 where the server has it (PostgreSQL ≥ 14 built with lz4, as the official images are)."""
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")
        if cursor.fetchone() is None:
            return
    schema_editor.execute("ALTER TABLE annotator_agreementsection ALTER COLUMN measures SET COMPRESSION lz4")


def default_compression(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE annotator_agreementsection ALTER COLUMN measures SET COMPRESSION default")


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0019_unit_position_index"),
    ]

    operations = [
        migrations.AlterField(
            model_name="agreementsection",
            name="measures",
            field=annotator.models.fields.JSONTextField(default=dict),
        ),
        migrations.RunPython(lz4, default_compression),
    ]
