"""Restore a backup archive into an empty database (and its media files into MEDIA_ROOT)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotator.management import backup


class Command(BaseCommand):
    help = (
        "Restore FILE (written by `manage.py backup`) into the database DATABASE_URL names, which must be "
        "empty, and its media files into MEDIA_ROOT. All or nothing for the database."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="an archive written by `manage.py backup`")

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        try:
            manifest = backup.restore(file)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(manifest["tables"].values())
        self.stdout.write(
            self.style.SUCCESS(
                f"restored {rows:,} rows and the media files of the backup of {manifest['created_at']}"
            )
        )
