"""Command line: ``python -m metrics report FILE.json [--format json|table] [--ci [--ci-seed N]
[--ci-resamples N]] [--statistics]``.

Prints the report (docs/measures.md#report; spec §10) on stdout; ``--statistics`` adds the corpus
statistics (docs/measures.md#statistics). An unreadable file, invalid JSON or an invalid document
exits with status 1 and one line ``FILE: field: message`` on stderr (docs/measures.md#document).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from metrics.corpus_statistics import DEFAULT_BIN_WIDTH
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
        "--ci", action="store_true", help="add a 95%% confidence interval (<key>.ci95) for every measure"
    )
    report.add_argument(
        "--ci-seed", type=int, default=0, help="seed of the intervals' resampling (default 0)"
    )
    report.add_argument(
        "--ci-resamples", type=int, default=1000, help="bootstrap resamples of the intervals (default 1000)"
    )
    report.add_argument(
        "--statistics",
        action="store_true",
        help="add the corpus statistics section (the papers' tables; repeats kappa_c's Monte Carlo)",
    )
    report.add_argument(
        "--bin-width",
        type=int,
        default=DEFAULT_BIN_WIDTH,
        help=f"token width of the shorter-sentence bins of Cohn et al.'s Fig. 4 (default {DEFAULT_BIN_WIDTH})",
    )
    args = parser.parse_args(argv)
    if args.bin_width < 1:
        parser.error(f"--bin-width must be >= 1, got {args.bin_width}")
    if args.ci_resamples < 1:
        parser.error(f"--ci-resamples must be >= 1, got {args.ci_resamples}")
    try:
        doc = load_document(args.file)
        result = build_report(
            doc,
            ci=args.ci,
            ci_seed=args.ci_seed,
            ci_resamples=args.ci_resamples,
            statistics=args.statistics,
            bin_width=args.bin_width,
        )
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
    """The report as an aligned text table: measure | part | value, one row per number.

    A ``statistics`` section follows as a second table (table | row | value), each table headed by
    the paper table it mirrors.
    """
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
    text = _aligned(("measure", "part", "value"), rows)
    if "statistics" in report:
        stats: list[tuple[str, str, str]] = []
        for name, table in report["statistics"].items():
            stats.append((name, "mirrors", str(table.get("mirrors", ""))))
            for path, value in _flat(table, ""):
                if path != "mirrors":
                    stats.append((name, path, _cell(value)))
        text += "\n" + _aligned(("statistics", "row", "value"), stats)
    return text


def _flat(value: Any, path: str) -> list[tuple[str, Any]]:
    """``(path, leaf)`` of a nested statistics table; list items are numbered ``[n]``."""
    if isinstance(value, dict) and value:
        return [p for k, v in value.items() for p in _flat(v, f"{path} {k}".strip())]
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [p for n, v in enumerate(value) for p in _flat(v, f"{path}[{n}]")]
    return [(path, value)]


def _aligned(head: tuple[str, str, str], rows: list[tuple[str, str, str]]) -> str:
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
