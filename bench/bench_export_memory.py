"""Peak memory and time of writing each export format to a file (`exports.export_to_file`, what the export
job runs) on a synthetic project: N pairs (default 100,000), each with two phenomena and four links of
one annotator, whose assignments of them are done.

    python bench/bench_export_memory.py --pairs 100000

The project lives in its own SQLite file (`--database`, default bench-export.sqlite3 in the temporary
directory; DATABASE_URL, when set, wins): the first run builds it (migrating the file first), later runs
reuse it. Each format
is exported in a fresh process whose peak resident set is reset before the export (Linux: `5` written to
/proc/self/clear_refs resets VmHWM); printed: the resident set before the export (Django loaded, the
project found), its peak during the export, the time and the file's size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PROJECT = "bench-export"
FORMATS = [("csv", {}), ("pharaoh", {"annotator": "anna"}), ("etpc", {"annotator": "anna"}), ("conll", {"annotator": "anna"}), ("jsonl", {}), ("native", {"jsonl": True})]  # fmt: skip


def setup_django(database: str) -> None:
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{Path(database).resolve()}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    import django

    django.setup()


def build(n_pairs: int) -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from annotator.accounts import services as accounts
    from annotator.models import AlignmentLink, Assignment, Pair, ParaphraseType, Phenomenon, Project, Tagset
    from annotator.projects import services as project_setup

    if Project.objects.filter(name=PROJECT).exists():
        return
    tagset = Tagset.objects.order_by("pk").first()
    anna = accounts.create_account("anna", "bench-pass-123")
    project = project_setup.create_project(None, name=PROJECT, tagset=tagset, annotators=[anna])
    ptypes = list(ParaphraseType.objects.filter(tagset=tagset)[:2])
    tokens1, tokens2 = ["The", "film", "opened", "on", "Friday", "."], ["Film", "premiered", "Friday", "."]
    for start in range(0, n_pairs, 10_000):
        Pair.objects.bulk_create(
            Pair(project=project, source_id=f"p{n}", position=n, text1=" ".join(tokens1),
                 text2=" ".join(tokens2), tokens1=tokens1, tokens2=tokens2)
            for n in range(start, min(n_pairs, start + 10_000))
        )  # fmt: skip
        pairs = list(Pair.objects.filter(project=project, position__gte=start).only("pk"))
        Phenomenon.objects.bulk_create(
            (Phenomenon(pair=p, annotator=anna, ptype=t, scope1=[k], scope2=[k]) for p in pairs
             for k, t in enumerate(ptypes)), batch_size=5000
        )  # fmt: skip
        AlignmentLink.objects.bulk_create(
            (AlignmentLink(pair=p, annotator=anna, i=i, j=i) for p in pairs for i in range(4)),
            batch_size=5000,
        )
        Assignment.objects.bulk_create(
            (Assignment(project=project, annotator=anna, pair=p, status=Assignment.Status.DONE,
                        queue_position=start + n) for n, p in enumerate(pairs)), batch_size=5000
        )  # fmt: skip
        print(f"built {min(n_pairs, start + 10_000):,} pairs", file=sys.stderr)
    analyze()


def analyze() -> None:
    """PostgreSQL: the planner's statistics of the built tables, as an import refreshes them
    (`annotator.core.sql.analyze`); without them it plans for empty tables."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def measure(format: str, options: dict[str, object]) -> dict[str, object]:
    """Export once in this process; its figures."""
    from django.conf import settings

    from annotator.corpus.exports import export_to_file
    from annotator.models import Project

    project = Project.objects.get(name=PROJECT)
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from the current RSS
    before = _status_kib("VmRSS")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        written = export_to_file(
            format, project, Path(directory), max_bytes=settings.EXPORT_MAX_MB * 2**20, **options
        )
        size = written.size
    seconds = time.perf_counter() - started
    peak = _status_kib("VmHWM")
    name = f"{format}-jsonl" if format == "native" and options.get("jsonl") else format
    return {"format": name, "seconds": round(seconds, 1), "rss_before_mib": round(before / 1024),
            "rss_peak_mib": round(peak / 1024), "file_mib": round(size / 2**20, 1)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--database", default=str(Path(tempfile.gettempdir()) / "bench-export.sqlite3"))
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one format in this process
    args = parser.parse_args()
    setup_django(args.database)
    if args.one:
        format, options = json.loads(args.one)
        print(json.dumps(measure(format, options)))
        return
    build(args.pairs)
    for format, options in FORMATS:
        out = subprocess.run(
            [sys.executable, __file__, "--database", args.database, "--one", json.dumps([format, options])],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        row = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{row['format']:12} {row['file_mib']:8} MiB file  {row['seconds']:7} s  "
              f"RSS {row['rss_before_mib']} → {row['rss_peak_mib']} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
