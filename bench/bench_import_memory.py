"""Peak memory of an MRPC import on the worker's path (issue 17: imports stream with bounded memory).

    .venv/bin/python bench/bench_import_memory.py [--lines 100000 --lines 1000000]

For each size, an MRPC training file of that many lines is synthesised from the real one
(`$CORPORA_DIR/mrpc/msr_paraphrase_train.txt`, default ../shared/corpora) by repeating its rows with
unique sentence ids, into a temporary directory (never kept). A fresh process migrates a throwaway SQLite
database, records an import job for the file as an upload would (`CorpusJob` with the stored path) and
runs it as the worker does (`annotator.corpus.jobs.run_import`). Reported: the process's peak resident
set size (ru_maxrss) before and after the import, CPU seconds, and the ratio of the import's own memory
(peak − start) of the largest size to that of the smallest — 1.0 is memory that does not grow with
the file. The reference is the issue's figure for the code before streaming: 100,000 lines peaked
at 674 MiB (and 1,000,000 at 3.2 GiB in the production stack).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = Path(os.environ.get("CORPORA_DIR", ROOT.parent / "shared" / "corpora"))
SOURCE = CORPORA / "mrpc" / "msr_paraphrase_train.txt"
REFERENCE_100K_MIB = 674


def write_file(path: Path, lines: int) -> None:
    """`lines` rows of the real file, repeated; sentence ids made unique by the repetition number."""
    text = SOURCE.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").split("\n")
    header, rows = text[0], [row.split("\t") for row in text[1:] if row.strip()]
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("\ufeff" + header + "\r\n")
        for n in range(lines):
            quality, id1, id2, s1, s2 = rows[n % len(rows)]
            lap = n // len(rows)
            out.write(f"{quality}\t{id1}{lap:04d}\t{id2}{lap:04d}\t{s1}\t{s2}\r\n")


def child(path: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    import django  # heavy: only in the measured child process

    django.setup()
    from django.core.management import call_command

    from annotator.corpus.jobs import run_import
    from annotator.models import CorpusJob

    call_command("migrate", verbosity=0)
    job = CorpusJob.objects.create(
        kind=CorpusJob.Kind.IMPORT,
        format="mrpc",
        project_name="Bench",
        options={"new_project": True},
        input_files=[{"name": Path(path).name, "path": path, "size": Path(path).stat().st_size}],
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu = time.process_time()
    status = run_import(job.pk)
    cpu = time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    job.refresh_from_db()
    pairs = job.report.get("created", {}).get("pairs", 0)
    print(f"{pairs}\t{before}\t{after}\t{cpu:.1f}\t{status}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, action="append", help="lines of the MRPC file (repeatable)")
    sizes = parser.parse_args().lines or [100_000, 1_000_000]
    if not SOURCE.exists():
        print(f"bench_import_memory: skipped (MRPC not found under {CORPORA})")
        return
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'lines':>10} {'pairs':>10} {'MiB at start':>13} {'MiB peak':>9} {'import MiB':>11} {'CPU s':>7}")
    grown: dict[int, float] = {}
    for lines in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "msr_paraphrase_train.txt"
            write_file(data, lines)
            env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3", "REDIS_URL": ""}
            out = (
                subprocess.run(
                    [sys.executable, __file__, "--child", str(data)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=ROOT,
                )
                .stdout.strip()
                .splitlines()[-1]
            )
            pairs, before, after, cpu, status = out.split("\t")
            start, peak = int(before) / 1024, int(after) / 1024
            grown[lines] = peak - start
            print(
                f"{lines:>10,} {int(pairs):>10,} {start:>13.0f} {peak:>9.0f} {peak - start:>11.0f} {cpu:>7}"
                + ("" if status == "succeeded" else f"  ({status})")
            )
    small, large = min(grown), max(grown)
    if large != small:
        ratio = grown[large] / max(grown[small], 1.0)
        print(
            f"import memory {large:,} / {small:,} lines: ×{ratio:.2f} (1.0 = flat; file ×{large / small:.0f})"
        )
    print(f"reference (before streaming, issue 17): 100,000 lines peaked at {REFERENCE_100K_MIB} MiB")
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
