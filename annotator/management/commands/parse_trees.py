"""`manage.py parse_trees --project ID|NAME [--parser spacy|benepar]`: automatic trees for the pairs
without imported ones (imported trees are kept), in this process."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.core.auto_trees import BACKENDS, ParserUnavailable
from annotator.corpus.tree_parsing import parse_missing_trees
from annotator.models import Project


class Command(BaseCommand):
    help = "Parse the members of a project's pairs that have no imported tree."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True, help="The project's id or name.")
        parser.add_argument("--parser", choices=BACKENDS, default="spacy")

    def handle(self, *args: Any, **options: Any) -> None:
        key = options["project"]
        project = Project.objects.filter(pk=int(key)).first() if key.isdigit() else None
        project = project or Project.objects.filter(name=key).first()
        if project is None:
            raise CommandError(f"no project with id or name {key!r}")
        try:
            result = parse_missing_trees(project, backend=options["parser"], progress=lambda d, t: None)
        except ParserUnavailable as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(result["summary"]))
