"""`manage.py parse_trees --project ID|NAME [--parser spacy|benepar]`: automatic trees for the pairs
without imported ones (imported trees are kept), in this process."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.core.auto_trees import BACKENDS, ParserUnavailable
from annotator.corpus.tree_parsing import parse_missing_trees
from annotator.management.projects import add_project_argument, project_named


class Command(BaseCommand):
    help = "Parse the members of a project's pairs that have no imported tree."

    def add_arguments(self, parser: CommandParser) -> None:
        add_project_argument(parser)
        parser.add_argument("--parser", choices=BACKENDS, default="spacy")

    def handle(self, *args: Any, **options: Any) -> None:
        project = project_named(options["project"])
        try:
            result = parse_missing_trees(project, backend=options["parser"], progress=lambda d, t: None)
        except ParserUnavailable as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(result["summary"]))
