"""`manage.py recompute_agreement --project ID|NAME [--full]` (or `--all`)

Recompute a project's agreement now, in this process, under the same per-project lock as the worker.
By default the sections whose inputs changed since the current agreement are computed (an unchanged project stores
nothing); `--full` computes every section afresh and stores a snapshot even when nothing changed.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.agreement.computation import recompute
from annotator.management.projects import project_named
from annotator.models import Project


class Command(BaseCommand):
    help = "Recompute a project's agreement now (sections of unchanged inputs reused, or --full)."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--project", help="The project's id or name.")
        which.add_argument("--all", action="store_true", help="Every project.")
        parser.add_argument(
            "--full", action="store_true", help="Compute every section afresh (nothing reused) and store it."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["all"]:
            projects = list(Project.objects.order_by("pk"))
        else:
            projects = [project_named(options["project"])]
        for project in projects:
            started = time.perf_counter()
            outcome = recompute(project.pk, full=options["full"])
            elapsed = time.perf_counter() - started
            if outcome == "busy":
                raise CommandError(
                    f"project {project.pk} ({project.name}): another process is computing it; try again shortly"
                )
            self.stdout.write(f"project {project.pk} ({project.name}): {outcome} in {elapsed:.2f} s")
