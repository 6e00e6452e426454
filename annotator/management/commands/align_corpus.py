"""`manage.py align_corpus --project ID|NAME [--symmetrize per-kind|intersection|grow-diag-final]`

Trains the project's statistical aligner on its pairs and stores each pair's initial alignment as a
new version (imported initial alignments are kept). Runs in this process, printing the progress.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.core.statistical_aligner import SYMMETRIZATIONS
from annotator.corpus.aligner_training import TrainingError, create_run, run_training, settings_from
from annotator.management.projects import add_project_argument, project_named
from annotator.models import AlignerRun


class Command(BaseCommand):
    help = "Train the project's word aligner on its own pairs and store the initial alignments."

    def add_arguments(self, parser: CommandParser) -> None:
        add_project_argument(parser)
        parser.add_argument(
            "--symmetrize",
            choices=SYMMETRIZATIONS,
            default="per-kind",
            help="per-kind: the posterior aligner (the default); intersection, grow-diag-final: eflomal",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        project = project_named(options["project"])
        try:
            run = create_run(project, None, settings_from(options["symmetrize"]))
        except TrainingError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"aligner version {run.version} of {project.name}: training…")
        try:
            run_training(run.pk)
        finally:
            run.refresh_from_db()
        if run.status != AlignerRun.Status.SUCCEEDED:
            raise CommandError(run.report.get("summary", "the run failed"))
        self.stdout.write(self.style.SUCCESS(f"{run.report['summary']} ({run.report['seconds']} s)"))
