"""Benchmark of the automatic phrase alignments (issue 13): are they cheap enough to compute on the fly?

    .venv/bin/python bench/bench_phrase_suggestions.py [--pairs N]

N MRPC pairs (default 1,000) get spaCy trees and the identical-token matcher's links (both made before
timing), then `annotator.core.phrase_suggestions.phrase_alignments_from_words` runs over every pair.
Prints the CPU time per pair (median and p95 of the per-pair times, and the total), the suggestions per
pair, and the ratio to the reference: the editor page's p50 of 17 ms (docs/benchmarks.md), which is what
computing them on opening a pair adds to. The dashboard computes them only for the pairs annotators
phrase-aligned.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotator.core.aligner import identical_token_alignment  # noqa: E402
from annotator.core.auto_trees import ParserUnavailable, parse_members  # noqa: E402
from annotator.core.phrase_suggestions import phrase_alignments_from_words  # noqa: E402
from annotator.core.trees import tree_nodes  # noqa: E402
from annotator.corpus.imports.mrpc import parse_mrpc  # noqa: E402

MRPC = ROOT.parent / "shared" / "corpora" / "mrpc"
EDITOR_PAGE_P50_MS = 17.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000)
    args = parser.parse_args()
    name = "msr_paraphrase_train.txt"
    if not (MRPC / name).exists():
        print(f"skipped: {MRPC / name} not found (the MRPC corpus is not on this machine)")
        return 0
    records = parse_mrpc((MRPC / name).read_bytes(), name).records[: args.pairs]
    members = [tokens for r in records for tokens in (r.tokens1, r.tokens2)]
    try:
        trees = parse_members(members)
    except ParserUnavailable as exc:
        print(f"skipped: {exc}")
        return 0
    nodes = [tree_nodes(tree, tokens) for tree, tokens in zip(trees, members, strict=True)]
    pairs = [
        (identical_token_alignment(r.tokens1, r.tokens2), nodes[2 * k], nodes[2 * k + 1])
        for k, r in enumerate(records)
    ]
    times, n_suggested = [], 0
    for links, nodes1, nodes2 in pairs:
        started = time.process_time()
        n_suggested += len(phrase_alignments_from_words(links, nodes1, nodes2))
        times.append(time.process_time() - started)
    total = sum(times)
    median_ms = 1000 * statistics.median(times)
    p95_ms = 1000 * sorted(times)[int(0.95 * (len(times) - 1))]
    n_nodes = statistics.mean(len(n1) + len(n2) for _, n1, n2 in pairs)
    print(
        f"Automatic phrase alignments of {len(pairs):,} MRPC pairs (spaCy trees, {n_nodes:.0f} nodes per pair)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU times\n")
    print("| measure | figure | reference | ratio |")
    print("|---|---|---|---|")
    print(
        f"| per pair, median | {median_ms:.2f} ms | editor page p50 {EDITOR_PAGE_P50_MS:.0f} ms | {median_ms / EDITOR_PAGE_P50_MS:.3f} |"
    )
    print(f"| per pair, p95 | {p95_ms:.2f} ms | | |")
    print(f"| all {len(pairs):,} pairs | {total:.2f} s | | |")
    print(f"| suggestions per pair | {n_suggested / len(pairs):.1f} | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
