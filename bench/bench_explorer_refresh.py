"""Peak memory and time of one refresh of the disagreement explorer's stored rows
(`explorer_rows.refresh`, what the explorer's refresh task runs) on a synthetic project: N pairs
(default 200,000), each with a pair label and one phenomenon of each of two annotators (their labels
differ on every third pair) and both assignments done.

    python bench/bench_explorer_refresh.py --pairs 200000

The project lives in its own SQLite file (`--database`, default bench-explorer.sqlite3 in the temporary
directory; DATABASE_URL, when set, wins): the first run builds it, later runs reuse it. The refresh runs
in a fresh process whose peak resident set is reset first (Linux: `5` written to /proc/self/clear_refs
resets VmHWM) and DEBUG is off, as on a worker; printed: the resident set before the refresh, its peak during it, the time and the
number of rows stored.
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

PROJECT = "bench-explorer"
BUILD_BATCH = 10_000


def setup_django(database: str) -> None:
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{Path(database).resolve()}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    os.environ.setdefault("DEBUG", "0")  # as a worker runs: no log of every query kept in memory
    os.environ.setdefault("SECRET_KEY", "bench-explorer-refresh-only")
    import django

    django.setup()


def build(n_pairs: int) -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from annotator.accounts.services import create_account
    from annotator.models import Assignment, Pair, PairLabel, ParaphraseType, Phenomenon, Project, Tagset
    from annotator.projects.services import create_project

    if Project.objects.filter(name=PROJECT).exists():
        return
    tagset = Tagset.objects.order_by("pk").first()
    annotators = [create_account(name, "bench-pass-123") for name in ("anna", "ben")]
    project = create_project(None, name=PROJECT, tagset=tagset, layer_pair_label=True, annotators=annotators)
    ptypes = list(ParaphraseType.objects.filter(tagset=tagset)[:2])
    tokens1, tokens2 = ["The", "film", "opened", "on", "Friday", "."], ["Film", "premiered", "Friday", "."]
    for start in range(0, n_pairs, BUILD_BATCH):
        Pair.objects.bulk_create(
            Pair(project=project, source_id=f"p{n}", position=n, text1=" ".join(tokens1),
                 text2=" ".join(tokens2), tokens1=tokens1, tokens2=tokens2)
            for n in range(start, min(n_pairs, start + BUILD_BATCH))
        )  # fmt: skip
        pairs = list(Pair.objects.filter(project=project, position__gte=start).only("pk", "position"))
        for k, user in enumerate(annotators):
            Phenomenon.objects.bulk_create(
                (Phenomenon(pair=p, annotator=user, ptype=ptypes[k], scope1=[k], scope2=[0]) for p in pairs),
                batch_size=5000,
            )
            PairLabel.objects.bulk_create(
                (PairLabel(pair=p, annotator=user,
                           label="non_paraphrase" if k and p.position % 3 == 0 else "paraphrase")
                 for p in pairs), batch_size=5000,
            )  # fmt: skip
            Assignment.objects.bulk_create(
                (Assignment(project=project, annotator=user, pair=p, queue_position=p.position,
                            status=Assignment.Status.DONE) for p in pairs), batch_size=5000,
            )  # fmt: skip
        print(f"built {min(n_pairs, start + BUILD_BATCH):,} pairs", file=sys.stderr)
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


def measure() -> dict[str, object]:
    """Refresh once in this process; its figures."""
    from annotator.leadtools import explorer_rows
    from annotator.models import Project

    project = Project.objects.get(name=PROJECT)
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from the current RSS
    before = _status_kib("VmRSS")
    started = time.perf_counter()
    stored = explorer_rows.refresh(project)
    seconds = time.perf_counter() - started
    peak = _status_kib("VmHWM")
    return {"rows": stored, "seconds": round(seconds, 1), "rss_before_mib": round(before / 1024),
            "rss_peak_mib": round(peak / 1024)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=200_000)
    parser.add_argument("--database", default=str(Path(tempfile.gettempdir()) / "bench-explorer.sqlite3"))
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # internal: measure here
    args = parser.parse_args()
    setup_django(args.database)
    if args.one:
        print(json.dumps(measure()))
        return
    build(args.pairs)
    out = subprocess.run(
        [sys.executable, __file__, "--database", args.database, "--one"],
        check=True,
        capture_output=True,
        text=True,
    )
    row = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        f"{row['rows']:,} rows  {row['seconds']} s  RSS {row['rss_before_mib']} → {row['rss_peak_mib']} MiB"
    )


if __name__ == "__main__":
    main()
