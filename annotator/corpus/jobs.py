"""Import and export jobs: small files run inline, large ones as Celery tasks with progress and cancel.

A `CorpusJob` row records each run (its options, the stored upload paths, the output file and the
report). The work itself is `annotator.corpus.services.import_corpus` / `annotator.corpus.exports.export_to_file`
— the same functions the management commands call.

Progress and cancellation go through the cache, not the job row: an import runs inside one database
transaction, so a progress update written to the row would stay invisible (and be rolled back), and a
cancel flag written by the web request could be invisible to the import's snapshot (SQLite). The row
gets the final state when the job ends. With Redis (REDIS_URL) the cache is shared by web and workers.

A job runs once. A run holds the job's lock (`annotator.corpus.run_once`: on PostgreSQL a session advisory
lock of its database connection, which the server releases when the worker dies) from before any work
to its end, and claims the row with one conditional UPDATE (queued → running, `claimed_by` its token),
committed before the import's transaction opens. A task the broker delivers again (a job longer than
the visibility timeout, a lost acknowledgement) finds the lock held and leaves the job to the live run.
One that gets the lock and finds the row running knows its run is gone (its worker died, and the lock
with it): it takes the claim over with another conditional UPDATE, or records the cancel the lead asked
for meanwhile. A run records its end only while it holds the claim, so a run that lost it never
overwrites the job's outcome.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotator import taskqueue
from annotator.corpus import run_once
from annotator.corpus.exports import ExportCancelled, ExportTooLarge, check_options, export_to_file
from annotator.corpus.exports.report import NoSnapshot
from annotator.corpus.imports.problems import ImportReport
from annotator.corpus.retention import check_upload_quota, remove_uploads
from annotator.corpus.services import FileLike, import_corpus
from annotator.models import CorpusJob, Project

log = logging.getLogger(__name__)

INLINE_LIMIT = 256 * 1024  # bytes of upload below which an import runs within the request
PROGRESS_KEY = "corpus-job:{}:progress"
CANCEL_KEY = "corpus-job:{}:cancel"
KEY_TTL = 24 * 3600
FINISHED = (CorpusJob.Status.SUCCEEDED, CorpusJob.Status.FAILED, CorpusJob.Status.CANCELLED)


def job_dir(job: CorpusJob) -> Path:
    path = Path(settings.MEDIA_ROOT) / "corpus_jobs" / str(job.pk)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _safe_name(name: str) -> str:
    name = Path(name).name
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name) or "upload"


def check_new_project_name(name: str) -> None:
    if Project.objects.filter(name=name).exists():
        raise ValidationError(
            {"project_name": f"A project named {name!r} exists: import into it from its own page."}
        )


def start_import(
    user: Any,
    format: str,
    project_name: str,
    files: list[tuple[str, bytes]],
    *,
    project: Project | None = None,
    annotator: str | None = None,
    dry_run: bool = False,
    skip_invalid: bool = False,
    new_project: dict[str, Any] | None = None,
) -> CorpusJob:
    """Store the uploads, record the job, and run it: inline when small, else on a worker.

    `new_project`: the language and tagset id (`tagset_id`) of the project an import creates.
    An import into a new project (`project=None`) needs a name no project has yet (ValidationError on
    `project_name`: importing into an existing project goes through that project). Raises
    `annotator.corpus.retention.UploadLimitExceeded` when the user's hourly limits are reached."""
    if project is None:
        check_new_project_name(project_name)
    with transaction.atomic():  # the user's row locked: concurrent uploads pass the quota one by one
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
        check_upload_quota(user, sum(len(data) for _, data in files))
        job = _record_import(
            user, format, project, project_name, annotator, dry_run, skip_invalid, new_project
        )
        # the sizes are on the row before the lock goes: the next upload's quota counts them
        job.input_files = [{"name": Path(name).name, "path": "", "size": len(data)} for name, data in files]
        job.save(update_fields=["input_files"])
    return _store_and_run(job, files)


def _record_import(
    user: Any,
    format: str,
    project: Project | None,
    project_name: str,
    annotator: str | None,
    dry_run: bool,
    skip_invalid: bool,
    new_project: dict[str, Any] | None,
) -> CorpusJob:
    return CorpusJob.objects.create(
        kind=CorpusJob.Kind.IMPORT,
        format=format,
        project=project,
        project_name=project_name,
        created_by=user,
        options={
            "annotator": annotator or "",
            "dry_run": dry_run,
            "skip_invalid": skip_invalid,
            "new_project": project is None,
            "project_fields": new_project or {},
        },
    )


def store_uploads(job: CorpusJob, files: list[tuple[str, bytes]]) -> None:
    """Write the job's uploaded files under its folder and record their paths and sizes on the row."""
    directory = job_dir(job)
    stored = []
    for n, (name, data) in enumerate(files):
        path = directory / f"{n:02d}-{_safe_name(name)}"
        path.write_bytes(data)
        stored.append({"name": Path(name).name, "path": str(path), "size": len(data)})
    job.input_files = stored
    job.save(update_fields=["input_files"])


def _store_and_run(job: CorpusJob, files: list[tuple[str, bytes]]) -> CorpusJob:
    store_uploads(job, files)
    if sum(len(data) for _, data in files) <= INLINE_LIMIT:
        run_import(job.pk)
    else:
        transaction.on_commit(lambda: send("annotator.run_import_job", job.pk))
    job.refresh_from_db()
    return job


def record_command_import(report: ImportReport, user: Any = None) -> CorpusJob | None:
    """Record an import run from the command line (`manage.py import_corpus`) as a finished job, so
    the project keeps its report — e.g. the records skipped under --skip-invalid, which the corpus
    statistics state. Dry runs and failed imports wrote nothing and are not recorded."""
    if not report.written:
        return None
    project = Project.objects.filter(name=report.project.strip()).first()
    return CorpusJob.objects.create(
        kind=CorpusJob.Kind.IMPORT,
        format=report.format,
        project=project,
        project_name=report.project,
        created_by=user,
        options={"skip_invalid": report.skip_invalid, "dry_run": False, "from": "command"},
        status=CorpusJob.Status.SUCCEEDED,
        report=report.to_dict(),
        finished_at=timezone.now(),
    )


def start_export(user: Any, project: Project, format: str, **options: Any) -> CorpusJob:
    """Record an export job and run it on a worker (inline when tasks run in-process); options the
    format does not take are refused first (`exports.check_options`: ValidationError)."""
    check_options(format, annotator=options.get("annotator"), gold=options.get("gold", False))
    job = CorpusJob.objects.create(
        kind=CorpusJob.Kind.EXPORT,
        format=format,
        project=project,
        project_name=project.name,
        created_by=user,
        options=options,
    )
    transaction.on_commit(lambda: send("annotator.run_export_job", job.pk))
    return job


def send(task: str, job_id: int) -> None:
    """Hand the job to a worker; if the queue is unreachable the job fails now, saying so, instead of
    staying "queued" for ever."""
    try:
        taskqueue.enqueue(task, job_id)
    except taskqueue.QueueUnavailable as exc:
        CorpusJob.objects.filter(pk=job_id, status=CorpusJob.Status.QUEUED).update(
            status=CorpusJob.Status.FAILED,
            finished_at=timezone.now(),
            report={"summary": f"{exc} Nothing was changed; start the job again once the queue is back."},
        )


def request_cancel(job: CorpusJob) -> None:
    """Ask a job to stop: a queued one is cancelled at once, a running one at its next checkpoint."""
    cache.set(CANCEL_KEY.format(job.pk), True, KEY_TTL)
    CorpusJob.objects.filter(pk=job.pk).update(cancel_requested=True)
    CorpusJob.objects.filter(pk=job.pk, status=CorpusJob.Status.QUEUED).update(
        status=CorpusJob.Status.CANCELLED,
        finished_at=timezone.now(),
        report={"summary": "Cancelled before it started; nothing was changed."},
    )


def progress_of(job: CorpusJob) -> tuple[int, int]:
    """(done, total) of a running job from the cache, or the row's values."""
    if job.status == CorpusJob.Status.RUNNING:
        live = cache.get(PROGRESS_KEY.format(job.pk))
        if live:
            return live
    return job.progress, job.total


class Checkpoints:
    """A running job's progress to the cache (at most every 0.2 s) and its cancel flag from it: what
    `run_import` reports and reads, and what `progress_of` and `request_cancel` meet from the web side."""

    def __init__(self, job_id: int) -> None:
        self.job_id, self.last = job_id, 0.0

    def progress(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last >= 0.2 or done >= total:
            self.last = now
            cache.set(PROGRESS_KEY.format(self.job_id), (done, total), KEY_TTL)

    def cancelled(self) -> bool:
        return bool(cache.get(CANCEL_KEY.format(self.job_id)))


def _run_token() -> str:
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def lock_name(job_id: int) -> str:
    """The job's name for `run_once` (its lock)."""
    return f"corpus-job:{job_id}"


@contextmanager
def claimed(job_id: int) -> Iterator[CorpusJob | None]:
    """Hold the job for this run while the block runs: yields it claimed, or None (nothing to do —
    finished, cancelled, deleted, or running on a live worker)."""
    with run_once.hold(lock_name(job_id)) as held:
        if not held:
            log.info("corpus job %s is running on a live worker; this delivery leaves it", job_id)
            yield None
            return
        yield _claim(job_id)


def _claim(job_id: int) -> CorpusJob | None:
    """Claim the job's row; the caller holds its lock."""
    token = _run_token()
    claimed = CorpusJob.objects.filter(
        pk=job_id, status=CorpusJob.Status.QUEUED, cancel_requested=False
    ).update(status=CorpusJob.Status.RUNNING, claimed_by=token)
    job = CorpusJob.objects.filter(pk=job_id).first()
    if job is None:
        log.warning("corpus job %s no longer exists; skipped", job_id)
        return None
    if claimed:
        return job
    if job.status in FINISHED:
        return None  # a re-delivered task of a finished job: nothing to do
    if job.cancel_requested or cache.get(CANCEL_KEY.format(job.pk)):
        # queued, or running on a worker that died (its transaction went with it)
        summaries: dict[str, str] = {
            CorpusJob.Status.QUEUED: "Cancelled before it started; nothing was changed.",
            CorpusJob.Status.RUNNING: "Cancelled after its worker stopped; nothing was changed.",
        }
        summary = summaries.get(job.status)
        if summary:
            CorpusJob.objects.filter(pk=job.pk, status=job.status).update(
                status=CorpusJob.Status.CANCELLED, finished_at=timezone.now(), report={"summary": summary}
            )
        return None
    # running, yet its lock was free: the run's worker died; take the claim over
    taken = CorpusJob.objects.filter(
        pk=job.pk, status=CorpusJob.Status.RUNNING, claimed_by=job.claimed_by
    ).update(claimed_by=token)
    if not taken:
        return None
    log.warning("corpus job %s: the run %s is gone; running it again", job.pk, job.claimed_by)
    job.claimed_by = token
    return job


def finish(job: CorpusJob, status: str, report: dict[str, Any], **fields: Any) -> bool:
    """Record the job's end, only while this run holds its claim (False: another run took it over)."""
    done, total = cache.get(PROGRESS_KEY.format(job.pk)) or (job.progress, job.total)
    progress, total = (total, total) if status == CorpusJob.Status.SUCCEEDED else (done, total)
    values = {"status": status, "report": report, "finished_at": timezone.now(), "progress": progress}
    values |= {"total": total, **fields}
    recorded = CorpusJob.objects.filter(
        pk=job.pk, status=CorpusJob.Status.RUNNING, claimed_by=job.claimed_by
    ).update(**values)
    if not recorded:
        log.warning(
            "corpus job %s: this run lost its claim; its outcome (%s) is not recorded", job.pk, status
        )
        return False
    for name, value in values.items():
        setattr(job, name, value)
    return True


def run_import(job_id: int) -> str | None:
    """Run a stored import job once (see the module's docstring); returns its final status (None: this
    delivery had nothing to do, or lost its claim)."""

    with claimed(job_id) as job:
        return None if job is None else _import(job)


def _import(job: CorpusJob) -> str | None:
    checkpoints = Checkpoints(job.pk)
    files: list[FileLike] = [(f["name"], Path(f["path"])) for f in job.input_files]  # read as needed
    options = job.options
    try:
        report = import_corpus(
            job.format,
            job.project_name,
            files,
            annotator=options.get("annotator") or None,
            dry_run=options.get("dry_run", False),
            skip_invalid=options.get("skip_invalid", False),
            progress=checkpoints.progress,
            cancelled=checkpoints.cancelled,
            actor=job.created_by,
            new_project=options.get("project_fields") or None,
        )
    except Exception as exc:  # a bug: record it on the job, then fail loudly
        finish(job, CorpusJob.Status.FAILED, {"summary": f"Internal error: {exc.__class__.__name__}: {exc}"})
        raise
    if report.cancelled:
        status = CorpusJob.Status.CANCELLED
    else:
        status = CorpusJob.Status.SUCCEEDED if report.ok else CorpusJob.Status.FAILED
    project = Project.objects.filter(name=job.project_name).first() if report.written else job.project
    if not finish(job, status, report.to_dict(), project=project):
        return None
    if status != CorpusJob.Status.FAILED:  # a failed job's files stay for FAILED_UPLOAD_KEEP_DAYS
        remove_uploads(job)
    return status


def run_export(job_id: int) -> str | None:
    """Run an export job once: write the file under MEDIA_ROOT and remember its path."""

    with claimed(job_id) as job:
        return None if job is None else _export(job)


def _export(job: CorpusJob) -> str | None:
    if job.project is None:
        finish(job, CorpusJob.Status.FAILED, {"summary": "The project no longer exists."})
        return CorpusJob.Status.FAILED
    try:
        exported = export_to_file(
            job.format,
            job.project,
            job_dir(job),
            max_bytes=settings.EXPORT_MAX_MB * 2**20,
            cancelled=Checkpoints(job.pk).cancelled,
            **job.options,
        )
    except ExportCancelled as exc:
        finish(job, CorpusJob.Status.CANCELLED, {"summary": str(exc)})
        return CorpusJob.Status.CANCELLED
    except ValidationError as exc:
        finish(job, CorpusJob.Status.FAILED, {"summary": " ".join(exc.messages)})
        return CorpusJob.Status.FAILED
    except (ValueError, NoSnapshot, ExportTooLarge) as exc:
        finish(job, CorpusJob.Status.FAILED, {"summary": str(exc)})
        return CorpusJob.Status.FAILED
    except Exception as exc:  # a bug: record it on the job, then fail loudly
        finish(job, CorpusJob.Status.FAILED, {"summary": f"Internal error: {exc.__class__.__name__}: {exc}"})
        raise
    recorded = finish(
        job,
        CorpusJob.Status.SUCCEEDED,
        {
            "summary": f"{exported.path.name}: {exported.size:,} bytes",
            "content_type": exported.content_type,
            "size": exported.size,
        },
        output_file=str(exported.path),
    )
    return CorpusJob.Status.SUCCEEDED if recorded else None
