"""`manage.py rebuild_agreement [PROJECT]` (id or name; every project without one)

Sum the agreement sums the database keeps (`annotator.agreement.sums`) afresh from the annotations, in
one transaction per project, and say whether the kept totals had drifted from them.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from annotator.agreement import rebuild
from annotator.management.projects import project_named
from annotator.models import Project


class Command(BaseCommand):
    help = "Sum a project's agreement sums afresh from its annotations (every project without one)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project", nargs="?", help="The project's id or name (default: every project).")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["project"]:
            projects = [project_named(options["project"])]
        else:
            projects = list(Project.objects.order_by("pk"))
        for project in projects:
            with transaction.atomic():
                drifted = rebuild(project.pk)
            self.stdout.write(
                f"{project.name}: sums rebuilt" + (f" ({drifted} cells had drifted)" if drifted else "")
            )
