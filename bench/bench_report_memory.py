"""Peak memory and time of exporting a project's agreement report (`exports.export_to_file("report")`,
what the export job runs) as JSON and CSV, on the synthetic project of
`bench_explorer_refresh.py`: N pairs (default 200,000), each with a pair label and one phenomenon of
each of two annotators, both assignments done.

    python bench/bench_report_memory.py --pairs 200000

The project lives in its own database (`--database`, a SQLite file by default; DATABASE_URL, when set,
wins); the first run builds it and computes its agreement once (κ_C's parts planned, not sent: as if a
broker had taken them) and the statistics tables the workers keep (`compute_statistics`: one line,
"statistics task", with its own peak). Each export runs in a fresh process whose peak resident set is
reset first (Linux: `5` written to /proc/self/clear_refs resets VmHWM), DEBUG off as on a worker;
printed: the resident set before, its peak during the export, the time and the file's size.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_explorer_refresh import PROJECT, _status_kib, build, setup_django  # noqa: E402

FORMATS = ("json", "csv")  # the printable page renders the same document (and needs collected static files)


def prepare() -> None:
    """The project's agreement computed once (κ_C's parts not sent) and its statistics kept."""
    from annotator import taskqueue
    from annotator.agreement import computation, current
    from annotator.agreement.statistics import compute_statistics
    from annotator.models import Project

    project = Project.objects.get(name=PROJECT)
    if current.fingerprint(project) is None:
        taskqueue.enqueue = lambda *args, **kwargs: None  # type: ignore[assignment]
        taskqueue.enqueue_chord = lambda *args, **kwargs: None  # type: ignore[attr-defined]
        started = time.perf_counter()
        print(computation.recompute(project.pk, full=True), f"{time.perf_counter() - started:.0f} s")
    del project, current, computation
    Path("/proc/self/clear_refs").write_text("5")
    before, started = _status_kib("VmRSS"), time.perf_counter()
    from annotator.models import Project as P

    compute_statistics(P.objects.get(name=PROJECT))
    print(json.dumps({"format": "statistics task", "seconds": round(time.perf_counter() - started, 1),
                      "rss_before_mib": round(before / 1024), "rss_peak_mib": round(_status_kib("VmHWM") / 1024),
                      "file_mib": 0}))  # fmt: skip


def measure(report_format: str) -> dict[str, object]:
    """Export the report once in this process; its figures."""
    from django.conf import settings

    from annotator.corpus.exports import export_to_file
    from annotator.models import Project

    project = Project.objects.get(name=PROJECT)
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from the current RSS
    before = _status_kib("VmRSS")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        written = export_to_file(
            "report", project, Path(directory), max_bytes=settings.EXPORT_MAX_MB * 2**20,
            report_format=report_format,
        )  # fmt: skip
        size = written.size
    seconds = time.perf_counter() - started
    return {"format": f"report {report_format}", "seconds": round(seconds, 1),
            "rss_before_mib": round(before / 1024), "rss_peak_mib": round(_status_kib("VmHWM") / 1024),
            "file_mib": round(size / 2**20, 2)}  # fmt: skip


def show(row: dict[str, object]) -> None:
    print(f"{row['format']:16} {row['file_mib']:8} MiB file  {row['seconds']:7} s  "
          f"RSS {row['rss_before_mib']} → {row['rss_peak_mib']} MiB")  # fmt: skip


def run(args: argparse.Namespace, *extra: str) -> str:
    out = subprocess.run(
        [sys.executable, __file__, "--database", args.database, *extra],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=200_000)
    parser.add_argument("--database", default=str(Path(tempfile.gettempdir()) / "bench-explorer.sqlite3"))
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one format in this process
    parser.add_argument("--prepare", action="store_true", help=argparse.SUPPRESS)  # internal
    args = parser.parse_args()
    setup_django(args.database)
    if args.prepare:
        prepare()
        return
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    build(args.pairs)
    prepared = run(args, "--prepare").strip().splitlines()
    print("\n".join(prepared[:-1]))
    show(json.loads(prepared[-1]))
    for report_format in FORMATS:
        show(json.loads(run(args, "--one", report_format).strip().splitlines()[-1]))


if __name__ == "__main__":
    main()
