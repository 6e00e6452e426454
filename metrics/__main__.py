"""Command line: ``python -m metrics report FILE.json [--format json|table] [--ci]``.

Prints the report (spec §10) on stdout. An unreadable file, invalid JSON or an invalid document
exits with status 1 and one line ``FILE: field: message`` on stderr (spec §9).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from metrics.document import load_document
from metrics.report import build_report
from metrics.types import DocumentError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m metrics", description="Agreement measures of paraphrase annotation"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="print the agreement report of an interchange document")
    report.add_argument("file", help="interchange document (JSON, format paraphrase-agreement/1)")
    report.add_argument(
        "--format", choices=("json", "table"), default="json", help="output format (default json)"
    )
    report.add_argument(
        "--ci", action="store_true", help="add bootstrap 95%% confidence intervals (<key>.ci95)"
    )
    args = parser.parse_args(argv)
    try:
        doc = load_document(args.file)
        result = build_report(doc, ci=args.ci)
    except DocumentError as exc:
        field = exc.field or "$"
        print(f"{args.file}: {field}: {_one_line(exc.message)}", file=sys.stderr)
        return 1
    if args.format == "table":
        sys.stdout.write(format_table(result))
    else:
        json.dump(result, sys.stdout, indent=1, allow_nan=False)
        sys.stdout.write("\n")
    return 0


def _one_line(text: str) -> str:
    return " ".join(text.split())


def format_table(report: dict[str, Any]) -> str:
    """The report as an aligned text table: measure | part | value, one row per number."""
    rows: list[tuple[str, str, str]] = []
    for key, entry in report["measures"].items():
        for part, value in entry.items():
            if isinstance(value, dict):
                if not value:
                    rows.append((key, part, "—"))
                for sub, v in value.items():
                    rows.append((key, f"{part} {sub}", _cell(v)))
            else:
                rows.append((key, part, _cell(value)))
    head = ("measure", "part", "value")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(3)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in [head, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
