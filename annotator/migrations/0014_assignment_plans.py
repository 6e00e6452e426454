import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0013_agreement_pair_entry"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AssignmentPlan",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("params", models.JSONField(help_text="The planner's choices, seed included.")),
                (
                    "params_key",
                    models.CharField(help_text="SHA-256 of the choices (canonical JSON).", max_length=64),
                ),
                (
                    "source",
                    models.CharField(help_text="The pairs and annotators it was computed from.", max_length=200),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Waiting"),
                            ("running", "Computing"),
                            ("ready", "Ready"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("error", models.TextField(blank=True)),
                ("n_pairs", models.PositiveIntegerField(default=0)),
                ("n_assignments", models.PositiveIntegerField(default=0)),
                ("n_new", models.PositiveIntegerField(default=0)),
                (
                    "loads",
                    models.JSONField(default=list, help_text="Per annotator: id, username, existing, new, done."),
                ),
                (
                    "overlap",
                    models.JSONField(default=list, help_text="[a, b, pairs shared] for every two annotators."),
                ),
                (
                    "first_pairs",
                    models.JSONField(default=list, help_text="Source ids of the first chosen pairs."),
                ),
                ("applied_at", models.DateTimeField(blank=True, null=True)),
                (
                    "created",
                    models.PositiveIntegerField(blank=True, help_text="Assignments Apply wrote.", null=True),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="assignment_plans",
                        to="annotator.project",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["project", "params_key"], name="assignment_plan_key")],
            },
        ),
        migrations.CreateModel(
            name="PlannedAssignment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("position", models.PositiveIntegerField()),
                ("is_new", models.BooleanField(help_text="Not assigned yet when the plan was computed.")),
                (
                    "annotator",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "pair",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="annotator.pair"
                    ),
                ),
                (
                    "plan",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rows",
                        to="annotator.assignmentplan",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("plan", "position"), name="planned_assignment_order")
                ],
            },
        ),
    ]
