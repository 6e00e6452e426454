"""The native JSON Lines import reads the file a batch at a time: pairs are written before the file has
been read to its end, problems name their line, and a problem anywhere leaves nothing written."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from annotator.corpus.imports.native import JSONL_BATCH
from annotator.corpus.services import import_corpus
from annotator.models import Pair

pytestmark = pytest.mark.django_db

HEADER = {"jsonl": 1, "format": "paraphrase-agreement/1"}


def jsonl(pairs: int, **replaced: dict[str, Any]) -> bytes:
    """A header and `pairs` pair lines; `replaced` maps a pair id to the line that stands in its place."""
    lines = [HEADER]
    for n in range(pairs):
        pid = f"p{n}"
        lines.append(replaced.get(pid, {"pair": {"id": pid, "tokens1": ["a", "b"], "tokens2": ["c"]}}))
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_pairs_are_written_before_the_file_is_read_to_its_end() -> None:
    data = jsonl(3 * JSONL_BATCH)
    upload = io.BytesIO(data)
    upload.name = "big.jsonl"
    read_at_first_write: list[int] = []

    def progress(done: int, total: int) -> None:
        if not read_at_first_write:
            read_at_first_write.append(upload.tell())

    report = import_corpus("native", "Lines", [upload], progress=progress)
    assert report.ok, report.problems
    assert Pair.objects.filter(project__name="Lines").count() == 3 * JSONL_BATCH
    # the first batch of pairs was written with about a third of the file read (in this pass), not all
    assert read_at_first_write and read_at_first_write[0] < len(data) / 2


def test_a_problem_in_a_later_batch_names_its_line_and_nothing_is_written() -> None:
    bad = {"pair": {"id": "p1500", "tokens1": "a b", "tokens2": ["c"]}}
    report = import_corpus("native", "Lines", [("doc.jsonl", jsonl(2 * JSONL_BATCH, p1500=bad))])
    assert [str(p) for p in report.problems] == [
        'doc.jsonl:1502: pairs[0].tokens1: must be a list, got "a b"'
    ]
    assert not Pair.objects.exists()


def test_a_pair_id_given_twice_names_both_lines() -> None:
    again = {"pair": {"id": "p3", "tokens1": ["x"], "tokens2": ["y"]}}
    report = import_corpus("native", "Lines", [("doc.jsonl", jsonl(JSONL_BATCH + 10, p1005=again))])
    assert [str(p) for p in report.problems] == [
        "doc.jsonl:1007: pair.id: duplicate pair id 'p3' (first on line 5)"
    ]
    assert not Pair.objects.exists()


def test_an_assignment_of_a_pair_the_file_lacks_is_refused_at_the_header() -> None:
    header = {
        **HEADER,
        "workbench": {
            "version": 1,
            "assignments": [
                {
                    "annotator": "ann",
                    "pair": "nowhere",
                    "phase": "training",
                    "round": 1,
                    "status": "todo",
                    "step": "",
                    "queue_position": 0,
                    "time_spent": 0,
                }
            ],
        },
    }
    data = jsonl(3).replace(json.dumps(HEADER).encode(), json.dumps(header).encode(), 1)
    report = import_corpus("native", "Lines", [("doc.jsonl", data)])
    assert [str(p) for p in report.problems] == [
        "doc.jsonl:1: workbench.assignments[0].pair: no pair 'nowhere' in the document"
    ]


def test_a_json_document_over_the_limit_is_refused_and_json_lines_are_not(monkeypatch) -> None:
    monkeypatch.setattr("annotator.corpus.imports.native.JSON_DOCUMENT_LIMIT", 2**20)
    pairs = [{"id": f"p{n}", "tokens1": ["a", "b"], "tokens2": ["c"]} for n in range(20_000)]
    document = json.dumps({"format": "paraphrase-agreement/1", "pairs": pairs}).encode()
    assert len(document) > 2**20
    report = import_corpus("native", "Whole", [("doc.json", document)])
    assert [str(p) for p in report.problems] == [
        "doc.json: size: a JSON document of more than 1 MiB, which is read whole: "
        "export the project as JSON Lines (.jsonl), which is read a batch at a time"
    ]
    assert import_corpus("native", "Lines", [("doc.jsonl", jsonl(20_000))]).ok


def test_problems_on_several_lines_are_all_named_in_line_order() -> None:
    """A file with mistakes in two batches names each (as a JSON document's check lists every problem),
    not only the first; a line that is not JSON does not hide the lines after it."""
    bad = {"pair": {"id": "p1500", "tokens1": "a b", "tokens2": ["c"]}}
    again = {"pair": {"id": "p3", "tokens1": ["x"], "tokens2": ["y"]}}
    data = jsonl(2 * JSONL_BATCH, p1500=bad, p10=again).replace(
        b'{"pair": {"id": "p20"', b'{"pair": {"id": ', 1
    )
    report = import_corpus("native", "Lines", [("doc.jsonl", data)])
    assert [str(p).split(": ")[0] for p in report.problems] == [
        "doc.jsonl:12",
        "doc.jsonl:22",
        "doc.jsonl:1502",
    ]
    assert "duplicate pair id 'p3' (first on line 5)" in str(report.problems[0])
    assert "tokens1" in str(report.problems[2])
    assert not Pair.objects.exists()


@pytest.mark.parametrize("pair", [{"id": "p1"}, ["p1"], 7])
def test_an_assignment_whose_pair_is_not_a_string_is_named_not_an_internal_error(pair: object) -> None:
    """Found by the value-mutation fuzz: an assignment's `pair` turned into an object."""
    header = {**HEADER, "workbench": {"version": 1, "assignments": [{"annotator": "ann", "pair": pair}]}}
    data = (
        json.dumps(header)
        + "\n"
        + json.dumps({"pair": {"id": "p1", "tokens1": ["a"], "tokens2": ["b"]}})
        + "\n"
    ).encode()
    report = import_corpus("native", "Lines", [("doc.jsonl", data)])
    assert report.problems and all(str(p).startswith("doc.jsonl:1: ") for p in report.problems)
    assert any("assignments[0].pair" in str(p) for p in report.problems)
    assert not Pair.objects.exists()
