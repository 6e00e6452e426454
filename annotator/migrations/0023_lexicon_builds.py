from django.db import migrations, models


def mark_earlier_builds(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Lexicons that already have items were built by the earlier rule: say so."""
    Lexicon = apps.get_model("annotator", "Lexicon")
    Lexicon.objects.filter(entries__isnull=False).distinct().update(builds=[{"rule": "every-paraphrase"}])


class Migration(migrations.Migration):
    dependencies = [("annotator", "0022_corpus_job_claimed_by")]

    operations = [
        migrations.AddField(
            model_name="lexicon", name="builds", field=models.JSONField(blank=True, default=list)
        ),
        migrations.RunPython(mark_earlier_builds, migrations.RunPython.noop),
    ]
