"""Agreement sections' measures kept as JSON text (`JSONTextField`), stored uncompressed on PostgreSQL:
a section is written whole on every computation and never queried by key, and jsonb's parse and pglz's
compression of the 3 MB phenomena section of a 50-annotator project cost ~0.1 s per write."""

from django.db import migrations

import annotator.models.fields


def uncompressed(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "ALTER TABLE annotator_agreementsection ALTER COLUMN measures SET STORAGE EXTERNAL"
        )


def compressed(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE annotator_agreementsection ALTER COLUMN measures SET STORAGE EXTENDED")


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
        migrations.RunPython(uncompressed, compressed),
    ]
