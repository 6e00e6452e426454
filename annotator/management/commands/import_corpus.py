"""`manage.py import_corpus --format FORMAT --project NAME [--annotator NAME] [--dry-run] [--skip-invalid] PATH...`

Creates the project if needed, prints what it created (or would create), every repair and skip, or
every problem as `FILE:LINE: field: message`, and exits non-zero when nothing was imported. A written
import is recorded as a finished import job with its report (the corpus statistics state its skips).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.corpus.jobs import record_command_import
from annotator.corpus.services import FORMATS, import_corpus, report_lines


class Command(BaseCommand):
    help = "Import corpus files (MRPC, ETPC, native JSON/JSONL, PTB trees, Pharaoh alignments, evaluation units)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("--project", required=True, help="Project name (created if it does not exist).")
        parser.add_argument(
            "--annotator",
            help="Whose annotations the files hold (ETPC: default 'etpc'; "
            "Pharaoh: 'initial' = the pairs' initial automatic alignment).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Report what would happen; write nothing.")
        parser.add_argument(
            "--skip-invalid",
            action="store_true",
            help="Import every valid record; report each skipped one with its reason.",
        )
        parser.add_argument("--report", type=Path, help="Also write the full report as JSON to this file.")
        parser.add_argument("paths", nargs="+", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        missing = [str(p) for p in options["paths"] if not p.is_file()]
        if missing:
            raise CommandError(f"no such file: {', '.join(missing)}")
        report = import_corpus(
            options["format"],
            options["project"],
            options["paths"],
            annotator=options["annotator"],
            dry_run=options["dry_run"],
            skip_invalid=options["skip_invalid"],
        )
        record_command_import(report)
        if options["report"]:
            options["report"].write_text(json.dumps(report.to_dict(), indent=1, ensure_ascii=False))
        for line in report_lines(report):
            self.stdout.write(line)
        if not report.ok:
            raise CommandError(
                f"{len(report.problems)} problem(s); nothing was imported into {report.project}"
            )
        self.stdout.write(self.style.SUCCESS(report.summary()))
