"""Incremental recomputation equals the full computation exactly (spec §2–4 measures)."""

from __future__ import annotations

import dataclasses

import numpy as np

from metrics.incremental import PhenomenaAgreement
from metrics.synthetic import synthetic_document
from metrics.types import Phenomenon


def full(phenomena, doc):
    return PhenomenaAgreement(
        phenomena, annotators=doc.annotators, tagset=doc.tagset, pairs=[p.id for p in doc.pairs]
    )


def test_changing_one_pair_gives_exactly_the_full_result():
    doc = synthetic_document(n_pairs=60, n_annotators=3, seed=3, with_alignments=False)
    state = full(doc.phenomena, doc)
    rng = np.random.default_rng(0)
    phenomena = {a: list(xs) for a, xs in doc.phenomena.items()}
    for step in range(5):
        pid = doc.pairs[int(rng.integers(0, len(doc.pairs)))].id
        new: dict[str, list[Phenomenon]] = {}
        for a in doc.annotators:
            mine = [x for x in phenomena[a] if x.pair == pid]
            if step % 2 == 0 and mine:
                mine = mine[1:]  # delete one
            elif mine:
                mine.append(dataclasses.replace(mine[0], s1=frozenset({0, 1}), projection="global"))
            new[a] = mine
            phenomena[a] = [x for x in phenomena[a] if x.pair != pid] + mine
        state.update_pair(pid, new)
        assert state.report() == full(phenomena, doc).report()


def test_removing_every_phenomenon_of_a_pair():
    doc = synthetic_document(n_pairs=10, n_annotators=2, seed=1, with_alignments=False)
    state = full(doc.phenomena, doc)
    state.update_pair(doc.pairs[0].id, {})
    rest = {a: [x for x in xs if x.pair != doc.pairs[0].id] for a, xs in doc.phenomena.items()}
    assert state.report() == full(rest, doc).report()


def test_one_annotators_change_among_many_gives_exactly_the_full_result():
    """With many annotators only the annotator pairs of the one who changed are recomputed; the
    report still equals a fresh computation after every step, including steps that change nothing."""
    doc = synthetic_document(n_pairs=12, n_annotators=7, seed=5, with_alignments=False)
    state = full(doc.phenomena, doc)
    state.report()  # aggregates cached from here on
    rng = np.random.default_rng(1)
    phenomena = {a: list(xs) for a, xs in doc.phenomena.items()}
    for step in range(12):
        pid = doc.pairs[int(rng.integers(0, len(doc.pairs)))].id
        who = doc.annotators[int(rng.integers(0, len(doc.annotators)))]
        new = {a: [x for x in phenomena[a] if x.pair == pid] for a in doc.annotators}
        mine = new[who]
        if step % 3 == 0 and mine:
            new[who] = mine[1:]
        elif step % 3 == 1:
            template = next((x for xs in doc.phenomena.values() for x in xs), None)
            assert template is not None
            new[who] = [*mine, dataclasses.replace(template, pair=pid, s1=frozenset({step % 4}))]
        # step % 3 == 2: the same phenomena again, nothing changes
        phenomena[who] = [x for x in phenomena[who] if x.pair != pid] + new[who]
        state.update_pair(pid, {a: xs for a, xs in new.items() if xs})
        assert state.report() == full(phenomena, doc).report()


def test_making_phenomena_one_sided_gives_exactly_the_full_result():
    """Spec 1.1: the DO factor a follows each phenomenon's scopes, also in a recomputed row."""
    doc = synthetic_document(n_pairs=8, n_annotators=3, seed=7, with_alignments=False)
    state = full(doc.phenomena, doc)
    before = state.report()["iapta.do.f1"]
    pid = doc.pairs[0].id
    phenomena = {a: list(xs) for a, xs in doc.phenomena.items()}
    new = {}
    for a in doc.annotators:
        new[a] = [
            dataclasses.replace(x, s2=frozenset()) if x.s1 else x for x in phenomena[a] if x.pair == pid
        ]
        phenomena[a] = [x for x in phenomena[a] if x.pair != pid] + new[a]
    state.update_pair(pid, new)
    after = state.report()
    assert after == full(phenomena, doc).report()
    assert after["iapta.do.f1"] != before


def test_tables_keep_rows_only_for_pairs_with_phenomena_as_pairs_gain_and_lose_them():
    """A table of two annotators holds a row per pair either has phenomena on, not per corpus pair: a
    pair that gains its first phenomenon gets a row, one that loses its last loses it, and the report
    equals a fresh computation at every step (rows inserted and deleted in document order)."""
    doc = synthetic_document(n_pairs=40, n_annotators=4, seed=7, with_alignments=False)
    rng = np.random.default_rng(2)
    # each annotator has phenomena on about a third of the pairs: most rows of each table are absent
    phenomena = {a: [x for x in xs if rng.random() < 0.35] for a, xs in doc.phenomena.items()}
    state = full(phenomena, doc)
    state.report()
    for step in range(30):
        pid = doc.pairs[int(rng.integers(0, len(doc.pairs)))].id
        who = doc.annotators[int(rng.integers(0, len(doc.annotators)))]
        new = {a: [x for x in phenomena[a] if x.pair == pid] for a in doc.annotators}
        new[who] = [] if new[who] and step % 3 else [x for x in doc.phenomena[who] if x.pair == pid]
        phenomena[who] = [x for x in phenomena[who] if x.pair != pid] + new[who]
        state.update_pair(pid, new)
        fresh = full(phenomena, doc)
        assert state.report() == fresh.report()
        for key, table in state.tables.items():
            with_phenomena = {x.pair for a in key for x in phenomena[a]}
            assert [table.pairs[p] for p in table.positions] == [
                p.id for p in doc.pairs if p.id in with_phenomena
            ]
            assert np.array_equal(table.cells, fresh.tables[key].cells)
            assert np.array_equal(table.pair_values, fresh.tables[key].pair_values, equal_nan=True)


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


def _updated_states(n_states: int) -> list[PhenomenaAgreement]:
    """Identical states in which several annotators changed several pairs (stale rows in many tables)."""
    doc = synthetic_document(n_pairs=25, n_annotators=6, seed=12, with_alignments=False)
    states = [full(doc.phenomena, doc) for _ in range(n_states)]
    rng = np.random.default_rng(6)
    phenomena = {a: list(xs) for a, xs in doc.phenomena.items()}
    for _ in range(8):
        pid = doc.pairs[int(rng.integers(0, len(doc.pairs)))].id
        who = doc.annotators[int(rng.integers(0, len(doc.annotators)))]
        new = {a: [x for x in phenomena[a] if x.pair == pid] for a in doc.annotators}
        new[who] = new[who][1:] if len(new[who]) > 1 else [*new[who], *(phenomena[doc.annotators[0]][:1])]
        new[who] = [dataclasses.replace(x, pair=pid) for x in new[who]]
        for state in states:
            state.update_pair(pid, new)
    return states


def test_stale_rows_derived_in_one_batch_equal_each_table_derived_alone():
    from metrics.iapta import aggregate, aggregate_many

    alone, batched = _updated_states(2)
    assert any(t._stale for t in batched.tables.values())
    assert [aggregate(t) for t in alone.tables.values()] == aggregate_many(list(batched.tables.values()))


def test_report_holds_plain_json_values_only():
    """The report is stored as it is (no conversion pass): plain dicts, str keys, int/float/None/str
    values, no NaN or infinity, no numpy scalar."""
    import json
    import math

    (state,) = _updated_states(1)
    report = state.report()

    def check(value, where="report"):
        if type(value) is dict:
            for k, v in value.items():
                assert type(k) is str, where
                check(v, f"{where}.{k}")
        else:
            assert value is None or type(value) in (int, float, str), f"{where}: {type(value).__name__}"
            assert type(value) is not float or math.isfinite(value), where

    check(report)
    json.dumps(report, allow_nan=False)


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
