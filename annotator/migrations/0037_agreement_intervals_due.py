from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("annotator", "0036_agreement_state_queued")]

    operations = [
        migrations.AddField(
            model_name="agreementstate",
            name="intervals_due_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When the confidence intervals' task of the figures is due (annotator.agreement.intervals).",
                null=True,
            ),
        ),
    ]
