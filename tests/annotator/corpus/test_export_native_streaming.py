"""The native JSON Lines export is written as it is read (a header, then the pairs a chunk at a time) and
its bytes are those of the whole document split by `to_jsonl`."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from annotator.corpus.exports import export_to_file
from annotator.corpus.exports import native as native_export
from annotator.corpus.exports.native import native_document, to_jsonl, write_native_jsonl
from annotator.models import Project
from tests.annotator.corpus.test_export_native import rich_project
from tests.annotator.corpus.test_export_native_automatic import project as automatic_project  # noqa: F401

pytestmark = pytest.mark.django_db


def whole_document_lines(project: Project, *, history: bool = False) -> bytes:
    """The JSON Lines file as the whole document split into lines gives it."""
    lines = to_jsonl(native_document(project, history=history))
    return b"".join(json.dumps(line, ensure_ascii=False).encode() + b"\n" for line in lines)


def streamed(project: Project, **options: Any) -> bytes:
    out = io.BytesIO()
    write_native_jsonl(project, out, **options)
    return out.getvalue()


@pytest.mark.parametrize("chunk", [1, 2, 1000])
@pytest.mark.parametrize("history", [False, True])
def test_the_streamed_lines_are_the_whole_documents_bytes(chunk, history):
    project = rich_project()
    expected = whole_document_lines(project, history=history)
    assert len(expected.splitlines()) == 1 + 3
    assert streamed(project, history=history, chunk=chunk) == expected


@pytest.mark.parametrize("chunk", [1, 2])
def test_systems_runs_and_trees_stream_the_same_bytes(automatic_project, chunk):  # noqa: F811
    assert streamed(automatic_project, chunk=chunk) == whole_document_lines(automatic_project)


@pytest.mark.parametrize("layer", ["layer_pair_label", "layer_phenomena", "layer_word_alignment"])
def test_a_switched_off_layers_rows_stream_the_same_bytes(layer):
    project = rich_project()
    setattr(project, layer, False)
    project.save()
    assert streamed(project, chunk=2) == whole_document_lines(project)


def test_an_annotator_who_finished_a_pair_without_rows_is_listed_as_in_the_document():
    from annotator.models import Assignment

    project = rich_project()
    Assignment.objects.filter(project=project, pair__isnull=False).update(status=Assignment.Status.DONE)
    assert streamed(project, chunk=1) == whole_document_lines(project)


def test_the_stream_never_builds_the_whole_document(monkeypatch):
    project = rich_project()
    expected = whole_document_lines(project)
    read: list[int] = []
    real = native_export.pairs_document

    def whole(*_: Any, **__: Any) -> None:
        raise AssertionError("the whole document was built")

    def chunk(project: Project, names: dict[int, str], pairs: Any) -> dict[str, Any]:
        part = real(project, names, pairs)
        read.append(len(part["pairs"]))
        return part

    monkeypatch.setattr(native_export, "project_document", whole)
    monkeypatch.setattr(native_export, "native_document", whole)
    monkeypatch.setattr(native_export, "pairs_document", chunk)
    assert streamed(project, chunk=2) == expected
    assert read == [2, 1]


def test_the_export_job_writes_the_file_as_it_reads(tmp_path, monkeypatch):
    project = rich_project()
    expected = whole_document_lines(project)
    monkeypatch.setattr(native_export, "native_document", lambda *_, **__: pytest.fail("built whole"))
    written = export_to_file("native", project, tmp_path, max_bytes=10**7, jsonl=True)
    assert written.path.name == "Rich.jsonl" and written.path.read_bytes() == expected
    assert written.size == len(expected)


@pytest.mark.parametrize("chunk", [1, 2])
def test_pairs_sharing_a_position_are_each_streamed_once_in_order(chunk):
    """A chunk is a span of the pairs' (position, pk) order: pairs with equal positions on either side
    of a chunk's edge are neither lost nor repeated."""
    from annotator.models import Pair

    project = rich_project()
    Pair.objects.filter(project=project).update(position=7)
    expected = whole_document_lines(project)
    lines = streamed(project, chunk=chunk)
    assert lines == expected
    assert len(lines.splitlines()) == 1 + Pair.objects.filter(project=project).count()
