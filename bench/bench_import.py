"""Benchmark of the corpus import and export (issue 4): the full MRPC, on SQLite and on PostgreSQL.

    .venv/bin/python bench/bench_import.py [--runs 5] [--backend sqlite|postgres|all]

Measures, each as the median of the runs:
- plain parse: read both MRPC files, split lines, split tabs (the least any importer must do);
- MRPC import: `import_corpus("mrpc", …)` of both files into a new project — decoding, validation,
  tokenization of 11,602 members (NLTK Treebank rules) and the bulk insert of 5,801 pairs;
- native export: the same project to the native JSON document, written to a file.
Targets: import ≤ 1.5 s, export ≤ 1 s. For comparison on this machine (from the issue): Label Studio
about 1.5 s and doccano about 3 s for the same file.

SQLite runs on a throwaway file database; PostgreSQL on a throwaway database `bench_import` (created
and dropped), at $DATABASE_URL's server or postgres@127.0.0.1:5432; skipped when unreachable.
Each backend runs in its own process, as Django binds its database at start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
MRPC = ROOT.parent / "shared" / "corpora" / "mrpc"
FILES = [MRPC / "msr_paraphrase_train.txt", MRPC / "msr_paraphrase_test.txt"]
TARGETS = {"import": 1.5, "export": 1.0}


def plain_parse() -> int:
    rows = 0
    for path in FILES:
        for line in path.read_bytes().decode("utf-8-sig").split("\r\n")[1:]:
            if line:
                rows += len(line.split("\t")) == 5
    return rows


def median_time(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    return median_times(fn, runs)[0]


def median_times(fn, runs: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median wall time and median CPU time of this process (which other load cannot inflate)."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def run_backend(runs: int) -> dict[str, float]:
    """In a process whose DATABASE_URL is the throwaway database: migrate, then time import and export."""
    import django

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from annotator.corpus.exports.native import write_native
    from annotator.corpus.services import import_corpus
    from annotator.models import Project

    counter = iter(range(10**6))

    def do_import() -> None:
        report = import_corpus("mrpc", f"bench-{next(counter)}", FILES)
        assert report.ok and report.created["pairs"] == 5801, report.problems[:3]

    import_s, import_cpu = median_times(do_import, runs)
    project = Project.objects.filter(name__startswith="bench-").first()
    out = Path(tempfile.mkdtemp()) / "export.json"

    def do_export() -> None:
        with out.open("w", encoding="utf-8") as handle:
            write_native(project, handle)

    export_s, export_cpu = median_times(do_export, runs)
    return {
        "import": import_s,
        "export": export_s,
        "import_cpu": import_cpu,
        "export_cpu": export_cpu,
        "export_bytes": out.stat().st_size,
    }


def postgres_url() -> str | None:
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        base = "postgres://postgres@127.0.0.1:5432/postgres"
    parsed = urlparse(base)
    try:
        import psycopg

        with psycopg.connect(
            parsed._replace(path="/postgres").geturl(), autocommit=True, connect_timeout=2
        ) as c:
            c.execute("DROP DATABASE IF EXISTS bench_import")
            c.execute("CREATE DATABASE bench_import")
    except Exception as exc:  # no server: report and skip
        print(f"postgres: skipped ({exc.__class__.__name__}: {str(exc).strip()[:80]})")
        return None
    return parsed._replace(path="/bench_import").geturl()


def drop_postgres(url: str) -> None:
    import psycopg

    with psycopg.connect(urlparse(url)._replace(path="/postgres").geturl(), autocommit=True) as c:
        c.execute("DROP DATABASE IF EXISTS bench_import")


def child(backend: str, runs: int) -> dict[str, float] | None:
    # Production-like: DEBUG off (Django then keeps no query log), tasks in-process.
    env = {
        **os.environ,
        "LOG_LEVEL": "ERROR",
        "REDIS_URL": "",
        "DEBUG": "0",
        "SECRET_KEY": "bench-" + "k" * 50,
        "SECURE_SSL_REDIRECT": "0",
    }
    tmp = tempfile.mkdtemp()
    if backend == "sqlite":
        env["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
        url = None
    else:
        url = postgres_url()
        if url is None:
            return None
        env["DATABASE_URL"] = url
    env["VAR_DIR"] = tmp
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", "--runs", str(runs)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        if url:
            drop_postgres(url)
    if done.returncode != 0:
        print(done.stdout, done.stderr, file=sys.stderr)
        raise SystemExit(f"{backend}: benchmark failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "all"], default="all")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_backend(args.runs)))
        return
    if not all(path.is_file() for path in FILES):
        raise SystemExit(f"MRPC files not found under {MRPC}")
    assert plain_parse() == 5801
    parse_s = median_time(plain_parse, args.runs)
    print(
        f"MRPC, 5,801 pairs; median of {args.runs} runs; plain parse (read + split lines + split tabs) "
        f"{parse_s * 1000:.1f} ms"
    )
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall times grow with other load; "
        "cpu = this process's CPU time, without the PostgreSQL server's)"
    )
    print(
        f"{'backend':<10} {'step':<16} {'median s':>9} {'cpu s':>7} {'target s':>9} {'× plain parse':>14}  verdict"
    )
    failed = False
    for backend in ["sqlite", "postgres"] if args.backend == "all" else [args.backend]:
        result = child(backend, args.runs)
        if result is None:
            continue
        for step, label in (("import", "MRPC import"), ("export", "native export")):
            seconds = result[step]
            ok = seconds <= TARGETS[step]
            failed |= not ok
            print(
                f"{backend:<10} {label:<16} {seconds:>9.3f} {result[step + '_cpu']:>7.3f} {TARGETS[step]:>9.1f} "
                f"{seconds / parse_s:>14.0f}  "
                f"{'ok' if ok else 'SLOWER THAN TARGET'}"
            )
        print(f"{backend:<10} export size: {result['export_bytes'] / 1e6:.1f} MB")
    if failed:
        print("note: a target was missed (machine load can inflate wall times; rerun to confirm)")


if __name__ == "__main__":
    main()
