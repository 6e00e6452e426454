"""The integer sufficient statistics the incremental agreement state sums give the same values as the
measures computed from the ratings: Cohen's κ from confusion counts (bit for bit), pair-label counts
kept up to date by adding and removing pairs equal counts summed afresh, word-alignment counts per
document pair summed equal the report's."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.alignment import alignment_counts_by_pair, alignment_report, alignment_report_from_counts
from metrics.kappa import cohen_kappa, cohen_kappa_from_confusion
from metrics.pair_labels import PairLabelCounts, pair_label_report_from_counts
from metrics.synthetic import synthetic_document

labels = st.sampled_from(["p", "n", "x"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(labels, labels), min_size=1, max_size=40))
def test_cohen_from_confusion_equals_cohen_from_ratings(items):
    confusion: dict[tuple[str, str], int] = {}
    for x, y in items:
        confusion[x, y] = confusion.get((x, y), 0) + 1
    assert cohen_kappa_from_confusion(confusion) == cohen_kappa([x for x, _ in items], [y for _, y in items])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from("ABC"), labels), min_size=1, max_size=12), st.randoms())
def test_pair_label_counts_updated_equal_counts_summed_afresh(pairs, rnd):
    kept = PairLabelCounts("ABC")
    for given_ in pairs:
        kept.add(given_)
    changed = list(range(len(pairs)))
    rnd.shuffle(changed)
    now = list(pairs)
    for k in changed[: len(changed) // 2]:
        kept.add(now[k], -1)
        now[k] = {a: rnd.choice("pnx") for a in "ABC" if rnd.random() < 0.7}
        kept.add(now[k])
    fresh = PairLabelCounts("ABC")
    for given_ in now:
        fresh.add(given_)
    assert kept.as_json() == fresh.as_json()
    assert pair_label_report_from_counts(kept) == pair_label_report_from_counts(fresh)


def test_alignment_counts_per_pair_sum_to_the_report():
    doc = synthetic_document(
        n_pairs=30, n_annotators=3, phenomena_per_pair=2, seed=random.Random(3).randint(0, 99)
    )
    by_pair = alignment_counts_by_pair(doc)
    totals: dict = {}
    for counts in by_pair.values():
        for key, by in counts.items():
            cell = totals.setdefault(key, {})
            for name, c in by.items():
                cell[name] = cell[name] + c if name in cell else c
    assert alignment_report_from_counts(totals, doc.annotators) == alignment_report(doc)
