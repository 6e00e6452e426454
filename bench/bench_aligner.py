"""Benchmark of the automatic word aligner (issue 13): speed on the full MRPC and quality on gold.

    .venv/bin/python bench/bench_aligner.py [--ibm N]

One table:
- wall time of training + aligning all 5,801 MRPC pairs (both directions, symmetrised, identity
  lexicon and fill; tokens as the workbench's MRPC import makes them), target ≤ 30 s;
- precision, recall and AER (Och & Ney 2003) on the hand-aligned gold pairs of
  tests/fixtures/mrpc_gold_alignments.json, of the identical-token matcher (the fallback) and of the
  statistical aligner trained on the full MRPC, with intersection and with grow-diag-final.
`--ibm N` adds NLTK's IBM model 1 trained on the first N pairs plus the gold pairs (pure Python; the
full MRPC takes minutes), for comparison.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotator.core.aligner import identical_token_alignment  # noqa: E402
from annotator.core.statistical_aligner import AlignerSettings, alignment_quality, train_and_align  # noqa: E402
from annotator.corpus.imports.mrpc import parse_mrpc  # noqa: E402

MRPC = ROOT.parent / "shared" / "corpora" / "mrpc"
FILES = ["msr_paraphrase_train.txt", "msr_paraphrase_test.txt"]
GOLD = ROOT / "tests" / "fixtures" / "mrpc_gold_alignments.json"
TARGET = 30.0


def mrpc_pairs() -> tuple[list[str], list[tuple[list[str], list[str]]]]:
    ids, pairs = [], []
    for name in FILES:
        for record in parse_mrpc((MRPC / name).read_bytes(), name).records:
            ids.append(record.source_id)
            pairs.append((record.tokens1, record.tokens2))
    return ids, pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ibm", type=int, default=0, help="also IBM model 1 on the first N pairs")
    args = parser.parse_args()
    if not MRPC.exists():
        print(f"skipped: {MRPC} not found (the MRPC corpus is not on this machine)")
        return 0
    ids, pairs = mrpc_pairs()
    gold = json.loads(GOLD.read_text())["pairs"]
    where = {pid: n for n, pid in enumerate(ids)}
    for g in gold:
        assert pairs[where[g["id"]]] == (g["tokens1"], g["tokens2"]), f"gold pair {g['id']}: tokens differ"
    sure = [{tuple(link) for link in g["sure"]} for g in gold]
    possible = [{tuple(link) for link in g["possible"]} for g in gold]
    rows = []

    predicted = [identical_token_alignment(g["tokens1"], g["tokens2"]) for g in gold]
    rows.append(("identical-token matcher (fallback)", None, alignment_quality(predicted, sure, possible)))
    for method in ("intersection", "grow-diag-final"):
        started = time.perf_counter()
        aligned = train_and_align(pairs, AlignerSettings(symmetrize=method))
        seconds = time.perf_counter() - started
        predicted = [aligned[where[g["id"]]] for g in gold]
        rows.append((f"eflomal, {method}", seconds, alignment_quality(predicted, sure, possible)))
    if args.ibm:
        subset = pairs[: args.ibm] + [(g["tokens1"], g["tokens2"]) for g in gold]
        started = time.perf_counter()
        aligned = train_and_align(subset, AlignerSettings(backend="ibm1"))
        seconds = time.perf_counter() - started
        predicted = aligned[args.ibm :]
        rows.append(
            (
                f"NLTK IBM 1, intersection ({len(subset)} pairs)",
                seconds,
                alignment_quality(predicted, sure, possible),
            )
        )

    print(f"Word aligner: training + aligning {len(pairs):,} MRPC pairs; quality on {len(gold)} gold pairs")
    print(f"({sum(map(len, sure))} sure + {sum(map(len, possible))} possible links)\n")
    print("| aligner | train + align (s) | precision | recall | AER |")
    print("|---|---|---|---|---|")
    for name, seconds, q in rows:
        time_cell = "—" if seconds is None else f"{seconds:.1f}"
        print(f"| {name} | {time_cell} | {q.precision:.3f} | {q.recall:.3f} | {q.aer:.3f} |")
    best = next(s for name, s, _ in rows if name == "eflomal, intersection")
    ok = best is not None and best <= TARGET
    print(f"\ntarget: ≤ {TARGET:.0f} s for the full MRPC: {'met' if ok else 'MISSED'} ({best:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
