"""Benchmark: the memory of one process computing κ_C for several MSRP-A-size projects in turn.

    .venv/bin/python bench/bench_kappa_c_memory.py [--pairs 3900] [--projects 5] [--samples 1000]

A loader process puts `--projects` synthetic projects (`metrics.synthetic`: `--pairs` pairs × 3
annotators with word alignments and an initial alignment, one phenomenon per pair and annotator) into
a throwaway database (`bench_dashboard.setup_database`: SQLite, or PostgreSQL next to DATABASE_URL's)
and computes their agreement, κ_C pending: its Monte Carlo planned in parts, not sent. A second, fresh
process — as a worker would — computes each project's κ_C in turn: every part
(`kappa_c_chunks.compute`, the chord's task), then the recompute that combines them (what the chord's
callback runs), and prints its PSS (proportional set size, /proc/self/smaps_rollup) after each
project, with the ratio of the last to the first. Target:
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


def set_samples(samples: int) -> None:
    """J for every document of this process: `Options(identical_match, mc_samples, …)`'s default."""
    from metrics.types import Options

    defaults = list(Options.__init__.__defaults__ or ())
    defaults[1] = samples
    Options.__init__.__defaults__ = tuple(defaults)


def load(pairs: int, projects: int, samples: int) -> list[int]:
    """The projects, each with its agreement computed but κ_C, whose parts are planned and not sent
    (as if a broker had taken the chord)."""
    from django.core.management import call_command

    from annotator import taskqueue
    from annotator.agreement import computation
    from bench.bench_dashboard import load_document
    from metrics.synthetic import synthetic_document

    set_samples(samples)
    call_command("migrate", verbosity=0)
    taskqueue.enqueue = lambda *args, **kwargs: None  # type: ignore[assignment]
    taskqueue.enqueue_chord = lambda *args, **kwargs: None  # type: ignore[attr-defined]
    ids = []
    for k in range(projects):
        doc = synthetic_document(n_pairs=pairs, n_annotators=3, phenomena_per_pair=1, seed=k)
        project, _ = load_document(doc, f"kcm{k}")
        outcome = computation.recompute(project.pk, full=True)
        assert outcome.startswith("stored provisional;"), outcome
        ids.append(project.pk)
    return ids


def compute(ids: list[int], samples: int) -> list[dict[str, float | str]]:
    """What a worker does for each project's κ_C in turn: every part, then the recompute that combines
    them (the chord's callback); this process's PSS after each."""
    set_samples(samples)
    from annotator.agreement import computation, kappa_c_chunks
    from annotator.models import KappaCChunk

    rows: list[dict[str, float | str]] = [
        {"project": "none yet", "s": 0.0, "pss_mib": pss_mib(), "outcome": ""}
    ]
    for pk in ids:
        started = time.perf_counter()
        parts = KappaCChunk.objects.filter(project_id=pk, status="pending").values_list("pk", flat=True)
        outcomes = {kappa_c_chunks.compute(part) for part in list(parts)}
        outcome = computation.recompute(pk)
        latest = computation.latest_snapshot(pk)
        assert latest is not None and not latest.results["pending"], outcome
        note = f"{len(parts)} parts {sorted(outcomes)}, then {outcome}"
        rows.append(
            {"project": str(pk), "s": time.perf_counter() - started, "pss_mib": pss_mib(), "outcome": note}
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
        print(json.dumps(load(args.pairs, args.projects, args.samples)))
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
                cmd + ["--samples", str(args.samples)], env=env, check=False, capture_output=True
            )
            if out.returncode:
                raise SystemExit(f"{' '.join(extra[:2])} failed:\n{out.stderr.decode()[-3000:]}")
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
