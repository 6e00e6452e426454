"""Pairwise measures with a PairwiseMemo equal a fresh computation after every kind of change."""

from __future__ import annotations

import dataclasses

import numpy as np

from metrics.alignment import alignment_report
from metrics.chance import kappa_c_report, kappa_c_work
from metrics.memo import PairwiseMemo
from metrics.synthetic import synthetic_document
from metrics.types import WordAlignment


def _changed(doc, rng, step):
    """The document with one annotator's alignment of one pair changed (or removed, or kept)."""
    wa = {a: dict(pairs) for a, pairs in doc.word_alignments.items()}
    who = doc.annotators[int(rng.integers(0, len(doc.annotators)))]
    pid = doc.pairs[int(rng.integers(0, len(doc.pairs)))].id
    if step % 4 == 0:
        wa[who].pop(pid, None)  # the annotator no longer aligned the pair
    elif step % 4 == 1:
        old = wa[who].get(pid, WordAlignment(frozenset(), frozenset()))
        link = (int(rng.integers(0, 5)), int(rng.integers(0, 5)))
        wa[who][pid] = WordAlignment(old.S | {link}, old.P | {link})
    elif step % 4 == 2:
        old = wa[who].get(pid, WordAlignment(frozenset(), frozenset()))
        wa[who][pid] = WordAlignment(frozenset(), old.P)  # every sure link becomes possible
    # step % 4 == 3: nothing changes
    return dataclasses.replace(doc, word_alignments=wa)


def test_reports_with_a_memo_equal_fresh_reports_step_after_step():
    doc = synthetic_document(n_pairs=6, n_annotators=5, words=6, seed=2)
    doc = dataclasses.replace(doc, options=dataclasses.replace(doc.options, mc_samples=40))
    alignment_memo, kappa_memo = PairwiseMemo(), PairwiseMemo()
    rng = np.random.default_rng(4)
    for step in range(10):
        assert alignment_report(doc, memo=alignment_memo) == alignment_report(doc)
        assert kappa_c_report(doc, memo=kappa_memo) == kappa_c_report(doc)
        doc = _changed(doc, rng, step)


def test_only_the_changed_annotators_pairs_are_computed_again():
    doc = synthetic_document(n_pairs=4, n_annotators=6, words=6, seed=3)
    doc = dataclasses.replace(doc, options=dataclasses.replace(doc.options, mc_samples=20))
    memo = PairwiseMemo()
    kappa_c_report(doc, memo=memo)
    assert kappa_c_work(doc, memo) == 0
    kept = dict(memo.per_pair)
    wa = {a: dict(pairs) for a, pairs in doc.word_alignments.items()}
    who, pid = doc.annotators[2], doc.pairs[0].id
    wa[who][pid] = WordAlignment(frozenset(), frozenset())
    changed = dataclasses.replace(doc, word_alignments=wa)
    items_of_who = sum(
        len(wa[a].keys() & wa[b].keys()) for a, b in changed.annotator_pairs() if who in (a, b)
    )
    assert kappa_c_work(changed, memo) == items_of_who * 20
    kappa_c_report(changed, memo=memo)
    for (a, b), result in memo.per_pair.items():
        if who not in (a, b):
            assert result is kept[a, b]  # reused, not recomputed
    # other options: nothing can be reused
    reseeded = dataclasses.replace(changed, options=dataclasses.replace(changed.options, mc_seed=9))
    assert kappa_c_work(reseeded, memo) == kappa_c_work(reseeded)
    assert kappa_c_report(reseeded, memo=memo) == kappa_c_report(reseeded)


def test_an_annotator_who_leaves_drops_their_pairs():
    doc = synthetic_document(n_pairs=3, n_annotators=4, words=5, seed=1)
    memo = PairwiseMemo()
    alignment_report(doc, memo=memo)
    gone = doc.annotators[1]
    fewer = dataclasses.replace(
        doc, word_alignments={a: v for a, v in doc.word_alignments.items() if a != gone}
    )
    assert alignment_report(fewer, memo=memo) == alignment_report(fewer)
    assert all(gone not in key for key in memo.per_pair) and gone not in memo.per_annotator


def test_pairs_without_initial_alignment_need_no_monte_carlo():
    doc = synthetic_document(n_pairs=3, n_annotators=3, words=5, seed=1)
    assert kappa_c_work(doc) == 3 * 3 * doc.options.mc_samples  # every annotator pair, every item
    first = dataclasses.replace(doc.pairs[0], initial_alignment=None)
    without = dataclasses.replace(doc, pairs=(first, *doc.pairs[1:]))
    assert kappa_c_work(without) == 0
    assert set(kappa_c_report(without)["kappa_c.reason"]["by_pair"].values()) == {"no_initial_alignment"}
