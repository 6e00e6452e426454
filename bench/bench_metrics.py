"""Benchmark of the metrics core against its speed targets and peer libraries.

    .venv/bin/python bench/bench_metrics.py [--runs 5] [--quick]

Rows (seeded synthetic data, :func:`metrics.synthetic.synthetic_document` for the phenomena):
  - IAPTA: every N/TPO/DO measure for all annotator pairs plus multi-annotator TPO,
    3,900 pairs × 3 annotators × 8 phenomena — target ≤ 1 s;
  - Fleiss' κ from raw ratings, 100,000 items × 3 raters × 6 categories — ≥ 5× statsmodels
    (aggregate_raters + fleiss_kappa);
  - Cohen's κ for the 15 pairs of 6 raters × 1,000 items — ≥ 2× statsmodels cohens_kappa, ≥ 10×
    sklearn cohen_kappa_score;
  - Krippendorff's α nominal, 6 raters × 10,000 items, half missing — no slower than krippendorff;
  - κ_C, 300 doubly-aligned pairs, 1,000 Monte Carlo samples (metrics.chance; "n/a" if absent);
  - 95 % intervals of the phenomena and word-alignment measures (metrics.intervals), 1,000 pairs ×
    3 annotators × 8 phenomena with word alignments (one run: the resampled sections' 200
    resamples are taken from kept per-pair statistics) — target ≤ 30 s.
Times are medians over ``--runs`` runs of process (CPU) time, with the wall-clock median beside it;
ratio = peer / ours on CPU time (> 1: faster; for target rows, target / ours).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from metrics.alignment import alignment_report  # noqa: E402
from metrics.intervals import report_intervals  # noqa: E402
from metrics.kappa import cohen_kappa_pairs, fleiss_kappa_from_ratings, krippendorff_alpha  # noqa: E402
from metrics.phenomena import PhenomenaAgreement  # noqa: E402
from metrics.report import phenomena_report, report_sections  # noqa: E402
from metrics.synthetic import synthetic_document  # noqa: E402
from metrics.types import Options  # noqa: E402

WALL: dict[float, float] = {}  # cpu median → wall median of the same measurement (for the table)


def median_time(fn: Callable[[], object], runs: int) -> float:
    """Median process (CPU) time of ``runs`` calls; the wall-clock median is kept in ``WALL``.

    CPU time is what other load on a shared machine inflates least; both are printed.
    """
    cpu, wall = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    result = statistics.median(cpu)
    WALL[result] = statistics.median(wall)
    return result


Row = tuple[str, str, float | None, str, float | None]


def bench_iapta(runs: int, n_pairs: int) -> list[Row]:
    doc = synthetic_document(n_pairs=n_pairs, n_annotators=3, phenomena_per_pair=8, with_alignments=False)
    assert doc.phenomena is not None
    pairs = [p.id for p in doc.pairs]

    def full() -> PhenomenaAgreement:
        state = PhenomenaAgreement(
            doc.phenomena or {}, annotators=doc.annotators, tagset=doc.tagset, pairs=pairs
        )
        state.report()
        return state

    size = f"{n_pairs} pairs × 3 ann × 8 ph"
    t_full = median_time(full, runs)
    return [("IAPTA all measures + multi TPO", size, t_full, "target 1 s", 1.0)]


def bench_fleiss(runs: int, n_items: int) -> list[Row]:
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    rng = np.random.default_rng(0)
    data = rng.integers(0, 6, size=(n_items, 3))
    items = np.repeat(np.arange(n_items), 3)
    labels = data.ravel()
    ours = median_time(lambda: fleiss_kappa_from_ratings(items, labels), runs)
    peer = median_time(lambda: fleiss_kappa(aggregate_raters(data)[0], method="fleiss"), runs)
    return [("Fleiss κ from raw ratings", f"{n_items} items × 3 × 6 cat", ours, "statsmodels", peer)]


def bench_cohen(runs: int) -> list[Row]:
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa, to_table

    rng = np.random.default_rng(1)
    m = rng.integers(0, 5, size=(1000, 6))
    pairs = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    ours = median_time(lambda: cohen_kappa_pairs(m), runs)
    sm = median_time(lambda: [cohens_kappa(to_table(m[:, [i, j]])[0]).kappa for i, j in pairs], runs)
    sk = median_time(lambda: [cohen_kappa_score(m[:, i], m[:, j]) for i, j in pairs], runs)
    size = "15 pairs, 6 raters × 1000"
    return [
        ("Cohen κ, all rater pairs", size, ours, "statsmodels", sm),
        ("Cohen κ, all rater pairs", size, ours, "sklearn", sk),
    ]


def bench_krippendorff(runs: int) -> list[Row]:
    import krippendorff

    rng = np.random.default_rng(2)
    data = rng.integers(0, 5, size=(6, 10000)).astype(float)
    data[rng.random(data.shape) < 0.5] = np.nan
    ours = median_time(lambda: krippendorff_alpha(data), runs)
    peer = median_time(
        lambda: krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), runs
    )
    return [("Krippendorff α nominal", "6 × 10000, half missing", ours, "krippendorff", peer)]


def bench_kappa_c(runs: int) -> list[Row]:
    size = "300 pairs, 1000 samples"
    try:
        from metrics.chance import kappa_c_report
    except ImportError:
        return [("κ_C (metrics.chance)", size, None, "n/a", None)]
    doc = synthetic_document(n_pairs=300, n_annotators=2, phenomena_per_pair=0, seed=5)
    doc = dataclasses.replace(doc, options=Options(mc_samples=1000), phenomena=None)
    ours = median_time(lambda: kappa_c_report(doc), max(1, min(runs, 3)))
    return [("κ_C (metrics.chance)", size, ours, "target 5 s", 5.0)]


def bench_intervals(n_pairs: int) -> list[Row]:
    doc = synthetic_document(n_pairs=n_pairs, n_annotators=3, phenomena_per_pair=8)
    measures = {**phenomena_report(doc), **alignment_report(doc)}
    t = median_time(lambda: report_intervals(doc, measures, report_sections(doc), seed=0), 1)
    return [
        ("95 % intervals, phenomena + alignments", f"{n_pairs} pairs × 3 ann × 8 ph", t, "target 30 s", 30.0)
    ]


def fmt_time(t: float | None) -> str:
    if t is None:
        return "n/a"
    return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = parser.parse_args()
    n_pairs = 390 if args.quick else 3900
    rows = bench_iapta(args.runs, n_pairs)
    rows += bench_fleiss(args.runs, 10_000 if args.quick else 100_000)
    rows += bench_cohen(args.runs)
    rows += bench_krippendorff(args.runs)
    if not args.quick:
        rows += bench_kappa_c(args.runs)
    rows += bench_intervals(100 if args.quick else 1000)
    head = ("measure", "size", f"cpu median of {args.runs}", "(wall)", "peer", "peer median", "ratio")
    table = [head]
    for name, size, ours, peer, peer_t in rows:
        ratio = f"{peer_t / ours:.1f}×" if ours and peer_t else "n/a"
        wall = fmt_time(WALL.get(ours)) if ours is not None else "n/a"
        table.append((name, size, fmt_time(ours), wall, peer, fmt_time(peer_t), ratio))
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for n, row in enumerate(table):
        print(" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
        if n == 0:
            print("-+-".join("-" * w for w in widths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
