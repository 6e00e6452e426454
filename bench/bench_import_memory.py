"""Peak memory of an MRPC import (issue 17: imports should stream in batches with bounded memory).

    .venv/bin/python bench/bench_import_memory.py [--lines 1000000] [--lines 100000 …]

For each size, a synthetic MRPC training file of that many lines (MRPC-shaped sentences, unique ids)
is imported by `import_corpus("mrpc", …)` into a new project on a throwaway SQLite database, in a fresh
process; the process's peak resident set size (ru_maxrss) before and after the import is reported with
the time taken. Bounded memory means the "import" column stays flat as the line count grows.
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
HEADER = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n"
S1 = 'Amrozi accused his brother, whom he called "the witness", of deliberately distorting his evidence {n}.'
S2 = 'Referring to him as only "the witness", Amrozi accused his brother of deliberately distorting {n}.'


def write_file(path: Path, lines: int) -> None:
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(HEADER)
        for n in range(lines):
            out.write(
                f"{n % 2}\t{1_000_000 + 2 * n}\t{1_000_001 + 2 * n}\t{S1.format(n=n)}\t{S2.format(n=n)}\r\n"
            )


def child(path: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    import django  # heavy: only in the measured child process

    django.setup()
    from django.core.management import call_command

    from annotator.corpus.services import import_corpus

    call_command("migrate", verbosity=0)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    report = import_corpus("mrpc", "Bench", [Path(path)])
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{report.created['pairs']}\t{before}\t{after}\t{elapsed:.1f}\t{report.ok}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, action="append", help="lines of the MRPC file (repeatable)")
    sizes = parser.parse_args().lines or [1_000_000]
    print(f"{'lines':>10} {'pairs':>10} {'MiB at start':>13} {'MiB peak':>9} {'seconds':>8}")
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
            pairs, before, after, seconds, ok = out.split("\t")
            print(
                f"{lines:>10,} {int(pairs):>10,} {int(before) / 1024:>13.0f} {int(after) / 1024:>9.0f} {seconds:>8}"
                + ("" if ok == "True" else "  (import failed)")
            )


if __name__ == "__main__":
    main()
