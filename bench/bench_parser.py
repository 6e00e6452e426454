"""Benchmark of automatic phrase structure (issue 13): parse the 11,602 MRPC members.

    .venv/bin/python bench/bench_parser.py [--limit N]

Tokens as the workbench's MRPC import makes them; trees from `annotator.core.auto_trees` (spaCy's
en_core_web_sm dependency parse → phrase structure by head projection), each checked to have exactly
the member's tokens as leaves. Prints the wall time, the time per sentence and the model load time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotator.core.auto_trees import ParserUnavailable, _spacy, parse_members  # noqa: E402
from annotator.core.trees import tree_nodes  # noqa: E402
from annotator.corpus.imports.mrpc import parse_mrpc  # noqa: E402

MRPC = ROOT.parent / "shared" / "corpora" / "mrpc"
FILES = ["msr_paraphrase_train.txt", "msr_paraphrase_test.txt"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="parse only the first N members")
    args = parser.parse_args()
    if not MRPC.exists():
        print(f"skipped: {MRPC} not found (the MRPC corpus is not on this machine)")
        return 0
    members = []
    for name in FILES:
        for record in parse_mrpc((MRPC / name).read_bytes(), name).records:
            members += [record.tokens1, record.tokens2]
    if args.limit:
        members = members[: args.limit]
    started = time.perf_counter()
    try:
        _spacy()
    except ParserUnavailable as exc:
        print(f"skipped: {exc}")
        return 0
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    trees = parse_members(members)
    seconds = time.perf_counter() - started
    for tree, tokens in zip(trees, members, strict=True):
        tree_nodes(tree, tokens)
    n_tokens = sum(map(len, members))
    print(
        f"Automatic trees of {len(members):,} MRPC members ({n_tokens:,} tokens), parser spacy (en_core_web_sm)\n"
    )
    print("| measure | figure |")
    print("|---|---|")
    print(f"| model load | {loaded:.1f} s |")
    print(f"| parse + convert, wall | {seconds:.1f} s |")
    print(f"| per sentence | {1000 * seconds / len(members):.2f} ms |")
    print(f"| trees whose leaves are the tokens | {len(trees):,} of {len(members):,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
