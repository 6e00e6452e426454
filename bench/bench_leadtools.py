"""Benchmark of the lead's tools at MSRP-A scale (3,900 pairs × 3 annotators).

    .venv/bin/python bench/bench_leadtools.py [--runs 3]

- per-pair agreement for the explorer and the re-annotation rules (`annotator.leadtools.disagreement.
  pair_agreement`, DO F1 per annotator pair and type, word-alignment F1) on a seeded synthetic document;
- the re-annotation draw (rule, seeded 10 % sample, shuffle) over those rows;
- the planner's balanced-overlap distribution of 3,900 pairs over 10 annotators, 3 per pair.
Times are medians over the runs; "cpu" is process time (what other load on the machine cannot inflate).
Targets: per-pair agreement ≤ 5 s (it runs once per change of annotations, then is cached), draw and
plan ≤ 2 s (they run while the lead changes options).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")

import django  # noqa: E402

django.setup()

from annotator.leadtools import disagreement, planning, reannotation  # noqa: E402
from metrics.synthetic import synthetic_document  # noqa: E402


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    walls, cpus, result = [], [], None
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    doc = synthetic_document(n_pairs=3900, n_annotators=3, seed=0)
    raw = {
        "phenomena": {a: [{"pair": x.pair} for x in xs] for a, xs in doc.phenomena.items()},
        "word_alignments": {a: dict.fromkeys(v) for a, v in doc.word_alignments.items()},
    }
    rows_wall, rows_cpu, rows = timed(lambda: disagreement.pair_agreement(raw, doc), args.runs)
    draw_wall, draw_cpu, draw = timed(
        lambda: reannotation.draw(rows, "do_f1_below", {"threshold": 0.6}, seed=1), args.runs
    )
    plan_wall, plan_cpu, _ = timed(
        lambda: planning.distribute(list(range(3900)), list(range(10)), per_pair="k", k=3, seed=1), args.runs
    )
    print(f"{'step':<52} {'wall s':>8} {'cpu s':>8} {'target s':>9}")
    print(f"{'per-pair agreement, 3,900 pairs × 3 annotators':<52} {rows_wall:8.2f} {rows_cpu:8.2f} {5:9}")
    print(
        f"{'re-annotation draw (' + str(len(draw.order)) + ' pairs queued)':<52} {draw_wall:8.3f} {draw_cpu:8.3f} {2:9}"
    )
    print(f"{'plan 3,900 pairs over 10 annotators, k = 3':<52} {plan_wall:8.2f} {plan_cpu:8.2f} {2:9}")
    ok = rows_cpu <= 5 and draw_cpu <= 2 and plan_cpu <= 2
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
