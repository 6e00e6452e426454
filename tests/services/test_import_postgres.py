"""Corpus import and export on PostgreSQL, and as jobs on a real Celery worker through Redis."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from annotator.core.tagsets import install_builtin_tagsets
from annotator.corpus import jobs as corpus_jobs
from annotator.corpus.exports import export_project
from annotator.corpus.services import import_corpus
from annotator.models import CorpusJob, Pair, ParaphraseType, Project, Tagset
from tests import make
from tests.make import counts

pytestmark = pytest.mark.services


def mrpc_files(corpora: Path) -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted((corpora / "mrpc").glob("msr_paraphrase_*.txt"))]


@pytest.mark.django_db
def test_full_mrpc_and_etpc_on_postgres(postgres_required: None, corpora_dir: Path) -> None:
    etpc = corpora_dir / "etpc"
    files = [
        *mrpc_files(corpora_dir),
        *((p.name, p.read_bytes()) for p in (etpc / "textual_np_pos.xml", etpc / "textual_np_neg.xml")),
    ]
    report = import_corpus("etpc", "PG", files, annotator="etpc", skip_invalid=True)
    assert report.ok and report.created["pairs"] == 5801 and report.created["phenomena"] >= 8900
    pair = Pair.objects.get(project__name="PG", source_id="1")
    assert (
        pair.tokens1[0] == "Amrozi" and pair.corpus_labels["split"] == "train"
    )  # jsonb stored and read back
    native = export_project("native", Project.objects.get(name="PG"))
    again = import_corpus("native", "PG copy", [("pg.json", native.data)])
    assert again.ok and again.created["phenomena"] == report.created["phenomena"]


def wait_for(job: CorpusJob, timeout: float = 120) -> CorpusJob:
    deadline = time.time() + timeout
    while time.time() < deadline:
        job.refresh_from_db()
        if job.status in corpus_jobs.FINISHED:
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job.pk} still {job.status} after {timeout}s")


def test_large_import_runs_on_the_worker_with_progress(
    postgres_required: None, celery_worker_process: Any, corpora_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.clear()
    install_builtin_tagsets(Tagset, ParaphraseType)  # a transactional test flushed the data migration's rows
    lead = make.cast().lead
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 1000)
    job = corpus_jobs.start_import(lead, "mrpc", "Worker", mrpc_files(corpora_dir))
    seen = set()
    deadline = time.time() + 120
    while job.status not in corpus_jobs.FINISHED and time.time() < deadline:
        job.refresh_from_db()
        seen.add(corpus_jobs.progress_of(job))
        time.sleep(0.05)
    job = wait_for(job)
    assert job.status == "succeeded", job.report
    assert (job.progress, job.total) == (5801, 5801)
    assert any(0 < done < 5801 for done, _ in seen) or len(seen) > 1
    assert Pair.objects.filter(project__name="Worker").count() == 5801


def test_cancelled_import_on_the_worker_writes_nothing(
    postgres_required: None, celery_worker_process: Any, corpora_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.clear()
    install_builtin_tagsets(Tagset, ParaphraseType)
    lead = make.cast().lead
    monkeypatch.setattr(corpus_jobs, "INLINE_LIMIT", 1000)
    before = counts()
    job = corpus_jobs.start_import(lead, "mrpc", "Cancelled", mrpc_files(corpora_dir))
    corpus_jobs.request_cancel(job)
    job = wait_for(job)
    assert job.status == "cancelled"
    assert not Project.objects.filter(name="Cancelled").exists()
    assert counts()["Pair"] == before["Pair"]
