"""Broken files fail with a precise message and leave the database as it was."""

from __future__ import annotations

import pytest

from annotator.corpus.services import import_corpus
from tests.make import TWO_ROWS, counts, mrpc_file, relation, relations_file

pytestmark = pytest.mark.django_db


def fails_untouched(format: str, files: list[tuple[str, bytes]], **options: object) -> list[str]:
    before = counts()
    report = import_corpus(format, "Broken", files, **options)  # type: ignore[arg-type]
    assert not report.ok
    assert counts() == before
    return [str(p) for p in report.problems]


@pytest.fixture
def pairs() -> None:
    assert import_corpus("mrpc", "Broken", [("msr_paraphrase_train.txt", TWO_ROWS)]).ok


def test_comma_separated_mrpc_names_the_wrong_delimiter() -> None:
    data = b"Quality,#1 ID,#2 ID,#1 String,#2 String\r\n1,1,2,a,b\r\n"
    assert fails_untouched("mrpc", [("train.csv", data)]) == [
        "train.csv:1: header: the columns are separated by commas; MRPC files are tab-separated with the header "
        "Quality | #1 ID | #2 ID | #1 String | #2 String"
    ]


def test_latin1_bytes_inside_utf8_name_the_line() -> None:
    data = TWO_ROWS + "1\t5\t6\tCaf\xe9 au lait.\tA coffee.\r\n".encode("latin-1")
    assert fails_untouched("mrpc", [("train.txt", data)]) == [
        "train.txt:4: encoding: byte 0xE9 at column 10 is not valid UTF-8; the file mixes encodings "
        "(e.g. Latin-1 inside UTF-8): save it as UTF-8"
    ]


def test_binary_junk_is_not_a_text_file() -> None:
    junk = bytes(range(256)) * 4
    assert fails_untouched("mrpc", [("junk.txt", junk)]) == [
        "junk.txt:1: this is a binary file (it contains NUL bytes), not a text file"
    ]
    assert fails_untouched("etpc", [("junk.xml", b"<" + junk)]) == [
        "junk.xml: this is a binary file (it contains NUL bytes), not XML"
    ]


def test_empty_sentence_and_wrong_field_count() -> None:
    data = mrpc_file(("1", "1", "2", "A sentence.", "  "), ("1", "3", "4", "only four fields"))
    assert fails_untouched("mrpc", [("train.txt", data)]) == [
        "train.txt:2: #2 String: empty sentence",
        "train.txt:3: columns: expected 5 tab-separated fields, found 4",
    ]


def test_duplicate_ids() -> None:
    data = TWO_ROWS + mrpc_file(("1", "702876", "702977", "Again.", "Again!")).split(b"\r\n", 1)[1]
    assert fails_untouched("mrpc", [("train.txt", data)]) == [
        "train.txt:4: #1 ID: duplicate pair 702876/702977 (first on line 2)"
    ]


def test_truncated_xml_says_where(pairs: None) -> None:
    data = relations_file(relation("1", "6", s1="0", s2="0", s1_text="Amrozi", s2_text="Referring"))[:150]
    problems = fails_untouched("etpc", [("textual_np_pos.xml", data)])
    assert len(problems) == 1
    assert problems[0].startswith("textual_np_pos.xml:3: xml: not well-formed XML: ")
    assert problems[0].endswith("— the file is truncated")


def test_bad_indices_and_unknown_types(pairs: None) -> None:
    data = relations_file(
        relation("1", "6", s1="40", s2="0", s2_text="Referring"),
        relation("1", "12", s1="0", s2="0"),
        relation("1", "6", s1="0, x", s2="0"),
        relation("9", "6", s1="0", s2="0"),
    )
    assert fails_untouched("etpc", [("rel.xml", data)]) == [
        "rel.xml:1: s1_scope: pair 1: token 40 is past the end of member 1, which has 16 tokens, and there is no "
        "s1_text to repair it from",
        "rel.xml:2: type_id: pair 1: unknown type_id '12': not in the ETPC tagset",
        "rel.xml:3: s1_scope: pair 1: '0, x' is not a comma-separated list of token indices or \"whole sentence\"",
        "rel.xml:4: pair_id: pair 9: no such pair in the project (import the MRPC files or text_pairs.xml first)",
    ]


def test_xml_that_is_not_etpc(pairs: None) -> None:
    assert fails_untouched("etpc", [("other.xml", b"<root><thing/></root>")]) == [
        "other.xml: xml: not an ETPC file: expected <paraphrase_type>, <pair> or <relation> elements, found <thing>"
    ]
