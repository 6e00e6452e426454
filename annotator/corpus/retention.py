"""What uploads cost: per-user limits on imports, and removing uploaded files once their job is over.

- Limits: a user starts at most UPLOADS_PER_HOUR uploads (imports and lexicon builds) and
  UPLOAD_MB_PER_HOUR megabytes of files in any hour (`check_upload_quota`, called by
  `annotator.corpus.jobs.start_import` and `annotator.evaluation.lexicon_jobs.start_build`).
- Size: the files of one import or lexicon build are at most UPLOAD_MAX_MB together (`check_upload_size`);
  an export file at most EXPORT_MAX_MB (`annotator.corpus.exports.export_to_file`).
- Retention: a job's uploaded files are removed when it ends (`remove_uploads`), except a failed job's,
  kept FAILED_UPLOAD_KEEP_DAYS days so that the problem can be looked into; an export's file is kept
  EXPORT_KEEP_DAYS days; an import still queued or running after UPLOAD_KEEP_DAYS is failed. `clean_up`
  (the management command `clean_up_uploads`, run daily by cron or Celery beat) removes what is due,
  and any leftovers: files of finished jobs and folders of jobs that no longer exist.
- A project's leads see every job's files, their size and until when they are kept, and delete a
  finished job with its files (`delete_job`).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from annotator.models import CorpusJob

FINISHED = (CorpusJob.Status.SUCCEEDED, CorpusJob.Status.FAILED, CorpusJob.Status.CANCELLED)
UPLOADING = (CorpusJob.Kind.IMPORT, CorpusJob.Kind.LEXICON)  # the kinds of job that store uploads


class UploadLimitExceeded(Exception):
    """The user's uploads of the last hour reached a limit; the message says which and until when."""


class UploadTooLarge(ValueError):
    """The files of one upload are larger than UPLOAD_MAX_MB together."""


def jobs_root() -> Path:
    return Path(settings.MEDIA_ROOT) / "corpus_jobs"


def check_upload_size(n_bytes: int) -> None:
    """Raise `UploadTooLarge` if the files of one upload are larger than UPLOAD_MAX_MB together."""
    limit = int(settings.UPLOAD_MAX_MB)
    if n_bytes > limit * 2**20:
        raise UploadTooLarge(f"The files are larger than {limit} MB together (UPLOAD_MAX_MB).")


def check_upload_quota(user: Any, n_bytes: int, *, now: datetime | None = None) -> None:
    """Raise `UploadLimitExceeded` if these `n_bytes` would exceed the user's hourly limits."""
    now = now or timezone.now()
    per_hour = settings.UPLOADS_PER_HOUR
    mb_per_hour = settings.UPLOAD_MB_PER_HOUR
    recent = list(
        CorpusJob.objects.filter(
            created_by=user, kind__in=UPLOADING, created_at__gte=now - timedelta(hours=1)
        )
        .order_by("created_at")
        .values_list("created_at", "input_files")
    )
    if not recent:
        return
    again = timezone.localtime(recent[0][0] + timedelta(hours=1)).strftime("%H:%M")
    if len(recent) >= per_hour:
        raise UploadLimitExceeded(
            f"You started {len(recent)} uploads (imports, lexicon builds) in the last hour; the limit is "
            f"{per_hour} an hour. "
            f"Try again after {again}."
        )
    used = sum(entry.get("size", 0) for _, files in recent for entry in files or [])
    if used + n_bytes > mb_per_hour * 2**20:
        raise UploadLimitExceeded(
            f"You uploaded {used / 2**20:.1f} MB in the last hour and these files are "
            f"{n_bytes / 2**20:.1f} MB; the limit is {mb_per_hour} MB an hour. Try again after {again}."
        )


def remove_uploads(job: CorpusJob) -> int:
    """Delete the job's uploaded files (their names stay on the job); returns the bytes freed."""
    freed = 0
    kept = []
    for entry in job.input_files or []:
        path = Path(entry.get("path") or "")
        if entry.get("path") and path.is_file() and jobs_root() in path.parents:
            freed += path.stat().st_size
            path.unlink()
        kept.append({**entry, "path": ""})
    if kept != (job.input_files or []):
        CorpusJob.objects.filter(pk=job.pk).update(input_files=kept)
        job.input_files = kept
    directory = jobs_root() / str(job.pk)
    if directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
    return freed


@dataclass
class CleanUp:
    jobs: int = 0
    folders: int = 0
    bytes: int = 0
    exports: int = 0

    def __str__(self) -> str:
        return (
            f"removed the uploads of {self.jobs} jobs, the files of {self.exports} exports and "
            f"{self.folders} folders of deleted jobs "
            f"({self.bytes / 2**20:.1f} MB)"
        )


def kept_until(job: CorpusJob) -> datetime | None:
    """When the job's files are removed (None: it has none, or they go when it ends)."""
    if job.kind == CorpusJob.Kind.EXPORT:
        if not job.output_file or job.finished_at is None:
            return None
        return job.finished_at + timedelta(days=float(settings.EXPORT_KEEP_DAYS))
    if not any(entry.get("path") for entry in job.input_files or []):
        return None
    if job.status == CorpusJob.Status.FAILED and job.finished_at is not None:
        return job.finished_at + timedelta(days=float(settings.FAILED_UPLOAD_KEEP_DAYS))
    if job.status in (CorpusJob.Status.QUEUED, CorpusJob.Status.RUNNING):
        return job.created_at + timedelta(days=float(settings.UPLOAD_KEEP_DAYS))
    return None


def stored_bytes(job: CorpusJob) -> int:
    """Bytes of the job's files still on disk (uploads, export)."""
    paths = [Path(entry["path"]) for entry in job.input_files or [] if entry.get("path")]
    if job.output_file:
        paths.append(Path(job.output_file))
    return sum(path.stat().st_size for path in paths if path.is_file() and jobs_root() in path.parents)


class JobBusy(Exception):
    """The job is queued or running: cancel it first."""


def delete_job(job: CorpusJob) -> int:
    """Delete a finished job with its uploads and its export file; returns the bytes freed. A queued or
    running job is refused (JobBusy): cancel it first."""
    if job.status not in FINISHED:
        raise JobBusy("This job is still queued or running: cancel it first, then delete it.")
    freed = remove_uploads(job) + _remove_output(job)
    directory = jobs_root() / str(job.pk)
    if directory.is_dir():
        freed += sum(f.stat().st_size for f in directory.rglob("*") if f.is_file())
        shutil.rmtree(directory)
    job.delete()
    return freed


def _remove_output(job: CorpusJob) -> int:
    path = Path(job.output_file) if job.output_file else None
    freed = 0
    if path is not None and path.is_file() and jobs_root() in path.parents:
        freed = path.stat().st_size
        path.unlink()
    if job.output_file:
        CorpusJob.objects.filter(pk=job.pk).update(output_file="")
        job.output_file = ""
    return freed


def clean_up(*, now: datetime | None = None) -> CleanUp:
    """Remove what is due: uploads of finished jobs (a failed job's after FAILED_UPLOAD_KEEP_DAYS), export
    files after EXPORT_KEEP_DAYS, the uploads of imports stuck queued or running for UPLOAD_KEEP_DAYS
    (the job failed, saying so), and orphan folders."""
    now = now or timezone.now()
    keep_days = settings.FAILED_UPLOAD_KEEP_DAYS
    done = CleanUp()
    stuck = CorpusJob.objects.filter(
        kind__in=UPLOADING,
        status__in=(CorpusJob.Status.QUEUED, CorpusJob.Status.RUNNING),
        created_at__lt=now - timedelta(days=float(settings.UPLOAD_KEEP_DAYS)),
    )
    for job in stuck.iterator(chunk_size=200):
        failed = CorpusJob.objects.filter(pk=job.pk, status=job.status).update(
            status=CorpusJob.Status.FAILED,
            finished_at=now,
            report={
                "summary": f"The job did not end within {settings.UPLOAD_KEEP_DAYS:g} days (UPLOAD_KEEP_DAYS); "
                "its files were removed. Nothing was imported or built by it; upload the files again."
            },
        )
        if failed:
            done.bytes += remove_uploads(job)
            done.jobs += 1
    exports = CorpusJob.objects.filter(
        kind=CorpusJob.Kind.EXPORT,
        status__in=FINISHED,
        finished_at__lt=now - timedelta(days=float(settings.EXPORT_KEEP_DAYS)),
    ).exclude(output_file="")
    for job in exports.iterator(chunk_size=200):
        done.bytes += _remove_output(job)
        done.exports += 1
    due = (
        CorpusJob.objects.filter(kind__in=UPLOADING, status__in=FINISHED)
        .exclude(input_files=[])
        .exclude(Q(status=CorpusJob.Status.FAILED) & Q(finished_at__gt=now - timedelta(days=keep_days)))
    )
    for job in due.iterator(chunk_size=200):
        if any(entry.get("path") for entry in job.input_files or []):
            done.bytes += remove_uploads(job)
            done.jobs += 1
    root = jobs_root()
    if root.is_dir():
        folders = {p.name: p for p in root.iterdir() if p.is_dir() and p.name.isdigit()}
        existing = set(
            CorpusJob.objects.filter(pk__in=[int(n) for n in folders]).values_list("pk", flat=True)
        )
        for name, path in folders.items():
            if int(name) not in existing:
                done.bytes += sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
                shutil.rmtree(path)
                done.folders += 1
    return done
