"""The agreement computed from the project's document in full: the per-pair state rows, the change
marks and the summed statistics of the section rows go (the sums the database keeps are
`AgreementSum` and the per-pair part rows, which stay)."""

from django.db import migrations


def drop_state_rows(apps, schema_editor):
    """The section rows that held the summed statistics ("state") and every pair's entry ("pairs")."""
    AgreementSection = apps.get_model("annotator", "AgreementSection")
    AgreementSection.objects.filter(name__in=("state", "pairs")).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0037_agreement_intervals_due"),
    ]

    operations = [
        migrations.RunPython(drop_state_rows, migrations.RunPython.noop),
        migrations.RemoveField(model_name="agreementsection", name="totals"),
        migrations.DeleteModel(name="AgreementChange"),
        migrations.DeleteModel(name="AgreementPairState"),
    ]
