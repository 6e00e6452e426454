"""Exports other than the native document and the agreement report are written as they are read: the
file has the bytes the download has, the memory an export takes does not grow with the file, and a
running export stops when its job is cancelled (no file kept)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from annotator.corpus import exports
from annotator.corpus import jobs as corpus_jobs
from annotator.corpus.exports import csv, etpc, export_project, export_to_file, jsonl, pharaoh
from annotator.models import AlignmentLink, CorpusJob, Pair, ParaphraseType, Phenomenon
from tests import make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

PER_PAIR = 12
CHUNK = 40  # rows (pairs, for JSON Lines and CoNLL) read at a time in these tests
FORMATS = [
    ("csv", {"annotator": "anna"}),
    ("csv", {}),
    ("pharaoh", {"annotator": "anna"}),
    ("etpc", {"annotator": "anna"}),
    ("conll", {"annotator": "anna"}),
    ("jsonl", {}),
]


def add_pairs(project: Any, annotator: Any, n_pairs: int) -> None:
    """`n_pairs` pairs, each with PER_PAIR phenomena and 24 links of the annotator."""
    tokens1, tokens2 = ["The", "film", "opened", "on", "Friday", "."], ["Film", "premiered", "Friday", "."]
    start = Pair.objects.filter(project=project).count()
    pairs = Pair.objects.bulk_create(
        Pair(
            project=project,
            source_id=f"p{start + n}",
            position=start + n,
            text1=" ".join(tokens1),
            text2=" ".join(tokens2),
            tokens1=tokens1,
            tokens2=tokens2,
        )
        for n in range(n_pairs)
    )
    pairs = list(Pair.objects.filter(project=project, position__gte=start))
    ptypes = list(ParaphraseType.objects.filter(tagset=project.tagset)[:PER_PAIR])
    Phenomenon.objects.bulk_create(
        Phenomenon(
            pair=pair,
            annotator=annotator,
            ptype=ptype,
            scope1=[n % 6],
            scope2=[n % 4],
            comment=f"note {n} " + "x" * 150,
        )
        for pair in pairs
        for n, ptype in enumerate(ptypes)
    )
    AlignmentLink.objects.bulk_create(
        AlignmentLink(pair=pair, annotator=annotator, i=i, j=j)
        for pair in pairs
        for i in range(6)
        for j in range(4)
    )


@pytest.fixture
def world(settings: Any, tmp_path: Path, monkeypatch: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    make.isolate_cache(settings)
    cache.clear()
    for module in (csv, pharaoh, etpc):
        monkeypatch.setattr(module, "ROWS_PER_CHUNK", CHUNK, raising=False)
    monkeypatch.setattr(jsonl, "PAIRS_PER_CHUNK", CHUNK)
    cast = make.cast()
    project = make.project_with_pairs("Big", n_pairs=0, lead=cast.lead)
    add_pairs(project, cast.anna, 60)
    return {"cast": cast, "project": project, "dir": tmp_path / "out"}


def peak_of(format: str, world: Any, options: dict[str, Any]) -> tuple[int, int]:
    """(peak traced bytes, file bytes) of one export to a file."""
    export_to_file(format, world["project"], world["dir"] / "warm", max_bytes=2**30, **options)  # warm caches
    tracemalloc.start()
    try:
        written = export_to_file(format, world["project"], world["dir"], max_bytes=2**30, **options)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, written.size


@pytest.mark.parametrize(("format", "options"), FORMATS[:-1])
def test_the_written_file_has_the_bytes_of_the_download(world, format, options):
    written = export_to_file(format, world["project"], world["dir"], max_bytes=2**30, **options)
    expected = export_project(format, world["project"], **options)
    assert written.path.read_bytes() == expected.data and written.path.name == expected.filename
    assert written.content_type == expected.content_type


@pytest.mark.parametrize(("format", "options"), FORMATS)
def test_an_exports_memory_does_not_grow_with_its_file(world, format, options):
    small_peak, small_size = peak_of(format, world, options)
    add_pairs(world["project"], world["cast"].anna, 180)  # four times the pairs
    large_peak, large_size = peak_of(format, world, options)
    assert large_size > 3.5 * small_size
    assert large_peak < 1.3 * small_peak, (
        f"{format}: peak {small_peak:,} → {large_peak:,} bytes for files of {small_size:,} → {large_size:,}"
    )


def test_a_running_export_stops_when_cancelled_and_keeps_no_file(world, monkeypatch, task_queue):
    monkeypatch.setattr(exports, "CANCEL_CHECK_EVERY", 0.0)
    job = corpus_jobs.start_export(world["cast"].lead, world["project"], "pharaoh", annotator="anna")
    real = exports.STREAMED["pharaoh"]
    lines: list[int] = []

    def write_then_cancel(project: Any, out: Any, **kwargs: Any) -> None:
        class Counting:
            def write(self, data: bytes) -> int:
                lines.append(len(data))
                if len(lines) == 3:
                    corpus_jobs.request_cancel(job)
                return out.write(data)

        real.write(project, Counting(), **kwargs)

    monkeypatch.setitem(
        exports.STREAMED, "pharaoh", exports.Streamed(write_then_cancel, "align", "text/plain")
    )
    assert corpus_jobs.run_export(job.pk) == CorpusJob.Status.CANCELLED
    assert len(lines) == 3  # the first write after the cancel stopped it
    job.refresh_from_db()
    assert job.status == CorpusJob.Status.CANCELLED and not job.output_file
    assert "cancelled" in job.report["summary"]
    assert not list(world["dir"].parent.rglob("*.align"))
