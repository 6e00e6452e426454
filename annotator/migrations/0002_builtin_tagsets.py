from django.db import migrations


def install(apps, schema_editor):
    from annotator.core.tagsets import install_builtin_tagsets

    install_builtin_tagsets(
        apps.get_model("annotator", "Tagset"), apps.get_model("annotator", "ParaphraseType")
    )


def uninstall(apps, schema_editor):
    from annotator.core.tagsets import ETPC_NAME, VILA_NAME

    apps.get_model("annotator", "Tagset").objects.filter(
        name__in=[VILA_NAME, ETPC_NAME], builtin=True
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("annotator", "0001_initial")]
    operations = [migrations.RunPython(install, uninstall)]
