"""Fit the link scorer's weights on the `tune` part of the hand-aligned gold and write them where the
aligner reads them (annotator/core/link_weights.json).

    .venv/bin/python bench/fit_link_weights.py [--check] [--folds K]

Trains the posterior aligner (default settings) on the 5,801 MRPC pairs, takes the cells of the gold's
`tune` pairs (tests/fixtures/mrpc_gold_alignments.json; the `held-aside` pairs are never read here),
fits `annotator.core.link_scorer.fit_weights` and writes the file. Before that, it prints the figures of
a K-fold cross-validation on the tune pairs (folds by pair): precision, recall, AER and different-word
recall of weights fitted on the other folds, the estimate of what the weights do on pairs they were
not fitted on. ``--check`` writes nothing and fails when the file differs from a fresh fit.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotator.core import link_scorer  # noqa: E402
from annotator.core.posterior_aligner import PosteriorSettings, decode_pairs, pair_evidence  # noqa: E402
from annotator.core.statistical_aligner import alignment_quality  # noqa: E402
from annotator.corpus.imports.mrpc import parse_mrpc  # noqa: E402

MRPC = ROOT.parent / "shared" / "corpora" / "mrpc"
FILES = ["msr_paraphrase_train.txt", "msr_paraphrase_test.txt"]
GOLD = ROOT / "tests" / "fixtures" / "mrpc_gold_alignments.json"
NOTE = (
    "Fitted by bench/fit_link_weights.py on the tune part of tests/fixtures/mrpc_gold_alignments.json, "
    "cells of the posterior aligner trained on the 5,801 MRPC pairs with its default settings."
)


def mrpc_pairs() -> tuple[list[str], list[tuple[list[str], list[str]]]]:
    """The ids and tokens of the 5,801 MRPC pairs, training file first."""
    ids, pairs = [], []
    for name in FILES:
        for record in parse_mrpc((MRPC / name).read_bytes(), name).records:
            ids.append(record.source_id)
            pairs.append((record.tokens1, record.tokens2))
    return ids, pairs


def tune_examples(
    settings: PosteriorSettings | None = None,
    trained: tuple[list[str], list[tuple[list[str], list[str]]], list[link_scorer.PairEvidence | None]]
    | None = None,
) -> tuple[list[dict], list[link_scorer.PairEvidence]]:
    """The gold's tune pairs and their cells, the aligner trained on all MRPC pairs with `settings`
    (or the ids, pairs and cells already `trained`)."""
    if trained is None:
        ids, pairs = mrpc_pairs()
        evidence = pair_evidence(pairs, settings or PosteriorSettings())
    else:
        ids, pairs, evidence = trained
    where = {pid: n for n, pid in enumerate(ids)}
    gold = [g for g in json.loads(GOLD.read_text())["pairs"] if g["part"] == "tune"]
    chosen = []
    for g in gold:
        e = evidence[where[g["id"]]]
        if e is None or pairs[where[g["id"]]] != (g["tokens1"], g["tokens2"]):
            raise SystemExit(f"gold pair {g['id']}: its tokens are not the corpus's")
        chosen.append(e)
    return gold, chosen


def fit(
    gold: list[dict], evidence: list[link_scorer.PairEvidence], **options: object
) -> link_scorer.LinkWeights:
    """The weights fitted on these pairs (`link_scorer.fit_weights`'s defaults, or `options`)."""
    examples = [
        (e, [tuple(x) for x in g["sure"]], [tuple(x) for x in g["possible"]])
        for g, e in zip(gold, evidence, strict=True)
    ]
    return link_scorer.fit_weights(examples, **options)  # type: ignore[arg-type]


def cross_validation(
    gold: list[dict],
    evidence: list[link_scorer.PairEvidence],
    folds: int,
    settings: PosteriorSettings | None = None,
    **options: object,
) -> list[list[list[int]]]:
    """Each tune pair's links by weights fitted on the other folds (folds by the pairs' order of id),
    decoded as `settings` say (acronyms included)."""
    settings = settings or PosteriorSettings()
    order = sorted(range(len(gold)), key=lambda n: gold[n]["id"])
    fold = {n: k % folds for k, n in enumerate(order)}
    predicted: list[list[list[int]]] = [[] for _ in gold]
    for k in range(folds):
        train = [n for n in range(len(gold)) if fold[n] != k]
        weights = fit([gold[n] for n in train], [evidence[n] for n in train], **options)
        for n in range(len(gold)):
            if fold[n] == k:
                g = gold[n]
                links = decode_pairs(
                    [(g["tokens1"], g["tokens2"])], [evidence[n]], settings, weights=weights
                )[0]
                predicted[n] = [[i, j] for i, j, _c in links]
    return predicted


def different_word_recall(
    gold: Sequence[dict], predicted: Sequence[Sequence[Sequence[int]]]
) -> tuple[int, int]:
    """The sure links between different words (tokens that differ after case folding) found, and all."""
    found = total = 0
    for g, links in zip(gold, predicted, strict=True):
        chosen = {(i, j) for i, j in links}
        for i, j in g["sure"]:
            if g["tokens1"][i].casefold() != g["tokens2"][j].casefold():
                total += 1
                found += (i, j) in chosen
    return found, total


def figures(
    gold: Sequence[dict], predicted: Sequence[Sequence[Sequence[int]]]
) -> tuple[float, float, float, int, int]:
    """Precision, recall, AER, and the different-word sure links found and in all."""
    q = alignment_quality(predicted, [g["sure"] for g in gold], [g["possible"] for g in gold])
    return (q.precision, q.recall, q.aer, *different_word_recall(gold, predicted))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the stored weights differ from a fit")
    parser.add_argument("--folds", type=int, default=6)
    args = parser.parse_args()
    if not MRPC.exists():
        print(f"skipped: {MRPC} not found (the MRPC corpus is not on this machine)")
        return 0
    gold, evidence = tune_examples()
    text = link_scorer.weights_json(fit(gold, evidence), NOTE) + "\n"
    if args.check:
        same = link_scorer.WEIGHTS_FILE.exists() and link_scorer.WEIGHTS_FILE.read_text() == text
        print(f"{link_scorer.WEIGHTS_FILE.name}: {'as fitted' if same else 'DIFFERS from a fresh fit'}")
        return 0 if same else 1
    p, r, aer, found, total = figures(gold, cross_validation(gold, evidence, args.folds))
    print(
        f"{args.folds}-fold cross-validation on the {len(gold)} tune pairs: precision {p:.3f}, recall {r:.3f}, "
        f"AER {aer:.3f}, different-word sure links {found}/{total}"
    )
    link_scorer.WEIGHTS_FILE.write_text(text)
    print(f"wrote {link_scorer.WEIGHTS_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
