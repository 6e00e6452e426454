from django.db import migrations


def fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    """The built-in ETPC types other than Addition/Deletion take a scope in one or both members; Vila's
    Punctuation definition includes quotation marks and commas, as the paper's examples do."""
    from annotator.core.tagsets import install_builtin_tagsets

    install_builtin_tagsets(
        apps.get_model("annotator", "Tagset"), apps.get_model("annotator", "ParaphraseType")
    )


class Migration(migrations.Migration):
    dependencies = [("annotator", "0023_lexicon_builds")]
    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
