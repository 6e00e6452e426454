"""Benchmark: the memory of one process computing κ_C for several MSRP-A-size projects in turn.

    .venv/bin/python bench/bench_kappa_c_memory.py [--pairs 3900] [--projects 5] [--samples 1000]

A loader process puts `--projects` synthetic projects (`metrics.synthetic`: `--pairs` pairs × 3
annotators with word alignments and an initial alignment, one phenomenon per pair and annotator) into
a throwaway database (`bench_dashboard.setup_database`: SQLite, or PostgreSQL next to DATABASE_URL's).
A second, fresh process — as a worker would — computes each project's agreement from scratch in turn
(`computation.recompute(full=True)`: κ_C's Monte Carlo deferred to its parts, which run in that process
without a broker, the chord's path of the embedded default), and prints its PSS (proportional set
size, /proc/self/smaps_rollup) after each project, with the ratio of the last to the first. Target:
≤ 1.2 (docs/benchmarks.md). `--samples` sets the Monte Carlo's J for every project (the spec's 1,000 by
default; fewer to fit a short run: a part's draws are bounded whatever J, the inputs are the pairs').
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def pss_mib() -> float:
    """This process's proportional set size in MiB."""
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no Pss line in /proc/self/smaps_rollup")


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    os.environ.pop("REDIS_URL", None)  # the embedded default: tasks (the chord's parts) run in-process
    import django

    django.setup()


def load(pairs: int, projects: int) -> list[int]:
    from django.core.management import call_command

    from bench.bench_dashboard import load_document
    from metrics.synthetic import synthetic_document

    call_command("migrate", verbosity=0)
    ids = []
    for k in range(projects):
        doc = synthetic_document(n_pairs=pairs, n_annotators=3, phenomena_per_pair=1, seed=k)
        project, _ = load_document(doc, f"kcm{k}")
        ids.append(project.pk)
    return ids


def compute(ids: list[int], samples: int) -> list[dict[str, float | str]]:
    from metrics.types import Options

    defaults = list(Options.__init__.__defaults__ or ())
    defaults[1] = samples  # Options(identical_match, mc_samples, …): J for every document of this run
    Options.__init__.__defaults__ = tuple(defaults)
    from annotator.agreement import computation

    rows: list[dict[str, float | str]] = [
        {"project": "none yet", "s": 0.0, "pss_mib": pss_mib(), "outcome": ""}
    ]
    for pk in ids:
        started = time.perf_counter()
        outcome = computation.recompute(pk, full=True)
        latest = computation.latest_snapshot(pk)
        assert latest is not None and not latest.results["pending"], outcome
        rows.append(
            {"project": str(pk), "s": time.perf_counter() - started, "pss_mib": pss_mib(), "outcome": outcome}
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3900, help="pairs per project (MSRP-A: 3,900)")
    parser.add_argument("--projects", type=int, default=5)
    parser.add_argument("--samples", type=int, default=1000, help="Monte Carlo samples J")
    parser.add_argument("--step", choices=["load", "compute"], default=None, help=argparse.SUPPRESS)
    parser.add_argument("--ids", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.step == "load":
        setup_django()
        print(json.dumps(load(args.pairs, args.projects)))
        return 0
    if args.step == "compute":
        setup_django()
        print(json.dumps(compute(json.loads(args.ids), args.samples)))
        return 0
    from bench.bench_dashboard import setup_database

    drop, where = setup_database()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:

        def step(*extra: str) -> object:
            cmd = [
                sys.executable,
                __file__,
                *extra,
                "--pairs",
                str(args.pairs),
                "--projects",
                str(args.projects),
            ]
            out = subprocess.run(
                cmd + ["--samples", str(args.samples)], env=env, check=True, capture_output=True
            )
            return json.loads(out.stdout.decode().strip().splitlines()[-1])

        ids = step("--step", "load")
        assert isinstance(ids, list)
        rows = step("--step", "compute", "--ids", json.dumps(ids))
        assert isinstance(rows, list)
    finally:
        if drop:
            host = os.environ["DATABASE_URL"].split("@")[-1].split(":")[0]
            subprocess.run(["dropdb", "-h", host, "-U", "postgres", drop], check=False)
    print(
        f"# κ_C for {args.projects} projects of {args.pairs} pairs × 3 annotators in turn, J = {args.samples} ({where})"
    )
    print(f"{'after project':>13} {'recompute s':>11} {'PSS MiB':>8}  outcome")
    for row in rows:
        print(f"{row['project']:>13} {row['s']:>11.1f} {row['pss_mib']:>8.1f}  {row['outcome']}")
    ratio = rows[-1]["pss_mib"] / rows[1]["pss_mib"]
    print(f"PSS after the last / after the first: {ratio:.2f} (target ≤ 1.2)")
    return 0 if ratio <= 1.2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
