"""Lexicon builds as jobs: the uploads of Fujita's lexicon evaluation stored and built like an import.

`start_build` checks the files' size (UPLOAD_MAX_MB together) and the user's hourly upload quota (the
same as imports'), records a `CorpusJob` of kind "lexicon" with the rule in its options, stores the
files, and runs it: within the request when the files are small (`corpus.jobs.INLINE_LIMIT`), else as
the Celery task `annotator.run_lexicon_job`. A preview is the same job with `preview` set: it plans and
reports, and writes no unit.

`run_build` (the task body) runs a job once, as imports do (`annotator.corpus.jobs`: the job's lock
held and its row claimed before any work; a redelivered task leaves a job a live worker holds). It
reports its progress (phrases planned, then units written) and reads its cancel at each phrase and
each unit; a cancelled build writes nothing. Bad input fails the job with the service's
messages (file, line and field) in its report; the uploads are removed when the job ends (a failed
job's kept FAILED_UPLOAD_KEEP_DAYS, `corpus.retention`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.corpus import jobs
from annotator.corpus.retention import check_upload_quota, check_upload_size, remove_uploads
from annotator.evaluation.lexicons import BuildCancelled, BuildResult, UnitRule, build_units, plan_units
from annotator.models import CorpusJob, Project

TASK = "annotator.run_lexicon_job"
FILE_FIELDS = ("lexicon_file", "sentence_file")


def start_build(
    user: Any,
    project: Project,
    lexicon_file: tuple[str, bytes],
    sentence_file: tuple[str, bytes],
    rule: UnitRule,
    *,
    preview: bool = False,
) -> CorpusJob:
    """Record the build (or its preview) as a job, store its two files and run it: inline when small,
    else on a worker. Raises `corpus.retention.UploadTooLarge` (files over UPLOAD_MAX_MB) or
    `UploadLimitExceeded` (the user's hourly quota); the job itself fails with the build's errors."""
    files = [lexicon_file, sentence_file]
    n_bytes = sum(len(data) for _, data in files)
    check_upload_size(n_bytes)
    with transaction.atomic():  # the user's row locked: concurrent uploads pass the quota one by one
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
        check_upload_quota(user, n_bytes)
        job = CorpusJob.objects.create(
            kind=CorpusJob.Kind.LEXICON,
            format="fujita",
            project=project,
            project_name=project.name,
            created_by=user,
            options={**rule.as_json(), "preview": preview},
            input_files=[{"name": Path(name).name, "path": "", "size": len(data)} for name, data in files],
        )
    jobs.store_uploads(job, files)
    if n_bytes <= jobs.INLINE_LIMIT:
        run_build(job.pk)
    else:
        transaction.on_commit(lambda: jobs.send(TASK, job.pk))
    job.refresh_from_db()
    return job


def run_build(job_id: int) -> str | None:
    """Run a stored lexicon build once; returns its final status (None: this delivery had nothing to do,
    or lost its claim)."""
    with jobs.claimed(job_id) as job:
        return None if job is None else _build(job)


def _rule(options: dict[str, Any]) -> UnitRule:
    return UnitRule(
        n=int(options["n"]),
        per_phrase=int(options["per_phrase"]),
        seed=int(options["seed"]),
        lexicons=tuple(options.get("lexicons") or ()),
        selection=options.get("selection") or "",
        given=options.get("given") or "",
    )


def _texts(job: CorpusJob) -> tuple[str, str, str]:
    """(lexicon text, sentence text, the lexicon file's name); ValidationError if a file is not UTF-8."""
    texts = []
    for field, entry in zip(FILE_FIELDS, job.input_files, strict=True):
        data = Path(entry["path"]).read_bytes()
        try:
            texts.append(data.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise ValidationError({field: f"{entry['name']}: not UTF-8 text (byte {exc.start})."}) from exc
    return texts[0], texts[1], job.input_files[0]["name"]


def _build(job: CorpusJob) -> str | None:
    checkpoints = jobs.Checkpoints(job.pk)
    preview = bool(job.options.get("preview"))
    report: dict[str, Any]
    try:
        if job.project is None:
            raise ValidationError("The project no longer exists.")
        lexicon_text, sentence_text, filename = _texts(job)
        steps: dict[str, Any] = {
            "lexicon_filename": filename,
            "progress": checkpoints.progress,
            "cancelled": checkpoints.cancelled,
        }
        result: BuildResult = (
            plan_units(lexicon_text, sentence_text, _rule(job.options), **steps)
            if preview
            else build_units(job.project, lexicon_text, sentence_text, _rule(job.options), **steps)
        )
    except BuildCancelled as exc:
        status, report = CorpusJob.Status.CANCELLED, {"summary": str(exc)}
    except ValidationError as exc:
        errors = exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}
        summary = " ".join(str(m) for messages in errors.values() for m in messages)
        status, report = CorpusJob.Status.FAILED, {"summary": summary, "errors": errors}
    except Exception as exc:  # a bug: record it on the job, then fail loudly
        jobs.finish(
            job, CorpusJob.Status.FAILED, {"summary": f"Internal error: {exc.__class__.__name__}: {exc}"}
        )
        raise
    else:
        status = CorpusJob.Status.SUCCEEDED
        words = "Preview: " if preview else "Built "
        report = {"summary": words + result.summary(), "units": result.units, "items": result.items}
    if not jobs.finish(job, status, report):
        return None
    if status != CorpusJob.Status.FAILED:  # a failed job's files stay for FAILED_UPLOAD_KEEP_DAYS
        remove_uploads(job)
    return status
