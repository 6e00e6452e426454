"""`manage.py clean_up_uploads`: remove uploaded files of finished import jobs (run it daily)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from annotator.corpus.retention import clean_up


class Command(BaseCommand):
    help = (
        "Remove uploaded files of finished import jobs: a failed job's after FAILED_UPLOAD_KEEP_DAYS days, "
        "every other job's at once, and folders of jobs that no longer exist."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(str(clean_up()))
