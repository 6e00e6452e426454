"""The disagreement explorer's stored rows: one page read per request, whatever the project's size.

`disagreement.project_rows` (the one place that reads per-pair agreement results) computes every pair's
row from the whole project; doing that during a request made a 1,000,000-pair project's explorer take
half a minute and gigabytes. Instead `refresh` stores, per pair, the value the explorer orders by for
every choice of its filters (`ExplorerValue`: all annotators or two of them × all types or one), plus the
totals and the filter choices (`ExplorerState`); a request reads `page_size` rows through an index.

The rows are current while `source_mark` — the project's last change mark (`AgreementState.changed_at`,
set by every annotation change), its newest pair and its annotators — is what they were computed
from. When it is not, `ensure_fresh` asks for a refresh (`annotator.refresh_explorer`: at once without
a broker, by a worker with one; the page says "recomputing…" meanwhile and shows the rows it has).
A refresh runs once at a time per project (`refresh_once`, the task's body: a task delivered again while
a live worker refreshes the project leaves it; `annotator.core.run_once`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import F

from annotator import taskqueue
from annotator.core import run_once, sql
from annotator.leadtools import disagreement
from annotator.models import (
    AgreementState,
    ExplorerState,
    ExplorerValue,
    Membership,
    Pair,
    Project,
)

BATCH = 5000
#: Part of the source mark: rows stored by an earlier version (without a column this one reads) are not
#: current, so the first request after an upgrade has them rebuilt.
ROWS_VERSION = "rows3"
REFRESH_TASK = "annotator.refresh_explorer"


def source_mark(project: Project) -> str:
    """What the stored rows must have been computed from to be current: the last annotation change,
    the project's pairs (an import of pairs alone marks no change; pairs are added, never removed
    one by one, so the newest pair's id tells the set apart), the annotators and the rows' version
    (three queries, none of which reads the project's pairs: the newest is the first the primary key's
    or the (project, id) index's backward scan meets)."""
    changed = AgreementState.objects.filter(project=project).values_list("changed_at", flat=True).first()
    newest = Pair.objects.filter(project=project).order_by("-pk").values_list("pk", flat=True).first()
    annotators = Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR).order_by(
        "user_id"
    )
    ids = ",".join(str(pk) for pk in annotators.values_list("user_id", flat=True))
    return f"{ROWS_VERSION};{changed.isoformat() if changed else '-'};{newest or '-'};{ids}"[:200]


@dataclass
class DrawRanks:
    """Where each pair stands in the lists a re-annotation draw picks from (`reannotation.draw`), so
    that a draw's preview finds the pairs it picked by index lookups, not by ranking the project.

    `compared`: the pairs two or more annotators worked on, by source id (code point by code point).
    `labels`: the pairs with two or more labels, by their `labels` value (0 = differing, first), then
    source id — the differing pairs, then the agreeing ones, each by source id.
    `do_f1`: the pairs with a DO F1, by that value, then source id — so the pairs below any threshold
    come first, and a threshold's flagged and agreeing pairs are each ordered by (DO F1, source id).
    """

    source: dict[str, int]
    compared: dict[str, int]
    labels: dict[str, int]
    do_f1: dict[str, int]
    n_labels_differ: int

    @classmethod
    def of(cls, rows: Mapping[str, Mapping[str, Any]]) -> DrawRanks:
        def ranked(keys: Iterable[tuple[Any, ...]]) -> dict[str, int]:
            return {key[-1]: rank for rank, key in enumerate(sorted(keys))}

        labels = {sid: disagreement.row_value(row, "labels") for sid, row in rows.items()}
        do_f1 = {sid: disagreement.row_value(row, "do_f1") for sid, row in rows.items()}
        return cls(
            source=ranked((sid,) for sid in rows),
            compared=ranked((sid,) for sid, row in rows.items() if len(row["annotators"]) >= 2),
            labels=ranked((value, sid) for sid, value in labels.items() if value is not None),
            do_f1=ranked((value, sid) for sid, value in do_f1.items() if value is not None),
            n_labels_differ=sum(value == 0.0 for value in labels.values()),
        )


def _values(
    order: int, source_id: str, pair_id: int, row: Mapping[str, Any], keys: set[str], ranks: DrawRanks
) -> Iterator[ExplorerValue]:
    """The pair's entries: all / each two of its annotators × all types / each type on it (the all/all
    entry carries the pair's draw ranks)."""
    who = row["annotators"]
    pairs = [""] + [f"{a}|{b}" for n, a in enumerate(who) for b in who[n + 1 :] if f"{a}|{b}" in keys]
    for annotator_pair in pairs:
        for ptype in ["", *row["types"]]:
            whole = not annotator_pair and not ptype
            yield ExplorerValue(
                pair_id=pair_id,
                order=order,
                source_rank=ranks.source[source_id],
                compared_rank=ranks.compared.get(source_id) if whole else None,
                label_rank=ranks.labels.get(source_id) if whole else None,
                do_f1_rank=ranks.do_f1.get(source_id) if whole else None,
                annotators=annotator_pair,
                ptype=ptype,
                row=dict(row) if whole else None,
                **{
                    measure: disagreement.row_value(row, measure, annotator_pair=annotator_pair, ptype=ptype)
                    for measure in disagreement.MEASURES
                },
            )


def _count(counts: dict[str, Any], value: ExplorerValue) -> None:
    entry = counts.setdefault(value.annotators, {}).setdefault(
        value.ptype, {"total": 0, **dict.fromkeys(disagreement.MEASURES, 0)}
    )
    entry["total"] += 1
    for measure in disagreement.MEASURES:
        entry[measure] += getattr(value, measure) is not None


def refresh(project: Project) -> int:
    """Recompute and store the project's explorer rows from its current annotations; the number stored."""
    mark = source_mark(project)
    _, rows = disagreement.project_rows(project)
    keys = disagreement.annotator_pairs(rows.values())
    pair_ids = dict(Pair.objects.filter(project=project).values_list("source_id", "pk").iterator(BATCH))
    counts: dict[str, Any] = {}
    stored = 0
    with transaction.atomic():
        ExplorerValue.objects.filter(project=project).delete()
        batch: list[ExplorerValue] = []
        ranks = DrawRanks.of({sid: row for sid, row in rows.items() if sid in pair_ids})
        for order, (source_id, row) in enumerate(rows.items()):
            if source_id not in pair_ids:
                continue
            for value in _values(order, source_id, pair_ids[source_id], row, set(keys), ranks):
                value.project_id = project.pk
                _count(counts, value)
                batch.append(value)
            if len(batch) >= BATCH:
                ExplorerValue.objects.bulk_create(batch)
                stored, batch = stored + len(batch), []
        ExplorerValue.objects.bulk_create(batch)
        stored += len(batch)
        types = sorted({t for row in rows.values() for t in row["types"]})
        ExplorerState.objects.update_or_create(
            project=project,
            defaults={
                "source": mark,
                "annotator_pairs": keys,
                "types": types,
                "counts": counts,
                "n_compared": len(ranks.compared),
                "n_labels_differ": ranks.n_labels_differ,
            },
        )
    sql.analyze(ExplorerValue, stored)  # the re-annotation preview's counts and ranks plan on them
    return stored


def refresh_once(project: Project) -> int | None:
    """`refresh`, unless a live run refreshes the project already (None: this call leaves it to that run)."""
    claim = run_once.claim(f"explorer-refresh:{project.pk}")
    if claim is None:
        return None
    with run_once.running(claim):
        return refresh(project)


def ensure_fresh(project: Project) -> ExplorerState | None:
    """The project's explorer state when its rows are current; otherwise ask for a refresh (coalesced)
    and return the state of the rows there are (None before the first refresh) — see `is_current`."""
    state = ExplorerState.objects.filter(project=project).first()
    if state is not None and state.source == source_mark(project):
        state.current = True  # type: ignore[attr-defined]
        return state
    if taskqueue.runs_in_process():
        refresh(project)
        state = ExplorerState.objects.get(project=project)
        state.current = True  # type: ignore[attr-defined]
        return state
    if cache.add(f"leadtools:explorer-refresh:{project.pk}", 1, timeout=60):
        try:
            taskqueue.enqueue(REFRESH_TASK, project.pk)
        except taskqueue.QueueUnavailable:
            cache.delete(f"leadtools:explorer-refresh:{project.pk}")
    if state is not None:
        state.current = False  # type: ignore[attr-defined]
    return state


def is_current(state: ExplorerState | None) -> bool:
    return bool(state is not None and getattr(state, "current", False))


@dataclass
class Item:
    """One pair of a page: the pair, the value it is ordered by, its whole row."""

    pair: Pair
    value: float | None
    row: dict[str, Any]


class Ordered:
    """The explorer's pairs for one choice of filters, lowest value first, as a paginator's object list:
    `count()` comes from the stored totals, a slice is one query for the page plus one for its rows."""

    def __init__(
        self, project: Project, state: ExplorerState | None, measure: str, annotator_pair: str, ptype: str
    ) -> None:
        if measure not in disagreement.MEASURES:
            raise ValueError(f"measure must be one of {', '.join(disagreement.MEASURES)}, got {measure!r}")
        self.project, self.state, self.measure = project, state, measure
        self.annotator_pair, self.ptype = annotator_pair, ptype

    def _totals(self) -> dict[str, int]:
        counts = self.state.counts if self.state is not None else {}
        return (counts.get(self.annotator_pair) or {}).get(self.ptype) or {}

    def count(self) -> int:
        return int(self._totals().get("total", 0))

    def n_compared(self) -> int:
        """How many of the pairs have a value of the measure."""
        return int(self._totals().get(self.measure, 0))

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index: slice) -> list[Item]:
        if not isinstance(index, slice):
            raise TypeError("the explorer's pairs are read a page (a slice) at a time")
        page = list(
            ExplorerValue.objects.filter(
                project=self.project, annotators=self.annotator_pair, ptype=self.ptype
            )
            .order_by(F(self.measure).asc(nulls_last=True), "order")
            .select_related("pair")
            .only("pair", "row", self.measure, "order", "annotators", "ptype")[index]
        )
        rows = {value.pair_id: value.row for value in page if value.row is not None}
        missing = [value.pair_id for value in page if value.pair_id not in rows]
        if missing:
            rows |= dict(
                ExplorerValue.objects.filter(
                    project=self.project, pair_id__in=missing, annotators="", ptype=""
                ).values_list("pair_id", "row")
            )
        return [
            Item(
                value.pair, getattr(value, self.measure), rows.get(value.pair_id) or disagreement.empty_row()
            )
            for value in page
        ]


def pair_row(project: Project, pair: Pair) -> dict[str, Any]:
    """The stored row of one pair (its agreement with everyone who worked on it), or an empty row."""
    row = (
        ExplorerValue.objects.filter(project=project, pair=pair, annotators="", ptype="")
        .values_list("row", flat=True)
        .first()
    )
    return _in_order(row)


def rows_for(project: Project, source_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The stored rows of these pairs (source id → row; pairs nobody worked on have none): what a
    re-annotation round's before-and-after needs, read for its own pairs only."""
    ensure_fresh(project)
    found = ExplorerValue.objects.filter(
        project=project, annotators="", ptype="", pair__source_id__in=set(source_ids)
    ).values_list("pair__source_id", "row")
    return {source_id: _in_order(row) for source_id, row in found if row is not None}


def _in_order(row: dict[str, Any] | None) -> dict[str, Any]:
    """The row with its mappings in the order `pair_agreement` gave them (annotators in document order,
    types in tagset order): PostgreSQL's jsonb keeps object keys in an order of its own, and ties (which
    two annotators agree least) are broken by that order."""
    if row is None:
        return disagreement.empty_row()
    rank = {name: n for n, name in enumerate(row["annotators"])}
    type_rank = {name: n for n, name in enumerate(row["types"])}

    def by_annotators(mapping: dict[str, Any]) -> dict[str, Any]:
        def key(k: str) -> tuple[int, ...]:
            return tuple(rank.get(name, len(rank)) for name in k.split("|"))

        return {k: mapping[k] for k in sorted(mapping, key=key)}

    out = dict(row)
    out["labels"] = by_annotators(row["labels"])
    out["do_f1"] = by_annotators(row["do_f1"])
    out["alignment_f1"] = by_annotators(row["alignment_f1"])
    out["do_f1_by_type"] = {
        k: {t: v[t] for t in sorted(v, key=lambda t: type_rank.get(t, len(type_rank)))}
        for k, v in by_annotators(row["do_f1_by_type"]).items()
    }
    return out
