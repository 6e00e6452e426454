"""Reading uploaded bytes as text, with precise messages for the usual ways a file is not what it claims."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from annotator.corpus.imports.problems import Problem

BOM = "\ufeff"


def _line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def decode_utf8(data: bytes, filename: str) -> tuple[str | None, list[Problem]]:
    """The text of a UTF-8 file (a byte-order mark is dropped), or the problems that make it unreadable."""
    nul = data.find(b"\x00")
    if nul >= 0:
        line, _ = _line_and_column(data, nul)
        return None, [
            Problem(filename, line, "", "this is a binary file (it contains NUL bytes), not a text file")
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _line_and_column(data, exc.start)
        bad = data[exc.start : exc.start + 1].hex().upper()
        return None, [
            Problem(
                filename,
                line,
                "encoding",
                f"byte 0x{bad} at column {column} is not valid UTF-8; the file mixes encodings "
                "(e.g. Latin-1 inside UTF-8): save it as UTF-8",
            )
        ]
    return text.removeprefix(BOM), []


def utf8_lines(stream: BinaryIO, filename: str) -> Iterator[tuple[int, str] | Problem]:
    """The lines of a UTF-8 file one at a time, numbered from 1, without their line ends — or, where the
    file stops being readable text, one Problem (as `decode_utf8` words it) and nothing after it.

    Lines end at LF, CRLF or a lone CR, as `decode_utf8(...)` followed by splitting at those would give;
    a byte-order mark at the start is dropped. Memory: one line at a time.
    """
    number = 0
    for binary_number, raw in enumerate(stream, start=1):
        if b"\x00" in raw:
            yield Problem(
                filename, binary_number, "", "this is a binary file (it contains NUL bytes), not a text file"
            )
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = raw[exc.start : exc.start + 1].hex().upper()
            yield Problem(
                filename,
                binary_number,
                "encoding",
                f"byte 0x{bad} at column {exc.start + 1} is not valid UTF-8; the file mixes encodings "
                "(e.g. Latin-1 inside UTF-8): save it as UTF-8",
            )
            return
        if binary_number == 1:
            text = text.removeprefix(BOM)
        text = text.removesuffix("\n")
        text = text.removesuffix("\r") if raw.endswith(b"\r\n") else text
        for piece in text.split("\r"):
            number += 1
            yield number, piece
    if number == 0:
        yield 1, ""
