"""κ_C's parts computed by a Celery chord: the plan counts its parts (total, done); the claim and
heartbeat fields of the parts are dropped. A plan with parts still pending is deleted (its tasks were
of the previous design): the project's next recompute plans again and reuses every computed part."""

from django.db import migrations, models


def count_or_drop_plans(apps, schema_editor):
    KappaCRun = apps.get_model("annotator", "KappaCRun")
    KappaCChunk = apps.get_model("annotator", "KappaCChunk")
    KappaCChunk.objects.filter(status="pending").update(means=None, variances=None)
    for run in KappaCRun.objects.all():
        digests = [d for key in sorted(run.chunks) for d in run.chunks[key]]
        done = KappaCChunk.objects.filter(
            project_id=run.project_id, digest__in=digests, status="done"
        ).count()
        if done < len(digests):
            run.delete()
        else:
            KappaCRun.objects.filter(pk=run.pk).update(total=len(digests), done=done)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0029_lexicon_jobs_and_cancelled_runs"),
    ]

    operations = [
        migrations.AddField(
            model_name="kappacrun",
            name="done",
            field=models.PositiveIntegerField(default=0, help_text="Parts of the plan computed so far."),
        ),
        migrations.AddField(
            model_name="kappacrun",
            name="total",
            field=models.PositiveIntegerField(default=0, help_text="Parts in the plan."),
        ),
        migrations.AlterField(
            model_name="kappacrun",
            name="chunks",
            field=models.JSONField(
                default=dict, help_text='Annotator pair "a|b" → its parts\' digests in order.'
            ),
        ),
        migrations.RunPython(count_or_drop_plans, migrations.RunPython.noop),
        migrations.RemoveField(model_name="kappacchunk", name="attempts"),
        migrations.RemoveField(model_name="kappacchunk", name="claimed_at"),
        migrations.RemoveField(model_name="kappacchunk", name="done_items"),
        migrations.RemoveField(model_name="kappacchunk", name="heartbeat_at"),
        migrations.RemoveField(model_name="kappacchunk", name="queued_at"),
    ]
