"""`PhenomenaAgreement`'s aggregation: many tables at once equal each alone, exact column sums."""

from __future__ import annotations

import numpy as np

from metrics.phenomena import PhenomenaAgreement
from metrics.synthetic import synthetic_document


def full(phenomena, doc):
    return PhenomenaAgreement(
        phenomena, annotators=doc.annotators, tagset=doc.tagset, pairs=[p.id for p in doc.pairs]
    )


def test_aggregating_many_tables_at_once_gives_each_tables_own_aggregate_exactly():
    """The per-type arithmetic of a batch of tables runs on their stack: the measures equal those of
    each table aggregated alone, bit for bit (tables of many sizes, some empty)."""
    from metrics.iapta import aggregate, aggregate_many

    doc = synthetic_document(n_pairs=30, n_annotators=6, seed=11, with_alignments=False)
    rng = np.random.default_rng(4)
    phenomena = {
        a: [x for x in xs if rng.random() < (n + 1) / 7] for n, (a, xs) in enumerate(doc.phenomena.items())
    }
    phenomena[doc.annotators[0]] = []  # an annotator with nothing: tables of only one side's rows
    state = full({a: xs for a, xs in phenomena.items()}, doc)
    tables = list(state.tables.values())
    assert [aggregate(t) for t in tables] == aggregate_many(tables)


def test_exact_column_sums_equal_the_exact_sum_of_each_value():
    """The vectorised exact sums (made when a table is first changed) equal adding each value's exact
    integer, and round to `math.fsum`'s sum: NaN skipped, zeros, negatives, tiny and subnormal values."""
    import math

    from metrics.iapta import _exact_column_sums, _exact_float, _exact_int

    rng = np.random.default_rng(0)
    for trial in range(200):
        n, c = int(rng.integers(0, 300)), int(rng.integers(1, 6))
        a = rng.random((n, c)) * rng.choice([1, 3, 1e-5, 17, 1e-300], size=(1, c))
        a[rng.random((n, c)) < 0.2] = np.nan
        a[rng.random((n, c)) < 0.2] = 0.0
        if n and trial % 7 == 0:
            a[0, 0], a[-1, -1] = 5e-324, -0.25
        totals, defined = _exact_column_sums(a)
        for j in range(c):
            column = [x for x in a[:, j].tolist() if x == x]
            assert totals[j] == sum(map(_exact_int, column))
            assert defined[j] == len(column)
            assert _exact_float(totals[j]) == math.fsum(column)
