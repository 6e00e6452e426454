"""Back up the database and the media files into one archive (safe while the app runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotator.management import backup


class Command(BaseCommand):
    help = (
        "Write the database (PostgreSQL: pg_dump; SQLite: the online backup API) and MEDIA_ROOT to FILE "
        "(a tar archive), consistently, while the app keeps running."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="the archive to write, e.g. workbench-2026-11-25.tar")

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        try:
            manifest = backup.backup(file)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(manifest["tables"].values())
        self.stdout.write(
            self.style.SUCCESS(f"{file}: {manifest['vendor']} database, {rows:,} rows, media files")
        )
