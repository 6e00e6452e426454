from django.db import migrations


def fill(apps, schema_editor):
    from annotator.core.tagsets import install_builtin_tagsets

    install_builtin_tagsets(
        apps.get_model("annotator", "Tagset"), apps.get_model("annotator", "ParaphraseType")
    )


class Migration(migrations.Migration):
    dependencies = [("annotator", "0005_project_setup")]
    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
