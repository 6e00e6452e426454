"""The explorer's refresh reads a project a batch of pairs at a time: the rows it stores equal those
computed from the whole project's document at once, and its memory does not grow with the project."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

from annotator.leadtools import disagreement, explorer_rows
from annotator.models import Assignment, ExplorerState, ExplorerValue, Pair, PairLabel, Project
from tests import make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

STORED = ("order", "source_rank", "compared_rank", "label_rank", "do_f1_rank", "do_f1", "alignment_f1", "labels", "row")  # fmt: skip


def _from_the_whole_document(
    project: Project,
) -> tuple[dict[tuple[str, str, str], tuple[Any, ...]], dict[str, Any]]:
    """(source id, annotators, type) → the stored columns, and the state's facts, computed from the rows
    of the whole project's document (`disagreement.project_rows`) and `DrawRanks`."""
    _, rows = disagreement.project_rows(project)
    keys = disagreement.annotator_pairs(rows.values())
    ranks = explorer_rows.DrawRanks.of(rows)
    expected = {}
    for order, (sid, row) in enumerate(rows.items()):
        who = row["annotators"]
        pairs = [""] + [f"{a}|{b}" for n, a in enumerate(who) for b in who[n + 1 :] if f"{a}|{b}" in keys]
        for annotators in pairs:
            for ptype in ["", *row["types"]]:
                whole = not annotators and not ptype
                values = [disagreement.row_value(row, m, annotator_pair=annotators, ptype=ptype) for m in ("do_f1", "alignment_f1", "labels")]  # fmt: skip
                expected[sid, annotators, ptype] = (
                    order,
                    ranks.source[sid],
                    ranks.compared.get(sid) if whole else None,
                    ranks.labels.get(sid) if whole else None,
                    ranks.do_f1.get(sid) if whole else None,
                    *values,
                    dict(row) if whole else None,
                )
    facts = {
        "annotator_pairs": keys,
        "types": sorted({t for row in rows.values() for t in row["types"]}),
        "n_compared": len(ranks.compared),
        "n_labels_differ": ranks.n_labels_differ,
    }
    return expected, facts


def test_rows_stored_batch_by_batch_equal_those_of_the_whole_document(monkeypatch):
    world = make.team(n_pairs=7)
    project = world["project"]
    # a pair with one annotator's label only, and the source ids out of position order
    Pair.objects.filter(project=project, source_id="p7").update(source_id="a7")
    PairLabel.objects.filter(pair__project=project, pair__source_id="a7").exclude(
        annotator=world["anna"]
    ).delete()
    Assignment.objects.filter(project=project, pair__source_id="a7").exclude(annotator=world["anna"]).delete()
    expected, facts = _from_the_whole_document(project)
    monkeypatch.setattr(explorer_rows, "BATCH", 2)
    stored = explorer_rows.refresh(project)
    got = {
        (v.pair.source_id, v.annotators, v.ptype): tuple(getattr(v, f) for f in STORED)
        for v in ExplorerValue.objects.filter(project=project).select_related("pair")
    }
    assert stored == len(got) == len(expected)
    assert got == expected
    state = ExplorerState.objects.get(project=project)
    assert {k: getattr(state, k) for k in facts} == facts
    monkeypatch.setattr(explorer_rows, "BATCH", 5000)
    explorer_rows.refresh(project)
    assert ExplorerState.objects.get(project=project).counts == state.counts


def _labelled_project(name: str, n: int) -> Project:
    """n pairs, each labelled by anna and ben (differing on every third) and done by both."""
    c = make.cast()
    project = make.project_with_pairs(
        name, n_pairs=n, lead=c.lead, annotators=(c.anna, c.ben), layer_pair_label=True
    )
    pairs = list(Pair.objects.filter(project=project))
    for who in (c.anna, c.ben):
        PairLabel.objects.bulk_create(
            PairLabel(pair=p, annotator=who, label="non_paraphrase" if who == c.ben and p.position % 3 == 0 else "paraphrase")
            for p in pairs
        )  # fmt: skip
        Assignment.objects.filter(project=project, annotator=who).update(status=Assignment.Status.DONE)
    return project


def _peak_bytes(project: Project) -> int:
    tracemalloc.start()
    try:
        explorer_rows.refresh(project)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_refreshs_memory_does_not_grow_with_the_project(monkeypatch):
    monkeypatch.setattr(explorer_rows, "BATCH", 100)
    small, large = _labelled_project("Small", 300), _labelled_project("Large", 1500)
    _peak_bytes(small)  # imports and caches warmed
    small_peak, large_peak = _peak_bytes(small), _peak_bytes(large)
    assert ExplorerValue.objects.filter(project=large, annotators="", ptype="").count() == 1500
    assert large_peak < 1.5 * small_peak, (small_peak, large_peak)
