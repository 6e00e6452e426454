"""Benchmark of the automatic word aligner: quality on hand-aligned gold, speed and reproducibility on
the full MRPC.

    .venv/bin/python bench/bench_aligner.py [--no-ablation] [--part tune|held-aside] [--ibm N] [--keys]

Prints, for each aligner, on the `tune` and the `held-aside` parts of the hand-aligned gold
(tests/fixtures/mrpc_gold_alignments.json; conventions and parts in its .md; `--part` prints one of
them only, so that settings can be tried without reading the held-aside figures):
- precision, recall and AER (Och & Ney 2003) against the sure and possible links;
- recall on the sure links between different words (tokens that differ after case folding), as
  found / all: the links whose suggestion saves an annotator work;
- for the default (the posterior aligner) also at the project's default confidence threshold
  (`DEFAULT_SUGGESTION_THRESHOLD`): the links shown strongly;
- phrase level: precision and recall of the atomic phrase pairs (Cohn et al. 2008) of each aligner's
  links against those of the gold sure links;
then the wall time of training + aligning all 5,801 MRPC pairs with the default (target ≤ 10 s), and
whether two runs gave the same links and confidences. The default's link scorer is fitted on the
tune part (bench/fit_link_weights.py), so its tune figures there are the fit's own; a second table
gives the tune part by 6-fold cross-validation (weights fitted on the other folds), for the default
and, unless `--no-ablation`, for the default with each piece of evidence taken out and its weights
fitted again (the table of docs/aligner.md), with the held-aside figures of weights fitted on the
whole tune part. `--ibm N` adds NLTK's IBM model 1 trained
on the first N pairs plus the gold pairs (pure Python, slow).

Last, the key presses that bring ten held-aside gold pairs to their gold links in Chromium, keyboard
only, without and with the default suggestions, and their ratio: measured by
tests/browser/test_keypresses_saved.py (`--keys` runs it, about four minutes), read from
artifacts/keypresses.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")

import django  # noqa: E402

django.setup()  # the project's default threshold is read from its models

from fit_link_weights import (  # noqa: E402
    GOLD,
    MRPC,
    cross_validation,
    different_word_recall,
    figures,
    fit,
    mrpc_pairs,
    tune_examples,
)

from annotator.core import link_scorer  # noqa: E402
from annotator.core.aligner import identical_token_alignment  # noqa: E402
from annotator.core.atomic_phrases import atomic_phrase_pairs  # noqa: E402
from annotator.core.posterior_aligner import PosteriorSettings, align_scored, decode_pairs, pair_evidence  # noqa: E402
from annotator.core.statistical_aligner import AlignerSettings, alignment_quality, train_and_align  # noqa: E402
from annotator.models.corpus import DEFAULT_SUGGESTION_THRESHOLD  # noqa: E402

KEYPRESSES = ROOT / "artifacts" / "keypresses.json"
KEYPRESS_TEST = "tests/browser/test_keypresses_saved.py"
TARGET = 10.0
FOLDS = 6
PARTS = ("tune", "held-aside")
#: The default with one piece taken out: (settings changed, features left out of the link scorer).
#: Each row's weights are fitted again on the tune part with that piece out.
ABLATIONS: dict[str, tuple[dict[str, object], tuple[str, ...]]] = {
    "no lemma / inflection evidence": ({"lemmas": False}, ()),
    "no numbers and names": ({"numbers_names": False}, ()),
    "no derivational stems": ({"stems": False}, ()),
    "no priors in EM (evidence only in the scorer)": (
        {"identity_prior": 0.0, "variant_prior": 0.0, "stem_prior": 0.0, "wordnet_prior": 0.0},
        (),
    ),
    "no WordNet synonyms and broader terms": ({"wordnet": False}, ()),
    "no acronyms": ({"acronyms": False}, ()),
    **{f"no {group}": ({}, features) for group, features in link_scorer.GROUPS.items()},
}


def phrase_quality(gold: Sequence[dict], predicted: Sequence[Sequence[Sequence[int]]]) -> tuple[float, float]:
    hits = n_pred = n_gold = 0
    for g, links in zip(gold, predicted, strict=True):
        mine, theirs = atomic_phrase_pairs(links), atomic_phrase_pairs(g["sure"])
        hits += len(mine & theirs)
        n_pred += len(mine)
        n_gold += len(theirs)
    return (hits / n_pred if n_pred else float("nan"), hits / n_gold if n_gold else float("nan"))


def cells(gold: Sequence[dict], predicted: Sequence[Sequence[Sequence[int]]]) -> str:
    q = alignment_quality(predicted, [g["sure"] for g in gold], [g["possible"] for g in gold])
    found, total = different_word_recall(gold, predicted)
    pp, pr = phrase_quality(gold, predicted)
    return f"{q.precision:.3f} | {q.recall:.3f} | {q.aer:.3f} | {found}/{total} | {pp:.2f} / {pr:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-ablation", action="store_true", help="skip the ablation rows")
    parser.add_argument("--ibm", type=int, default=0, help="also IBM model 1 on the first N pairs")
    parser.add_argument("--keys", action="store_true", help=f"run {KEYPRESS_TEST} first (Chromium)")
    parser.add_argument("--part", choices=PARTS, help="print the figures of this part only")
    args = parser.parse_args()
    if not MRPC.exists():
        print(f"skipped: {MRPC} not found (the MRPC corpus is not on this machine)")
        return 0
    ids, pairs = mrpc_pairs()
    gold = json.loads(GOLD.read_text())["pairs"]
    where = {pid: n for n, pid in enumerate(ids)}
    for g in gold:
        assert pairs[where[g["id"]]] == (g["tokens1"], g["tokens2"]), f"gold pair {g['id']}: tokens differ"
    parts = {part: [g for g in gold if g["part"] == part] for part in PARTS if args.part in (None, part)}
    rows: list[tuple[str, Callable[[dict], list[list[int]]]]] = []

    rows.append(
        (
            "identical-token matcher (fallback)",
            lambda g: identical_token_alignment(g["tokens1"], g["tokens2"]),
        )
    )
    eflomal_seconds = 0.0
    for method in ("intersection", "grow-diag-final"):
        started = time.perf_counter()
        aligned = train_and_align(pairs, AlignerSettings(backend="eflomal", symmetrize=method))
        if method == "intersection":
            eflomal_seconds = time.perf_counter() - started
        rows.append((f"eflomal, {method} (one unseeded run)", lambda g, a=aligned: a[where[g["id"]]]))

    started, cpu = time.perf_counter(), time.process_time()
    scored = align_scored(pairs, PosteriorSettings())
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    again = align_scored(pairs, PosteriorSettings())
    same = again == scored
    rows.append(
        (
            "**posterior, learned link scorer (default), every link**",
            lambda g: [link[:2] for link in scored[where[g["id"]]]],
        )
    )
    rows.append(
        (
            f"posterior, links with confidence ≥ {DEFAULT_SUGGESTION_THRESHOLD} (shown strongly)",
            lambda g: [
                link[:2] for link in scored[where[g["id"]]] if link[2] >= DEFAULT_SUGGESTION_THRESHOLD
            ],
        )
    )
    rules = align_scored(pairs, PosteriorSettings(decoder="rules"))
    rows.append(
        ("posterior, hand-set rules per kind of link", lambda g: [link[:2] for link in rules[where[g["id"]]]])
    )
    ablation: list[tuple[str, str]] = []
    default_evidence = pair_evidence(pairs, PosteriorSettings())
    configurations = {"default": ({}, ())} | ({} if args.no_ablation else ABLATIONS)
    for name, (change, without) in configurations.items():
        settings = dataclasses.replace(PosteriorSettings(), **change)
        evidence = pair_evidence(pairs, settings) if change else default_evidence
        tune_gold, tune_evidence = tune_examples(trained=(ids, pairs, evidence))
        p, r, aer, found, total = figures(
            tune_gold, cross_validation(tune_gold, tune_evidence, FOLDS, settings, without=without)
        )
        row = f"{aer:.3f} | {p:.3f} / {r:.3f} | {found}/{total}"
        if "held-aside" in parts:
            weights = fit(tune_gold, tune_evidence, without=without)
            ablated = decode_pairs(pairs, evidence, settings, weights=weights)
            held = parts["held-aside"]
            p, r, aer, found, total = figures(
                held, [[link[:2] for link in ablated[where[g["id"]]]] for g in held]
            )
            row += f" | {aer:.3f} | {p:.3f} / {r:.3f} | {found}/{total}"
        ablation.append((name, row))
    if args.ibm:
        subset = pairs[: args.ibm] + [(g["tokens1"], g["tokens2"]) for g in gold]
        ibm = train_and_align(subset, AlignerSettings(backend="ibm1"))
        at = {g["id"]: args.ibm + n for n, g in enumerate(gold)}
        rows.append((f"NLTK IBM 1, intersection ({len(subset)} pairs)", lambda g, a=ibm: a[at[g["id"]]]))

    print(f"Word aligner: trained on the {len(pairs):,} MRPC pairs; scored on {len(gold)} hand-aligned pairs")
    for part, pg in parts.items():
        n_sure = sum(len(g["sure"]) for g in pg)
        n_possible = sum(len(g["possible"]) for g in pg)
        print(f"- {part}: {len(pg)} pairs, {n_sure} sure + {n_possible} possible links")
    for part, pg in parts.items():
        print(f"\n### {part}\n")
        print("| aligner | precision | recall | AER | different-word sure links found | phrase P / R |")
        print("|---|---|---|---|---|---|")
        for name, predict in rows:
            print(f"| {name} | {cells(pg, [predict(g) for g in pg])} |")
    print(
        f"\n### the default with one piece out, its weights fitted again on the tune part\n\n"
        f"(tune: {FOLDS}-fold cross-validation, weights fitted on the other folds"
        + ("; held-aside: weights fitted on the whole tune part)" if "held-aside" in parts else ")")
        + "\n"
    )
    heads = ["tune AER", "tune P / R", "tune different-word"]
    if "held-aside" in parts:
        heads += ["held-aside AER", "held-aside P / R", "held-aside different-word"]
    print(f"| configuration | {' | '.join(heads)} |\n|---|{'---|' * len(heads)}")
    for name, row in ablation:
        print(f"| {name} | {row} |")
    ok = seconds <= TARGET
    load = os.getloadavg()[0]
    print(
        f"\ntraining + aligning the full MRPC with the default: {seconds:.1f} s wall, {cpu:.1f} s CPU "
        f"(target ≤ {TARGET:.0f} s wall: {'met' if ok else 'MISSED'}); eflomal, intersection: "
        f"{eflomal_seconds:.1f} s wall; load average {load:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"two runs of the default on the same corpus: {'identical links and confidences' if same else 'DIFFER'}"
    )
    if args.keys:
        subprocess.run([sys.executable, "-m", "pytest", KEYPRESS_TEST, "-q"], cwd=ROOT, check=True)
    print_keypresses()
    return 0


def print_keypresses() -> None:
    if not KEYPRESSES.exists():
        print(f"key presses: not measured (run with --keys, or pytest {KEYPRESS_TEST})")
        return
    k = json.loads(KEYPRESSES.read_text())
    none, default = k["none"], k["default"]
    print(
        f"key presses to reach the gold links of {len(k['pairs'])} held-aside pairs, keyboard only: "
        f"{none['key_presses']} from no suggestion ({none['seconds']} s), {default['key_presses']} from the "
        f"default suggestions ({default['seconds']} s; {default['accept_all_presses']} of them reach and press "
        f"Accept all): ratio {k['ratio']:.2f}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
