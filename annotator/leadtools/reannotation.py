"""Sending pairs back to their annotators: a rule flags pairs, agreeing pairs are mixed in, all shuffled.

Rules (on the agreement of each pair, `annotator.leadtools.disagreement.pair_agreement`, the same
values the explorer shows; `do_f1` and `label_disagreement` mean what each pair's stored agreement entry
holds, `annotator.agreement.current.pair_entries`):

- `label_disagreement`: the annotators' pair labels differ;
- `do_f1_below` (params `{"threshold": t}`): the pair's mean phenomena DO F1 is below t;
- `selected` (params `{"pairs": [source ids]}`): the pairs the lead picked.

So that being sent back is not a signal, k agreeing pairs are mixed in and the list is shuffled. The
draw follows the spec's re-evaluation recipe (§7, `metrics.reeval`): k = `sample_size(|flagged|,
|agreeing|, fraction)` (fraction·|flagged| rounded half up, at most |agreeing|), candidates sorted as
strings (for `do_f1_below`: by DO F1, then as strings — an order the explorer's rows store as ranks,
so the page's preview of a draw reads only the pairs it shows, on a project of any size),
`Generator(PCG64(seed))`, `choice(…, replace=False)` then `permutation`. Everything is stored
in a `ReannotationRound`, with each queued pair's agreement before re-annotation.

Queuing creates Assignment rows with round = the project's highest round + 1, status to do, for the
annotators who worked on each pair. Nothing is deleted: annotators revise their existing annotations
in the editor, whose history keeps every earlier state. The latest snapshot is copied under the scope
`before-reannotation-<round>` so dashboards can show agreement before and after.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Avg, Count, Max, Q, QuerySet

from annotator.agreement import current
from annotator.agreement.computation import document_fingerprint
from annotator.agreement.results import fingerprint
from annotator.core import counts, sql
from annotator.leadtools import disagreement, explorer_rows
from annotator.models import (
    AgreementSnapshot,
    Assignment,
    ExplorerValue,
    Membership,
    Pair,
    Project,
    ReannotationRound,
)
from metrics.document import parse_document
from metrics.reeval import sample_size
from metrics.report import build_report

Rule = ReannotationRound.Rule


@dataclass(frozen=True)
class Draw:
    """The pairs a rule sends back (source ids), before anything is written."""

    rule: str
    params: dict[str, Any]
    seed: int
    fraction: float
    flagged: list[str]
    agreeing: list[str]
    sampled: list[str]
    order: list[str]


def clean_params(rule: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check a rule's parameters; messages name the field."""
    params = dict(params or {})
    if rule not in Rule.values:
        raise ValidationError({"rule": f"Unknown rule {rule!r}; choose one of {', '.join(Rule.values)}."})
    if rule == Rule.DO_F1_BELOW:
        try:
            threshold = float(params.get("threshold", ""))
        except (TypeError, ValueError):
            raise ValidationError(
                {"threshold": "Give the DO F1 threshold as a number between 0 and 1."}
            ) from None
        if not 0 < threshold <= 1:
            raise ValidationError({"threshold": f"The threshold must be in (0, 1], not {threshold}."})
        return {"threshold": threshold}
    if rule == Rule.SELECTED:
        pairs = params.get("pairs") or []
        if not isinstance(pairs, list) or not pairs or not all(isinstance(p, str) for p in pairs):
            raise ValidationError({"pairs": "Select at least one pair."})
        return {"pairs": sorted(set(pairs))}
    return {}


def _flagged(rule: str, params: dict[str, Any], row: Mapping[str, Any], pid: str) -> bool:
    if rule == Rule.LABEL_DISAGREEMENT:
        return bool(row["label_disagreement"])
    if rule == Rule.DO_F1_BELOW:
        return row["score"] is not None and row["score"] < params["threshold"]
    return pid in params["pairs"]


def _comparable(rule: str, row: Mapping[str, Any]) -> bool:
    """Whether the rule can call the pair agreeing: two annotators worked on it and the value exists."""
    if len(row["annotators"]) < 2:
        return False
    if rule == Rule.LABEL_DISAGREEMENT:
        return len(row["labels"]) >= 2
    if rule == Rule.DO_F1_BELOW:
        return row["score"] is not None
    return True


def _candidate_order(rule: str, rows: Mapping[str, Mapping[str, Any]]) -> Callable[[str], Any]:
    """How the flagged and the agreeing pairs are listed before the generator picks among them: by
    source id as strings (code point by code point), and for `do_f1_below` by DO F1 first — the
    order the explorer's stored draw ranks hold (`explorer_rows.DrawRanks`), so that a preview finds
    the pairs at the picked offsets by index lookups whatever the threshold."""
    if rule == Rule.DO_F1_BELOW:
        return lambda pid: (rows[pid]["score"], pid)
    return lambda pid: pid


def draw(
    rows: Mapping[str, Mapping[str, Any]],
    rule: str,
    params: Mapping[str, Any] | None,
    *,
    seed: int,
    fraction: float = 0.1,
) -> Draw:
    """Flag pairs by `rule`, sample agreeing ones, shuffle (pure; `rows` from `pair_agreement`)."""
    params = clean_params(rule, params)
    if rule == Rule.SELECTED:
        unknown = [p for p in params["pairs"] if p not in rows]
        if unknown:
            raise ValidationError({"pairs": f"Pair {unknown[0]!r} is not in this project."})
    key = _candidate_order(rule, rows)
    flagged = sorted((pid for pid, row in rows.items() if _flagged(rule, params, row, pid)), key=key)
    agreeing = sorted(
        (pid for pid, row in rows.items() if _comparable(rule, row) and not _flagged(rule, params, row, pid)),
        key=key,
    )
    k = sample_size(len(flagged), len(agreeing), fraction=fraction)
    rng = np.random.Generator(np.random.PCG64(seed))
    sampled = [agreeing[i] for i in sorted(rng.choice(len(agreeing), size=k, replace=False))] if k else []
    queued = flagged + sampled
    order = [queued[i] for i in rng.permutation(len(queued))]
    return Draw(rule, params, seed, fraction, flagged, agreeing, sampled, order)


# ---- the draw counted in the database (the page's preview) ----------------------------------------


class _Drawn:
    """The flagged and the agreeing pairs of the stored rows, each in the draw's order, read by offsets
    a page at a time through the rows' stored draw ranks (`explorer_rows.DrawRanks`): one query for a
    page, an index lookup per pair, whatever the project's size.

    `rank` is the rank column whose order the draw's lists follow; the flagged pairs hold its first
    ranks and the agreeing ones `agreeing_from` onwards, except for the pairs listed
    in `skipped` (ascending ranks: the selected pairs among the compared ones), which the agreeing list
    leaves out. `selected` lists the flagged pairs themselves when the lead picked them."""

    def __init__(
        self,
        stored: QuerySet[ExplorerValue],
        rank: str,
        *,
        agreeing_from: int = 0,
        skipped: tuple[int, ...] = (),
        selected: tuple[str, ...] = (),
    ) -> None:
        self.stored, self.rank = stored, rank
        self.agreeing_from = agreeing_from
        self.skipped, self.selected = skipped, selected

    def _agreeing_rank(self, offset: int) -> int:
        rank = self.agreeing_from + offset
        for skipped in self.skipped:
            if skipped > rank:
                break
            rank += 1
        return rank

    def at(self, flagged: list[int], agreeing: list[int]) -> tuple[dict[int, str], dict[int, str]]:
        """(offset → source id) of the flagged and of the agreeing pairs at these offsets."""
        ranks = {self._agreeing_rank(o): o for o in agreeing}
        picked = {} if self.selected else {o: o for o in flagged}
        by_rank = (
            dict(
                self.stored.filter(**{f"{self.rank}__in": [*ranks, *picked]}).values_list(
                    self.rank, "pair__source_id"
                )
            )
            if ranks or picked
            else {}
        )
        return (
            {o: self.selected[o] for o in flagged}
            if self.selected
            else {o: by_rank[r] for r, o in picked.items() if r in by_rank},
            {o: by_rank[r] for r, o in ranks.items() if r in by_rank},
        )


@dataclass(frozen=True)
class DrawPreview:
    """What `draw` gives on the project's stored rows, counted in the database: the numbers of flagged,
    agreeing and sampled pairs, and the queue order a page at a time (a paginator's object list:
    `count()` is known, a slice reads the page's pairs only). `current` says whether the stored rows
    were computed from the current annotations (see `explorer_rows.stored_state`)."""

    rule: str
    params: dict[str, Any]
    seed: int
    fraction: float
    n_flagged: int
    n_agreeing: int
    sampled: npt.NDArray[np.int64]  # offsets into the agreeing pairs, ascending
    permutation: npt.NDArray[np.int64]  # queue position → index into flagged + sampled
    rows: _Drawn
    current: bool

    @property
    def n_sampled(self) -> int:
        return len(self.sampled)

    def count(self) -> int:
        return len(self.permutation)

    def __len__(self) -> int:
        return self.count()

    def __bool__(self) -> bool:
        return True  # a preview of no pairs is still a preview (`len` is the queue's length)

    def __getitem__(self, index: slice) -> list[str]:
        if not isinstance(index, slice):
            raise TypeError("the draw's queue is read a page (a slice) at a time")
        queued = [int(i) for i in self.permutation[index]]
        offsets = {i: int(self.sampled[i - self.n_flagged]) for i in queued if i >= self.n_flagged}
        flagged, agreeing = self.rows.at(
            sorted(i for i in queued if i < self.n_flagged), sorted(offsets.values())
        )
        return [flagged[i] if i < self.n_flagged else agreeing[offsets[i]] for i in queued]


def _stored_sides(
    project: Project, stored: QuerySet[ExplorerValue], state: Any, rule: str, params: dict[str, Any]
) -> tuple[int, int, _Drawn]:
    """(flagged, agreeing, their reader) of the stored all-annotators rows (`ExplorerValue`), read
    through the draw ranks and the counts the refresh stored — a few index lookups, not a count of
    the project: `labels` is 0 where the labels differ, 1 where they agree, none with fewer than two
    labels; `do_f1` is the row's `score`; `_flagged` and `_comparable` in the database."""
    if rule == Rule.SELECTED:
        return _selected_sides(project, stored, state, params["pairs"])
    if state is None:
        return 0, 0, _Drawn(stored, "compared_rank")
    if rule == Rule.LABEL_DISAGREEMENT:
        n_labels = state.counts.get("", {}).get("", {}).get("labels", 0)
        n_differ = state.n_labels_differ
        return n_differ, n_labels - n_differ, _Drawn(stored, "label_rank", agreeing_from=n_differ)
    if rule == Rule.DO_F1_BELOW:
        n_scored = state.counts.get("", {}).get("", {}).get("do_f1", 0)
        first_above = (
            stored.filter(do_f1_rank__isnull=False, do_f1__gte=params["threshold"])
            .order_by("do_f1", "do_f1_rank")
            .values_list("do_f1_rank", flat=True)
            .first()
        )
        n_below = n_scored if first_above is None else first_above
        return n_below, n_scored - n_below, _Drawn(stored, "do_f1_rank", agreeing_from=n_below)
    raise ValueError(f"unknown rule {rule!r}")


def _selected_sides(
    project: Project, stored: QuerySet[ExplorerValue], state: Any, pairs: list[str]
) -> tuple[int, int, _Drawn]:
    """The lead's pairs (known to the project) flagged; the other compared pairs agreeing."""
    known = dict(Pair.objects.filter(project=project, source_id__in=pairs).values_list("source_id", "pk"))
    unknown = [p for p in pairs if p not in known]
    if unknown:
        raise ValidationError({"pairs": f"Pair {unknown[0]!r} is not in this project."})
    ranks = stored.filter(pair_id__in=known.values(), compared_rank__isnull=False)
    skipped = tuple(
        sorted(rank for rank in ranks.values_list("compared_rank", flat=True) if rank is not None)
    )
    n_compared = state.n_compared if state is not None else 0
    return (
        len(pairs),
        max(0, n_compared - len(skipped)),
        _Drawn(stored, "compared_rank", skipped=skipped, selected=tuple(pairs)),
    )


def preview_draw(
    project: Project, rule: str, params: Mapping[str, Any] | None, *, seed: int, fraction: float = 0.1
) -> DrawPreview:
    """The draw `queue_reannotation` makes with this seed, from the explorer's stored rows: the
    numbers of flagged and agreeing pairs from the stored counts and ranks, then the seeded generator
    on the numbers alone (`choice` of k offsets among the agreeing pairs, `permutation` of flagged +
    sampled), exactly as `draw` uses it on the lists, so the same seed gives the same pairs in the
    same order (while the stored rows are current)."""
    params = clean_params(rule, params)
    state = explorer_rows.stored_state(project)
    stored = ExplorerValue.objects.filter(project=project, annotators="", ptype="")
    n_flagged, n_agreeing, reader = _stored_sides(project, stored, state, rule, params)
    k = sample_size(n_flagged, n_agreeing, fraction=fraction)
    rng = np.random.Generator(np.random.PCG64(seed))
    # Arrays, not Python lists: the queue of a large project is hundreds of thousands of pairs long.
    sampled = np.sort(rng.choice(n_agreeing, size=k, replace=False)) if k else np.empty(0, np.int64)
    permutation = rng.permutation(n_flagged + k)
    return DrawPreview(
        rule,
        params,
        seed,
        fraction,
        n_flagged,
        n_agreeing,
        sampled,
        permutation,
        reader,
        explorer_rows.is_current(state),
    )


def _before_values(rows: Mapping[str, Mapping[str, Any]], order: list[str]) -> dict[str, Any]:
    out = {}
    for pid in order:
        row = rows[pid]
        out[pid] = {
            "score": row["score"],
            "label_disagreement": row["label_disagreement"],
            "alignment_f1": disagreement.row_value(row, "alignment_f1"),
        }
    return out


def round_fingerprint(document_fingerprint: str, draw: Draw) -> str:

    return fingerprint([document_fingerprint, draw.rule, draw.params, draw.seed, repr(float(draw.fraction))])


def queue_reannotation(
    project: Project,
    rule: str,
    params: Mapping[str, Any] | None,
    *,
    seed: int,
    fraction: float = 0.1,
    actor: Any = None,
) -> ReannotationRound:
    """Draw and queue a re-annotation round (idempotent: the same draw on unchanged annotations
    returns the round already queued instead of queuing a second one)."""

    raw, rows = disagreement.project_rows(project)
    chosen = draw(rows, rule, params, seed=seed, fraction=fraction)
    digest = round_fingerprint(fingerprint(raw), chosen)
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        existing = ReannotationRound.objects.filter(project=project, fingerprint=digest).first()
        if existing is not None:
            return existing
        return _store_round(project, chosen, rows, raw, digest, actor)


def _store_round(
    project: Project,
    chosen: Draw,
    rows: Mapping[str, Mapping[str, Any]],
    raw: Mapping[str, Any],
    digest: str,
    actor: Any,
) -> ReannotationRound:
    number = (
        Assignment.objects.filter(project=project, pair__isnull=False).aggregate(top=Max("round"))["top"] or 0
    ) + 1
    number = max(number, (project.reannotation_rounds.aggregate(top=Max("round"))["top"] or 0) + 1)
    snapshot = _snapshot_before(project, raw, number)
    new = _assignments(project, chosen.order, rows, number)
    Assignment.objects.bulk_create(new)
    return ReannotationRound.objects.create(
        project=project,
        round=number,
        rule=chosen.rule,
        params=chosen.params,
        seed=chosen.seed,
        fraction=chosen.fraction,
        flagged=chosen.flagged,
        agreeing=chosen.agreeing,
        sampled=chosen.sampled,
        order=chosen.order,
        before=_before_values(rows, chosen.order),
        before_snapshot=snapshot,
        fingerprint=digest,
        n_assignments=len(new),
        created_by=actor if getattr(actor, "pk", None) else None,
    )


def _assignments(
    project: Project, order: list[str], rows: Mapping[str, Mapping[str, Any]], number: int
) -> list[Assignment]:
    pair_pks = dict(Pair.objects.filter(project=project, source_id__in=order).values_list("source_id", "pk"))
    members = dict(
        Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR).values_list(
            "user__username", "user_id"
        )
    )
    assigned: dict[int, list[int]] = {}
    for pair_id, user_id in Assignment.objects.filter(
        project=project, pair_id__in=pair_pks.values()
    ).values_list("pair_id", "annotator_id"):
        assigned.setdefault(pair_id, []).append(user_id)
    new: list[Assignment] = []
    for position, pid in enumerate(order):
        pair_pk = pair_pks[pid]
        # The annotators who worked on the pair; for a selected pair nobody touched yet, its assignees.
        users = [members[name] for name in rows[pid]["annotators"] if name in members]
        users = users or sorted(set(assigned.get(pair_pk, [])) & set(members.values()))
        new.extend(
            Assignment(
                project=project,
                annotator_id=user_id,
                pair_id=pair_pk,
                phase=project.phase,
                round=number,
                queue_position=position,
            )
            for user_id in users
        )
    return new


def _snapshot_before(project: Project, raw: Mapping[str, Any], number: int) -> AgreementSnapshot:
    """Keep agreement as it stands under the scope `before-reannotation-<round>`."""

    digest = document_fingerprint(project, dict(raw))  # as the stored agreement is keyed
    now = current.current(project)
    if now is not None and now.fingerprint == digest:
        results = now.results
    else:
        # The current agreement is not of these annotations yet (the worker is behind): compute the report now.

        results = {"report": build_report(parse_document(dict(raw)))}
    return AgreementSnapshot.objects.create(
        project=project, scope=f"before-reannotation-{number}", fingerprint=digest, results=results
    )


# ---- before and after ------------------------------------------------------------------------------

HEADLINES = [
    ("iapta.do.f1", "Phenomena DO F1"),
    ("iapta.tpo.partial.f1", "TPO partial F1"),
    ("alignment.words.f1", "Word alignment F1"),
    ("kappa_c", "κ_C"),
]


def _measure(results: Mapping[str, Any] | None, key: str) -> float | None:
    if not results:
        return None
    if key == "pair_labels.cohen":
        return ((results.get("pair_labels") or {}).get("cohen") or {}).get("value")
    entry = (results.get("report") or {}).get("measures", {}).get(key) or {}
    return entry.get("value")


def before_after(round_: ReannotationRound, rows: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Agreement before the round and now: project headlines (snapshots) and the round's pairs (live)."""
    pairs = [pid for pid in round_.order if pid in rows]
    now = {
        pid: {"score": rows[pid]["score"], "label_disagreement": rows[pid]["label_disagreement"]}
        for pid in pairs
    }
    return _compare(
        round_,
        pairs,
        {
            "score_after": _mean(now[pid]["score"] for pid in pairs),
            "labels_after": sum(1 for pid in pairs if now[pid]["label_disagreement"]),
            "flagged_score_after": _mean(now[pid]["score"] for pid in round_.flagged if pid in now),
        },
    )


def stored_before_after(project: Project, rounds: list[ReannotationRound]) -> dict[int, dict[str, Any]]:
    """`before_after` of each round (by its pk), its pairs' values now taken from the explorer's stored
    rows in one aggregate query for all the rounds (one row, whatever the number of pairs; the round's
    lists of pairs are read by the database from the round's row). The query reads the rows of the
    rounds' pairs only (found by source id, then by the explorer's (project, pair) index), so its cost
    follows the rounds, not the project."""
    explorer_rows.stored_state(project)

    def pairs_in(field: str, round_: ReannotationRound) -> QuerySet[Pair, Any]:
        listed = sql.list_elements(ReannotationRound, field, round_.pk)
        return Pair.objects.filter(project=project, source_id__in=listed).values("pk")

    sent_any = Q(pk__in=[])
    for round_ in rounds:
        sent_any |= Q(pair_id__in=pairs_in("order", round_))
    stored = ExplorerValue.objects.filter(project=project, annotators="", ptype="").filter(sent_any)
    aggregates: dict[str, Any] = {}
    for n, round_ in enumerate(rounds):
        # The lists are read in the database: a round may send back more pairs than a statement
        # takes parameters.
        sent = Q(pair_id__in=pairs_in("order", round_))
        flagged = Q(pair_id__in=pairs_in("flagged", round_))
        aggregates |= {
            f"n_{n}": Count("id", filter=sent),
            f"score_{n}": Avg("do_f1", filter=sent),
            f"labels_{n}": Count("id", filter=sent & Q(labels=0.0)),
            f"flagged_{n}": Avg("do_f1", filter=flagged),
        }
    now = stored.aggregate(**aggregates) if aggregates else {}
    out = {}
    for n, round_ in enumerate(rounds):
        after = {
            "score_after": now[f"score_{n}"],
            "labels_after": now[f"labels_{n}"],
            "flagged_score_after": now[f"flagged_{n}"],
        }
        out[round_.pk] = _compare(round_, round_.order, after, n_now=now[f"n_{n}"])
    return out


def _compare(
    round_: ReannotationRound, pairs: list[str], after: dict[str, Any], *, n_now: int | None = None
) -> dict[str, Any]:
    before = round_.before_snapshot.results if round_.before_snapshot else None
    after_snapshot = current.current(round_.project_id)
    after_results = after_snapshot.results if after_snapshot else None
    headlines = [
        {"label": label, "before": _measure(before, key), "after": _measure(after_results, key)}
        for key, label in [*HEADLINES, ("pair_labels.cohen", "Pair label Cohen's κ")]
    ]
    headlines = [h for h in headlines if h["before"] is not None or h["after"] is not None]
    return {
        "headlines": headlines,
        "after_computed_at": after_snapshot.computed_at if after_snapshot else None,
        "pairs": {
            "n": len(pairs) if n_now is None else n_now,
            "score_before": _mean(round_.before.get(pid, {}).get("score") for pid in pairs),
            "labels_before": sum(1 for pid in pairs if round_.before.get(pid, {}).get("label_disagreement")),
            "flagged_score_before": _mean(round_.before.get(pid, {}).get("score") for pid in round_.flagged),
            **after,
        },
        "done": counts.total(
            counts.assignment_tallies(round_.project_id, round=round_.round, status=Assignment.Status.DONE)
        ),
        "total": round_.n_assignments,
    }


def _mean(values: Any) -> float | None:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None
