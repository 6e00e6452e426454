"""The disagreement explorer's stored rows: one page read per request, whatever the project's size.

`disagreement.project_rows` (the one place that reads per-pair agreement results) computes every pair's
row from the whole project; doing that during a request made a 1,000,000-pair project's explorer take
half a minute and gigabytes. Instead `refresh` stores, per pair, the value the explorer orders by for
every choice of its filters (`ExplorerValue`: all annotators or two of them × all types or one), plus the
totals and the filter choices (`ExplorerState`); a request reads `page_size` rows through an index.

The rows are current while `source_mark` — the project's last change mark (`AgreementState.changed_at`,
set by every annotation change), its newest pair and its annotators — is what they were computed
from. Requests only read them (`stored_state`); the agreement computation that follows a change sends
the refresh (`annotator.refresh_explorer`: after the save's response without a broker, by a worker
with one), and so does the lead's `resume_refresh`; the page says "recomputing…" meanwhile and shows
the rows it has.
A refresh runs once at a time per project (`refresh_once`, the task's body: a task delivered again while
a live worker refreshes the project leaves it; `annotator.corpus.run_once`). A lead can stop it
(`cancel_refresh`): a running refresh stops between two batches and its transaction is rolled back, so
the rows stay those of the previous refresh; a queued one stops when it starts. No refresh is asked for
then until the lead asks again (`resume_refresh`) or PAUSE_SECONDS have passed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import F, Q

from annotator import taskqueue
from annotator.agreement.document import DOCUMENT_FORMAT, pairs_document, project_annotators, tagset_types
from annotator.core import sql
from annotator.corpus import run_once
from annotator.leadtools import disagreement
from annotator.models import (
    AgreementState,
    Assignment,
    ExplorerState,
    ExplorerValue,
    Membership,
    Pair,
    Phenomenon,
    Project,
)
from metrics.types import Options

BATCH = 5000
#: Part of the source mark: rows stored by an earlier version (without a column this one reads) are not
#: current, so the first request after an upgrade has them rebuilt.
ROWS_VERSION = "rows3"
REFRESH_TASK = "annotator.refresh_explorer"
QUEUED_KEY = "leadtools:explorer-refresh:{}"  # a refresh was asked for in the last minute
PAUSED_KEY = "leadtools:explorer-paused:{}"  # the lead stopped the refresh: ask for none meanwhile
PAUSE_SECONDS = 3600


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


def _values(order: int, pair_id: int, row: Mapping[str, Any]) -> Iterator[ExplorerValue]:
    """The pair's entries: all / each two of its annotators × all types / each type on it. The all/all
    entry marks the draw lists the pair is in with a rank of 0, numbered afterwards by `_number_ranks`."""
    who = row["annotators"]
    pairs = [""] + [f"{a}|{b}" for n, a in enumerate(who) for b in who[n + 1 :]]
    for annotator_pair in pairs:
        for ptype in ["", *row["types"]]:
            whole = not annotator_pair and not ptype
            values = {
                measure: disagreement.row_value(row, measure, annotator_pair=annotator_pair, ptype=ptype)
                for measure in disagreement.MEASURES
            }
            yield ExplorerValue(
                pair_id=pair_id,
                order=order,
                compared_rank=0 if whole and len(who) >= 2 else None,
                label_rank=0 if whole and values["labels"] is not None else None,
                do_f1_rank=0 if whole and values["do_f1"] is not None else None,
                annotators=annotator_pair,
                ptype=ptype,
                row=dict(row) if whole else None,
                **values,
            )


def _count(counts: dict[str, Any], value: ExplorerValue) -> None:
    entry = counts.setdefault(value.annotators, {}).setdefault(
        value.ptype, {"total": 0, **dict.fromkeys(disagreement.MEASURES, 0)}
    )
    entry["total"] += 1
    for measure in disagreement.MEASURES:
        entry[measure] += getattr(value, measure) is not None


def _pair_batches(project: Project) -> Iterator[list[int]]:
    """The project's pair pks in document order (position, pk), BATCH at a time (read by keyset)."""
    rows = Pair.objects.filter(project=project).order_by("position", "pk")
    after: tuple[int, int] | None = None
    while True:
        page = (
            rows
            if after is None
            else rows.filter(Q(position__gt=after[0]) | Q(position=after[0], pk__gt=after[1]))
        )
        chunk = list(page.values_list("position", "pk")[:BATCH])
        if not chunk:
            return
        yield [pk for _, pk in chunk]
        after = chunk[-1]


def _with_phenomena(project: Project, names: Mapping[int, str]) -> list[str]:
    """The annotators the project's document lists under `phenomena`: those with a phenomenon or a done
    pair anywhere in the project (so a batch compares them on its pairs as the whole document does)."""
    if not project.layer_phenomena:
        return []
    ids = set(
        Phenomenon.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names))
        .order_by()
        .values_list("annotator_id", flat=True)
        .distinct()
    )
    ids |= set(
        Assignment.objects.filter(
            project=project, pair__isnull=False, status=Assignment.Status.DONE, annotator_id__in=list(names)
        )
        .order_by()
        .values_list("annotator_id", flat=True)
        .distinct()
    )
    return [name for user_id, name in names.items() if user_id in ids]


def batch_rows(
    project: Project,
    names: Mapping[int, str],
    pair_pks: list[int],
    types: list[dict[str, Any]],
    with_phenomena: list[str],
) -> tuple[list[tuple[int, str]], dict[str, dict[str, Any]]]:
    """((pk, source id) of the pairs in document order, their `disagreement.pair_agreement` rows),
    computed from the document of these pairs alone: each row depends on its pair's annotations only,
    so the rows equal those of the whole project's document."""
    doc = pairs_document(project, dict(names), pair_pks)
    done = doc.pop("done")
    pairs = doc.pop("pairs")
    raw: dict[str, Any] = {
        **doc,
        "format": DOCUMENT_FORMAT,
        "options": dataclasses.asdict(Options()),
        "tagset": {"types": types},
        "pairs": [{key: p[key] for key in ("id", "tokens1", "tokens2", "initial_alignment")} for p in pairs],
    }
    if "phenomena" in raw:
        found = raw["phenomena"]
        raw["phenomena"] = {
            name: found.get(name, []) for name in names.values() if name in found or name in with_phenomena
        }
    return [(p["pk"], p["id"]) for p in pairs], disagreement.pair_agreement(raw, done=done)


def refresh(project: Project, checkpoint: Callable[[], None] | None = None) -> int:
    """Recompute and store the project's explorer rows from its current annotations; the number stored.

    The project is read BATCH pairs at a time (`batch_rows`) and each batch's entries are written before
    the next is read, so memory does not grow with the project; the draw ranks are numbered by the
    database afterwards (`_number_ranks`), and entries of two annotators no pair compares are removed.
    `checkpoint` is called before each batch: what it raises (a cancel) rolls the whole refresh back."""
    mark = source_mark(project)
    names = dict(project_annotators(project))
    types = tagset_types(project)
    with_phenomena = _with_phenomena(project, names)
    keys: dict[str, None] = {}
    found_types: set[str] = set()
    counts: dict[str, Any] = {}
    order = stored = n_compared = n_labels_differ = 0
    with transaction.atomic():
        ExplorerValue.objects.filter(project=project).delete()
        for pair_pks in _pair_batches(project):
            if checkpoint is not None:
                checkpoint()
            pairs, rows = batch_rows(project, names, pair_pks, types, with_phenomena)
            keys.update(dict.fromkeys(disagreement.annotator_pairs(rows.values())))
            batch: list[ExplorerValue] = []
            for pair_id, source_id in pairs:
                row = rows[source_id]
                found_types.update(row["types"])
                for value in _values(order, pair_id, row):
                    value.project_id = project.pk
                    n_compared += value.compared_rank is not None
                    n_labels_differ += value.label_rank is not None and value.labels == 0.0
                    batch.append(value)
                order += 1
            ExplorerValue.objects.bulk_create(batch, batch_size=BATCH)
            stored += len(batch)
            for value in batch:
                _count(counts, value)
        unused = (
            ExplorerValue.objects.filter(project=project)
            .exclude(annotators="")
            .exclude(annotators__in=list(keys))
        )
        if checkpoint is not None:
            checkpoint()
        stored -= unused.delete()[0]
        counts = {who: entry for who, entry in counts.items() if not who or who in keys}
        sql.analyze(ExplorerValue, stored)  # the numbering's join, planned for an empty table, ran 15+ min
        _number_ranks(project)
        ExplorerState.objects.update_or_create(
            project=project,
            defaults={
                "source": mark,
                "annotator_pairs": list(keys),
                "types": sorted(found_types),
                "counts": counts,
                "n_compared": n_compared,
                "n_labels_differ": n_labels_differ,
            },
        )
    return stored


def _number_ranks(project: Project) -> None:
    """The draw ranks (`DrawRanks`), numbered by the database over the stored entries: `source_rank` on
    every entry of a pair, the pair's place among the project's pairs by source id (code point by code
    point); on the all/all entries marked with a 0, `compared_rank` by source id, `label_rank` by
    (labels, source id) and `do_f1_rank` by (DO F1, source id)."""
    values, pairs = sql.table(ExplorerValue), sql.table(Pair)
    collation = '"C"' if connection.vendor == "postgresql" else "BINARY"
    by_source = f"p.{sql.column(Pair, 'source_id')} COLLATE {collation}"
    project_id, pair_id = sql.column(ExplorerValue, "project"), sql.column(ExplorerValue, "pair")
    sql.execute(
        f"UPDATE {values} SET {sql.column(ExplorerValue, 'source_rank')} = r.n FROM ("
        f"SELECT p.id AS pair_id, ROW_NUMBER() OVER (ORDER BY {by_source}) - 1 AS n FROM {pairs} p "
        f"WHERE p.{sql.column(Pair, 'project')} = %s) AS r "
        f"WHERE {values}.{project_id} = %s AND {values}.{pair_id} = r.pair_id",
        [project.pk, project.pk],
    )
    whole = f"v.{project_id} = %s AND v.{sql.column(ExplorerValue, 'annotators')} = '' AND v.{sql.column(ExplorerValue, 'ptype')} = ''"
    for rank, first in (("compared_rank", ""), ("label_rank", "labels"), ("do_f1_rank", "do_f1")):
        column = sql.column(ExplorerValue, rank)
        key = f"v.{sql.column(ExplorerValue, first)}, {by_source}" if first else by_source
        sql.execute(
            f"UPDATE {values} SET {column} = r.n FROM ("
            f"SELECT v.id AS id, ROW_NUMBER() OVER (ORDER BY {key}) - 1 AS n FROM {values} v "
            f"JOIN {pairs} p ON p.id = v.{pair_id} WHERE {whole} AND v.{column} IS NOT NULL) AS r "
            f"WHERE {values}.id = r.id",
            [project.pk],
        )


def _run_name(project_id: int) -> str:
    return f"explorer-refresh:{project_id}"


def refresh_once(project: Project) -> int | None:
    """`refresh`, unless a live run refreshes the project already or the refresh is cancelled (None: this
    call leaves it to that run, or stopped and kept the rows there were)."""
    cache.delete(QUEUED_KEY.format(project.pk))  # a change from here on asks for the next refresh
    with run_once.claim(_run_name(project.pk)) as claim:
        if claim is None:
            return None
        try:
            return refresh(project, checkpoint=claim.check)
        except run_once.Cancelled:
            return None


def cancel_refresh(project: Project) -> bool:
    """Stop the project's explorer refresh: a running one before its next batch (rolled back, the rows
    stay those of the previous refresh), a queued one when it starts; and ask for none until
    `resume_refresh` or PAUSE_SECONDS. Whether a refresh was running."""
    name = _run_name(project.pk)
    run_once.request_cancel(name)
    cache.set(PAUSED_KEY.format(project.pk), 1, PAUSE_SECONDS)
    cache.delete(QUEUED_KEY.format(project.pk))
    return run_once.is_held(name)


def resume_refresh(project: Project) -> ExplorerState | None:
    """Let the project's explorer be refreshed again after `cancel_refresh`, ask for a refresh now if its
    rows are not current (`ask_refresh`), and return the state of the rows there are (`stored_state`)."""
    cache.delete(PAUSED_KEY.format(project.pk))
    if not rows_current(project):
        ask_refresh(project)
    return stored_state(project)


def is_paused(project: Project) -> bool:
    """Whether the lead stopped the project's explorer refresh (`cancel_refresh`)."""
    return bool(cache.get(PAUSED_KEY.format(project.pk)))


def stored_state(project: Project) -> ExplorerState | None:
    """The project's explorer state (None before the first refresh), marked `current` when its rows
    were computed from the current annotations (`is_current`). Reads only: the refresh is sent by the
    agreement computation that follows a change (`annotator.agreement.computation`) or by the lead
    (`resume_refresh`)."""
    state = ExplorerState.objects.filter(project=project).first()
    if state is not None:
        state.current = state.source == source_mark(project)  # type: ignore[attr-defined]
    return state


def ask_refresh(project: Project) -> None:
    """Ask for a refresh of the project's rows (coalesced: one per minute at most is sent; none while the
    lead has stopped them, `cancel_refresh`); without a broker it runs now."""
    if taskqueue.runs_in_process():
        refresh(project)
        return
    if not is_paused(project) and cache.add(QUEUED_KEY.format(project.pk), 1, timeout=60):
        run_once.clear_cancel(_run_name(project.pk))  # a cancel was for the refreshes asked for before
        try:
            taskqueue.enqueue(REFRESH_TASK, project.pk)
        except taskqueue.QueueUnavailable:
            cache.delete(QUEUED_KEY.format(project.pk))


def rows_current(project: Project) -> bool:
    """Whether the project's stored rows are current (without asking for a refresh)."""
    state = ExplorerState.objects.filter(project=project).first()
    return state is not None and state.source == source_mark(project)


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
