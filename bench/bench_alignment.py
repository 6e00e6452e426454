"""Benchmark of the alignment measures (spec §5): κ_C Monte Carlo and word/phrase P/R/F1.

    .venv/bin/python bench/bench_alignment.py [--runs 5]

Seeded synthetic data shaped like paraphrase corpora: member lengths 15–35 tokens, a near-monotone
automatic initial alignment, annotators who correct a few cells each and mark some links possible.
Targets: κ_C for 300 doubly-aligned pairs with 1,000 samples ≤ 5 s on one core.
Times are medians over the runs; "cpu" is process time (what other load on the machine cannot inflate).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from metrics.alignment import alignment_report  # noqa: E402
from metrics.chance import kappa_c_report  # noqa: E402
from metrics.types import Document, Options, Pair, WordAlignment  # noqa: E402

VOCAB = [f"w{k}" for k in range(400)] + ["the", "a", "of", ",", "."] * 20


def synthetic_document(n_pairs: int, annotators: tuple[str, ...], *, mc_samples: int, seed: int) -> Document:
    """Pairs with an initial alignment and one corrected word alignment per annotator and pair."""
    rng = np.random.default_rng(seed)
    pairs = []
    alignments: dict[str, dict[str, WordAlignment]] = {a: {} for a in annotators}
    for k in range(n_pairs):
        n, m = int(rng.integers(15, 36)), int(rng.integers(15, 36))
        tokens1 = tuple(str(t) for t in rng.choice(VOCAB, n))
        tokens2 = list(str(t) for t in rng.choice(VOCAB, m))
        initial = set()
        for i in range(n):
            if rng.random() < 0.85:
                j = int(np.clip(round(i * m / n + rng.normal(0, 1)), 0, m - 1))
                initial.add((i, j))
                if rng.random() < 0.3:
                    tokens2[j] = tokens1[i]  # some identical words, as in real paraphrases
        pair = Pair(f"p{k}", tokens1, tuple(tokens2), frozenset(initial))
        pairs.append(pair)
        for a in annotators:
            links = set(initial)
            for _ in range(int(rng.integers(0, 8))):
                links ^= {(int(rng.integers(n)), int(rng.integers(m)))}
            possible = {link for link in links if rng.random() < 0.15}
            alignments[a][pair.id] = WordAlignment(frozenset(links - possible), frozenset(possible))
    return Document(
        annotators, Options(mc_samples=mc_samples), pairs=tuple(pairs), word_alignments=alignments
    )


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and process time of ``runs`` calls."""
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    kappa_doc = synthetic_document(300, ("A", "B"), mc_samples=1000, seed=1)
    words_doc = synthetic_document(3900, ("A", "B", "C"), mc_samples=2, seed=2)
    cells = np.mean([len(p.tokens1) * len(p.tokens2) for p in kappa_doc.pairs])

    print(f"{'measure':<44} {'size':<34} {'wall s':>8} {'cpu s':>8} {'target':>8}")
    wall, cpu = timed(lambda: kappa_c_report(kappa_doc), args.runs)
    size = f"300 pairs × 1000 samples, {cells:.0f} cells"
    print(f"{'kappa_c (A|B)':<44} {size:<34} {wall:>8.2f} {cpu:>8.2f} {'≤ 5':>8}")
    wall, cpu = timed(lambda: alignment_report(words_doc), args.runs)
    size = "3900 pairs × 3 annotators"
    print(f"{'alignment.words/phrases P/R/F1 (3 pairs)':<44} {size:<34} {wall:>8.2f} {cpu:>8.2f} {'—':>8}")
    print(f"(median of {args.runs} runs; numpy {np.__version__})")


if __name__ == "__main__":
    main()
