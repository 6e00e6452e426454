"""Hostile and malformed import files: each refused with `FILE:LINE: field: message`, nothing written.

The classes of the probe in issue 17 (deep nesting, huge integers, wrong types in the "workbench"
section, over-long usernames and colours), then hypothesis fuzzing of every importer with random and
mutated valid files: no exception may escape `import_corpus`.
"""

from __future__ import annotations

import copy
import io
import json
import random
import time
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.corpus.exports.native import to_jsonl, write_native
from annotator.corpus.services import import_corpus
from annotator.models import Pair
from tests import make
from tests.json_shapes import ADVERSARIAL
from tests.make import TWO_ROWS, counts, relation, relations_file

pytestmark = pytest.mark.django_db


def small_document() -> dict[str, Any]:
    project = make.project_with_pairs("Source", n_pairs=2, annotators=(make.user("anna"),))
    out = io.StringIO()
    write_native(project, out)
    return json.loads(out.getvalue())


def refused(data: bytes, name: str = "doc.json") -> list[str]:
    before = counts()
    report = import_corpus("native", "Target", [(name, data)])
    assert not report.ok
    assert counts() == before
    return [str(p) for p in report.problems]


def test_json_nested_100000_levels_names_the_line() -> None:
    data = b'{"pairs":\n' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert refused(data) == ["doc.json:2: json: nested more than 64 levels deep"]


def test_integer_of_5000_digits() -> None:
    doc = small_document()
    text = json.dumps(doc).replace('"position": 1', '"position":\n' + "9" * 5000, 1)
    [problem] = refused(text.encode())
    assert problem.startswith("doc.json:2: number: an integer of 5000 digits")


def test_position_beyond_64_bits() -> None:
    doc = small_document()
    text = json.dumps(doc).replace('"position": 1', '"position": 9223372036854775808', 1)
    assert refused(text.encode()) == [
        "doc.json:1: number: integer 9223372036854775808 does not fit in 64 bits"
    ]


def test_position_beyond_the_column() -> None:
    doc = small_document()
    sid = next(iter(doc["workbench"]["pairs"]))
    doc["workbench"]["pairs"][sid]["position"] = 2**40
    assert refused(json.dumps(doc).encode()) == [
        f"doc.json: workbench.pairs.{sid}.position: 1099511627776 is out of range (0…2147483647)"
    ]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("project",), "x", "workbench.project: expected an object, got a string"),
        (("members", "leads"), {"a": 1}, "workbench.members.leads: expected a list, got an object"),
        (
            ("tagset", "types", 0, "colour"),
            "#1234567",
            "workbench.tagset.types[0].colour: 8 characters; at most 7 are allowed",
        ),
        (
            ("tagset", "types", 0, "position"),
            "3",
            "workbench.tagset.types[0].position: expected an integer, got a string",
        ),
        (
            ("project", "phase"),
            "later",
            "workbench.project.phase: 'later' is not one of training, agreement, final",
        ),
        (("judgements",), [{"item": 1}], "workbench.judgements[0].rater: missing"),
        (
            ("gold",),
            {"links": [{"annotator": "a", "pair": "nope", "i": 0, "j": 0, "sure": True}]},
            "workbench.gold.links[0].pair: no pair 'nope' in the document's pairs",
        ),
    ],
)
def test_workbench_values_of_the_wrong_type(path: tuple[Any, ...], value: Any, message: str) -> None:
    doc = small_document()
    target = doc["workbench"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert f"doc.json: {message}" in refused(json.dumps(doc).encode())


def test_username_longer_than_150_characters() -> None:
    doc = small_document()
    doc["workbench"]["members"]["leads"] = ["u" * 151]
    assert refused(json.dumps(doc).encode()) == [
        "doc.json: workbench.members.leads[0]: 151 characters; at most 150 are allowed"
    ]


@pytest.mark.parametrize("value", [7, "all", {"pair": "p1"}, True])
def test_jsonl_header_with_assignments_that_are_not_a_list(value: Any) -> None:
    """Found by the JSON Lines fuzzing in CI: an integer there raised a TypeError out of the import."""
    doc = small_document()
    doc["workbench"]["assignments"] = value
    data = "".join(json.dumps(line) + "\n" for line in to_jsonl(doc)).encode()
    problems = refused(data, "doc.jsonl")
    assert problems and all(p.startswith("doc.jsonl:1: workbench.assignments") for p in problems), problems


def test_jsonl_line_with_a_deep_value_names_its_line() -> None:
    lines = [
        json.dumps({"jsonl": 1, "format": "paraphrase-agreement/1"}),
        '{"pair": ' + "[" * 100 + "]" * 100 + "}",
    ]
    assert refused("\n".join(lines).encode(), "doc.jsonl") == [
        "doc.jsonl:2: json: nested more than 64 levels deep"
    ]


# ---- fuzzing --------------------------------------------------------------------------------------

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def mutate(data: bytes, seed: int, n: int) -> bytes:
    """`n` random byte edits (replace, insert, delete, duplicate a slice) of a valid file."""
    rnd = random.Random(seed)
    out = bytearray(data)
    for _ in range(n):
        if not out:
            break
        at = rnd.randrange(len(out))
        op = rnd.randrange(4)
        if op == 0:
            out[at] = rnd.choice(b'{}[]",:0123456789-eE.\\\tnulltruefalse\n\x00\xff')
        elif op == 1:
            out.insert(at, rnd.randrange(256))
        elif op == 2:
            del out[at]
        else:
            end = min(len(out), at + rnd.randrange(1, 40))
            out[at:at] = out[at:end]
    return bytes(out)


def json_mutations(doc: Any, rnd: random.Random) -> Any:
    """Replace one value somewhere in the document by a value of another type or size."""
    hostile = [None, True, -1, 2**63, 1.5e308, "", "x" * 200, "#" * 8, [], {}, [[[]]], {"a": [1]}, "\u202e"]
    paths: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, value in items:
            paths.append((node, key))
            stack.append(value)
    if paths:
        node, key = rnd.choice(paths)
        node[key] = rnd.choice(hostile)
    return doc


def no_internal_error(format: str, files: list[tuple[str, bytes]], **options: Any) -> None:
    """The import answers with a report (problems and nothing written, or success); each example rolled back."""
    with transaction.atomic():
        before = counts()
        report = import_corpus(format, "Fuzz", files, **options)
        if not report.ok:
            assert report.problems and counts() == before
        transaction.set_rollback(True)


@pytest.fixture
def valid_document() -> dict[str, Any]:
    return small_document()


@FUZZ
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 12))
def test_fuzz_native_byte_mutations(valid_document: dict[str, Any], seed: int, edits: int) -> None:
    data = json.dumps(valid_document).encode()
    no_internal_error("native", [("doc.json", mutate(data, seed, edits))])


@FUZZ
@given(seed=st.integers(0, 2**32), rounds=st.integers(1, 4))
def test_fuzz_native_value_mutations(valid_document: dict[str, Any], seed: int, rounds: int) -> None:
    rnd = random.Random(seed)
    doc = copy.deepcopy(valid_document)
    for _ in range(rounds):
        doc = json_mutations(doc, rnd)
    no_internal_error("native", [("doc.json", json.dumps(doc).encode())])


@FUZZ
@given(seed=st.integers(0, 2**32), rounds=st.integers(1, 4))
def test_fuzz_native_json_lines_value_mutations(
    valid_document: dict[str, Any], seed: int, rounds: int
) -> None:
    rnd = random.Random(seed)
    lines = to_jsonl(copy.deepcopy(valid_document))
    for _ in range(rounds):
        lines = json_mutations(lines, rnd)
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    no_internal_error("native", [("doc.jsonl", data)])
    no_internal_error("native", [("doc.jsonl", mutate(data, seed, rounds))])


@FUZZ
@given(
    data=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
        ),
        max_leaves=30,
    )
)
def test_fuzz_native_random_json(data: Any) -> None:
    no_internal_error("native", [("doc.json", json.dumps(data).encode())])
    no_internal_error(
        "native", [("doc.jsonl", (json.dumps({"jsonl": 1}) + "\n" + json.dumps(data)).encode())]
    )


@FUZZ
@given(seed=st.integers(0, 2**32), edits=st.integers(1, 12))
def test_fuzz_mrpc_and_etpc(seed: int, edits: int) -> None:
    no_internal_error("mrpc", [("train.txt", mutate(TWO_ROWS, seed, edits))])
    relations = relations_file(relation("1", "2", s1="0", s2="0"))
    no_internal_error(
        "etpc",
        [("train.txt", TWO_ROWS), ("textual_paraphrases.xml", mutate(relations, seed, edits))],
        annotator="etpc",
    )


@FUZZ
@given(text=st.text(max_size=300), format=st.sampled_from(["mrpc", "ptb", "pharaoh", "units", "etpc"]))
def test_fuzz_every_importer_with_random_text(text: str, format: str) -> None:
    no_internal_error(format, [("random.txt", text.encode("utf-8", "surrogatepass"))], annotator="fuzz")


def test_deep_input_to_the_other_importers() -> None:
    assert import_corpus("mrpc", "Deep", [("train.txt", TWO_ROWS)]).ok
    before = counts()
    sid = Pair.objects.filter(project__name="Deep").first().source_id
    tree = "(S " * 100_000 + "x" + ")" * 100_000
    ptb = import_corpus("ptb", "Deep", [("t.ptb", f"{sid}\t1\t{tree}\n".encode())])
    assert [str(p)[:40] for p in ptb.problems] == ["t.ptb:1: tree: not a Penn Treebank brack"]
    xml = b'<?xml version="1.0"?>\n' + b"<a>" * 100_000 + b"</a>" * 100_000
    etpc = import_corpus("etpc", "Deep", [("textual_paraphrases.xml", xml)], annotator="etpc")
    assert "not an ETPC file" in str(etpc.problems[0])
    units = import_corpus(
        "units", "Deep", [("u.jsonl", b'{"unit_id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")]
    )
    assert [str(p) for p in units.problems] == ["u.jsonl:1: json: nested more than 64 levels deep"]
    assert counts() == before


@pytest.mark.parametrize("rows", [[1], ["p1"], {"pair": "p1"}, [[]]])
def test_an_unknown_gold_part_is_not_read(valid_document: dict[str, Any], rows: Any) -> None:
    """A `workbench.gold` part the importer does not know (a newer exporter's) is left unread, whatever
    its rows hold: no internal error (found by the value-mutation fuzz: a renamed part with integer rows)."""
    doc = copy.deepcopy(valid_document)
    doc.setdefault("workbench", {}).setdefault("gold", {})["from_a_newer_exporter"] = rows
    no_internal_error("native", [("doc.json", json.dumps(doc).encode())])


@pytest.mark.parametrize("shape", sorted(ADVERSARIAL))
def test_a_hostile_line_of_an_upload_is_refused_in_linear_time(shape: str) -> None:
    """Issue 30: a 200 KB JSON Lines line of escaped quotes held a worker for 132 s (quadratic pre-scan)."""
    header = json.dumps({"jsonl": 1, "format": "paraphrase-agreement/1"})

    def seconds(size: int) -> float:
        data = (header + "\n" + ADVERSARIAL[shape](size) + "\n").encode()
        started = time.perf_counter()
        refused(data, "doc.jsonl")
        return time.perf_counter() - started

    small, large = seconds(16 * 1024), seconds(256 * 1024)
    assert large < 5, (shape, large)
    assert large < 16 * 8 * small + 0.5, (shape, small, large)  # linear (16×) with room for noise
