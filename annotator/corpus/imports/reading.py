"""Reading uploaded bytes as text, with precise messages for the usual ways a file is not what it claims."""

from __future__ import annotations

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
