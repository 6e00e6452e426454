import django.db.models.deletion
from django.db import migrations, models

from annotator.agreement.parts import stored
from annotator.agreement.phrase_parts import parts_of_rows
from metrics.spade_sums import MEASURES


def fill_parts(apps, schema_editor):
    """The phrase alignment parts and sums of every existing project with the layer, computed from its
    phrase alignments (as `annotator.agreement.sums.rebuild` does, with the historical models)."""
    Project = apps.get_model("annotator", "Project")
    Membership = apps.get_model("annotator", "Membership")
    Pair = apps.get_model("annotator", "Pair")
    PhraseAlignment = apps.get_model("annotator", "PhraseAlignment")
    AgreementPhrasePart = apps.get_model("annotator", "AgreementPhrasePart")
    AgreementSum = apps.get_model("annotator", "AgreementSum")
    for project_id in Project.objects.filter(layer_phrase_alignment=True).values_list("pk", flat=True):
        annotators = list(
            Membership.objects.filter(project_id=project_id, role="annotator").values_list(
                "user_id", flat=True
            )
        )
        rows = list(
            PhraseAlignment.objects.filter(
                pair__project_id=project_id, is_gold=False, annotator_id__in=annotators
            ).values_list("pair_id", "annotator_id", "node1", "node2")
        )
        trees = {
            pk: (nodes1, nodes2)
            for pk, nodes1, nodes2 in Pair.objects.filter(pk__in={r[0] for r in rows}).values_list(
                "pk", "nodes1", "nodes2"
            )
        }
        parts = parts_of_rows(rows, trees)
        totals: dict = {}
        for cells in parts.values():
            for cell, n in cells.items():
                totals[cell] = totals.get(cell, 0) + n
        AgreementPhrasePart.objects.bulk_create(
            [
                AgreementPhrasePart(project_id=project_id, pair_id=pk, cells=stored(c))
                for pk, c in parts.items()
            ],
            batch_size=1000,
        )
        AgreementSum.objects.filter(project_id=project_id, measure__in=MEASURES).delete()
        AgreementSum.objects.bulk_create(
            [
                AgreementSum(project_id=project_id, measure=m, annotators=a, key=k, value=n)
                for (m, a, k), n in sorted(totals.items())
                if n
            ],
            batch_size=1000,
        )


class Migration(migrations.Migration):
    dependencies = [("annotator", "0033_phenomena_sums")]

    operations = [
        migrations.CreateModel(
            name="AgreementPhrasePart",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("cells", models.JSONField(default=list)),
                (
                    "pair",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="agreement_phrase_part",
                        to="annotator.pair",
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="annotator.project"
                    ),
                ),
            ],
            options={"indexes": [models.Index(fields=["project"], name="annotator_a_project_64f8fc_idx")]},
        ),
        migrations.RunPython(fill_parts, migrations.RunPython.noop),
    ]
