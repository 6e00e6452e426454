"""`manage.py export_corpus --format {native,etpc,csv,pharaoh,report} --project ID|NAME [--annotator NAME|--gold] --output PATH`

native: JSON (or JSON Lines when PATH ends in .jsonl), optionally with --history; report: JSON, CSV or a
printable HTML page by PATH's extension (.json, .csv, .html).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.corpus.exports import FORMATS, export_project
from annotator.corpus.exports.report import NoSnapshot
from annotator.management.projects import add_project_argument, project_named


class Command(BaseCommand):
    help = "Export a project: native JSON/JSONL, ETPC XML, phenomena CSV, Pharaoh alignments or the agreement report."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", required=True, choices=FORMATS)
        add_project_argument(parser)
        who = parser.add_mutually_exclusive_group()
        who.add_argument(
            "--annotator", help="Whose annotations (pharaoh: 'initial' = the initial alignments)."
        )
        who.add_argument("--gold", action="store_true", help="The gold layer instead of an annotator.")
        parser.add_argument("--history", action="store_true", help="native: include the annotation history.")
        parser.add_argument("--output", required=True, type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        project = project_named(options["project"])
        output: Path = options["output"]
        suffix = output.suffix.lower().lstrip(".")
        try:
            exported = export_project(
                options["format"],
                project,
                annotator=options["annotator"],
                gold=options["gold"],
                jsonl=suffix == "jsonl",
                history=options["history"],
                report_format=suffix if suffix in ("csv", "html") else "json",
            )
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        except (ValueError, NoSnapshot) as exc:
            raise CommandError(str(exc)) from exc
        output.write_bytes(exported.data)
        self.stdout.write(self.style.SUCCESS(f"wrote {output} ({len(exported.data):,} bytes)"))
