"""Planning the work: which annotators get which pairs, previewed before anything is written.

`plan_assignments(...)` is pure with respect to the database (it only reads): it chooses the pairs
(all, a seeded random sample of n, or a filter), distributes them over the chosen annotators
(everyone, one each — the final phase's split of Vila et al.'s three phases — or k each with balanced
overlap) and returns a `Plan` with the load per annotator. `apply_plan(plan)` writes the Assignment
rows idempotently; `reassign(...)` moves the unfinished work of an annotator who left.

Distributing n pairs is O(n), so the planner page and the API do not plan during a request: the
choices are checked (`check_choices`, a few aggregate queries), `request_plan` finds the stored
`AssignmentPlan` for the same choices on the project as it is now or sends the
`annotator.compute_assignment_plan` task (`compute_stored_plan`: `plan_assignments` once, its loads,
totals and planned rows stored), and the page reads the loads and one page of planned rows.
`apply_stored_plan` writes exactly the stored rows, refusing a plan whose pairs or annotators changed.

Vila et al. (2015) annotate in three phases: training and agreement (everyone annotates the same
pairs, so agreement can be measured) and the final phase, in which the remaining pairs are split
between the annotators. "k with balanced overlap" sits between the two: every pair gets k annotators,
each annotator about n·k/m pairs, and every two annotators share about the same number of pairs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone

from annotator import taskqueue
from annotator.models import (
    AlignmentLink,
    Assignment,
    AssignmentPlan,
    Membership,
    Pair,
    PairLabel,
    Phenomenon,
    PlannedAssignment,
    Project,
)
from annotator.projects.roles import grant_role

SELECTIONS = ("all", "sample", "filter")
PER_PAIR = ("everyone", "one", "k")


@dataclass(frozen=True)
class PairFilter:
    """Conditions of the "filter" selection; empty fields do not filter."""

    label_key: str = ""
    label_value: str = ""
    source_prefix: str = ""
    unannotated: bool = False
    unassigned: bool = False


@dataclass(frozen=True)
class Load:
    """One annotator's pair assignments in the plan's phase and round: before, new, after."""

    annotator_id: int
    username: str
    existing: int
    new: int
    done: int

    @property
    def total(self) -> int:
        return self.existing + self.new


@dataclass(frozen=True)
class Plan:
    """A previewed distribution of pairs over annotators (nothing written yet)."""

    project_id: int
    phase: str
    round: int
    per_pair: str
    k: int
    seed: int | None
    pair_ids: tuple[int, ...]
    annotator_ids: tuple[int, ...]
    assignments: tuple[tuple[int, int], ...]  # (annotator id, pair id), in queue order
    existing: frozenset[tuple[int, int]] = field(default_factory=frozenset)
    loads: tuple[Load, ...] = ()

    @property
    def new_assignments(self) -> list[tuple[int, int]]:
        return [a for a in self.assignments if a not in self.existing]

    @property
    def overlap(self) -> dict[tuple[int, int], int]:
        """How many planned pairs every two annotators share (balanced-overlap check)."""
        by_pair: dict[int, list[int]] = {}
        for annotator_id, pair_id in self.assignments:
            by_pair.setdefault(pair_id, []).append(annotator_id)
        shared: Counter[tuple[int, int]] = Counter()
        for ids in by_pair.values():
            ids = sorted(ids)
            for n, a in enumerate(ids):
                for b in ids[n + 1 :]:
                    shared[a, b] += 1
        return dict(shared)


def select_pairs(
    project: Project,
    *,
    selection: str = "all",
    n: int | None = None,
    seed: int | None = None,
    conditions: PairFilter | None = None,
) -> list[int]:
    """Pks of the chosen pairs, in pair order (position).

    - "all": every pair of the project;
    - "sample": a random sample of `n` pairs drawn with `random.Random(seed)` (same seed, same sample);
    - "filter": the pairs meeting `conditions` (corpus label key = value, source id prefix, no
      annotations yet by anyone, no assignment yet).
    """
    rows = list(Pair.objects.filter(project=project).order_by("position", "pk").values_list("pk", flat=True))
    conditions = conditions or PairFilter()
    _check_selection(selection, n, len(rows), conditions)
    if selection == "all":
        return rows
    if selection == "sample":
        assert n is not None
        chosen = set(random.Random(seed).sample(rows, n))
        return [pk for pk in rows if pk in chosen]
    return _filtered(project, rows, conditions)


def _check_selection(selection: str, n: int | None, n_pairs: int, conditions: PairFilter) -> None:
    if selection not in SELECTIONS:
        raise ValidationError({"selection": f"Choose all, sample or filter, not {selection!r}."})
    if selection == "sample":
        if n is None or n < 1:
            raise ValidationError({"n": "Give the number of pairs to sample."})
        if n > n_pairs:
            raise ValidationError({"n": f"The project has only {n_pairs} pairs; cannot sample {n}."})
    if selection == "filter" and conditions.label_value and not conditions.label_key:
        raise ValidationError({"label_key": "Name the corpus label the value belongs to."})


def _filtered(project: Project, rows: list[int], conditions: PairFilter) -> list[int]:
    qs = Pair.objects.filter(project=project)
    if conditions.source_prefix:
        qs = qs.filter(source_id__startswith=conditions.source_prefix)
    if conditions.unassigned:
        qs = qs.exclude(
            pk__in=Assignment.objects.filter(project=project, pair__isnull=False).values("pair_id")
        )
    if conditions.unannotated:
        labelled = PairLabel.objects.filter(pair__project=project, is_gold=False).exclude(label="")
        qs = qs.exclude(pk__in=labelled.values("pair_id"))
        qs = qs.exclude(
            pk__in=Phenomenon.objects.filter(pair__project=project, is_gold=False).values("pair_id")
        )
        qs = qs.exclude(
            pk__in=AlignmentLink.objects.filter(pair__project=project, is_gold=False).values("pair_id")
        )
    keep = set(qs.values_list("pk", flat=True))
    if conditions.label_key:
        labels = dict(Pair.objects.filter(pk__in=keep).values_list("pk", "corpus_labels"))
        keep = {pk for pk, found in labels.items() if _label_matches(found, conditions)}
    return [pk for pk in rows if pk in keep]


def _label_matches(labels: Any, conditions: PairFilter) -> bool:
    # Corpus labels come from many formats ("1", 1, True); compare their text.
    if not isinstance(labels, dict) or conditions.label_key not in labels:
        return False
    return not conditions.label_value or str(labels[conditions.label_key]) == conditions.label_value


def project_annotators(project: Project) -> list[tuple[int, str]]:
    """(user id, username) of the project's annotators, in username order."""
    rows = Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR).values_list(
        "user_id", "user__username"
    )
    return sorted(set(rows), key=lambda row: row[1])


def distribute(
    pair_ids: Sequence[int],
    annotator_ids: Sequence[int],
    *,
    per_pair: str,
    k: int | None = 1,
    seed: int | None = None,
) -> list[tuple[int, int]]:
    """(annotator id, pair id) for every pair: all annotators, one, or k of them.

    "one" and "k" pick, for each pair in turn, among the groups of k annotators that keep every load
    within one of the lowest, the group with the smallest total load plus pairs already shared
    within the group; ties follow a seeded shuffle of the annotators. Loads then differ by at most one and every two annotators share about
    n·k(k−1)/(m(m−1)) pairs. Beyond `MAX_GROUPS` possible groups the group is built greedily.
    """
    _check_per_pair(per_pair, k, len(annotator_ids))
    if per_pair == "everyone":
        return [(a, p) for p in pair_ids for a in annotator_ids]
    k = 1 if per_pair == "one" else k
    assert k is not None
    order = list(annotator_ids)
    random.Random(seed).shuffle(order)
    rank = {a: n for n, a in enumerate(order)}
    load = dict.fromkeys(order, 0)
    shared: Counter[tuple[int, int]] = Counter()
    groups = _groups(order, k)
    out: list[tuple[int, int]] = []
    for pair_id in pair_ids:
        if groups is not None:
            floor = min(load.values())
            best = min(groups, key=lambda group: _group_cost(group, load, shared, floor))
            chosen = list(best)
        else:
            chosen = _greedy_group(order, k, load, shared)
        for n, a in enumerate(chosen):
            load[a] += 1
            for b in chosen[n + 1 :]:
                shared[_key(a, b)] += 1
        out.extend((a, pair_id) for a in sorted(chosen, key=rank.__getitem__))
    return out


def _check_per_pair(per_pair: str, k: int | None, n_annotators: int) -> None:
    if per_pair not in PER_PAIR:
        raise ValidationError({"per_pair": f"Choose everyone, one or k, not {per_pair!r}."})
    if not n_annotators:
        raise ValidationError({"annotators": "Choose at least one annotator."})
    if per_pair != "k":
        return
    if k is None:
        raise ValidationError({"k": "Give how many annotators each pair gets."})
    if k < 1 or k > n_annotators:
        raise ValidationError(
            {"k": f"Annotators per pair must be between 1 and {n_annotators} (the annotators chosen)."}
        )


# Up to this many k-subsets of annotators are compared exhaustively for every pair.
MAX_GROUPS = 2000


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _groups(order: list[int], k: int) -> list[tuple[int, ...]] | None:
    if math.comb(len(order), k) > MAX_GROUPS:
        return None
    return list(itertools.combinations(order, k))


def _group_cost(
    group: tuple[int, ...], load: dict[int, int], shared: Counter[tuple[int, int]], floor: int
) -> tuple[bool, int]:
    # Loads never drift more than one apart; within that, low load and little shared work win.
    loads = [load[a] for a in group]
    overlap = sum(shared[_key(a, b)] for n, a in enumerate(group) for b in group[n + 1 :])
    return max(loads) > floor + 1, sum(loads) + overlap


def _greedy_group(
    order: list[int], k: int, load: dict[int, int], shared: Counter[tuple[int, int]]
) -> list[int]:
    chosen: list[int] = []
    for _ in range(k):
        chosen.append(
            min(
                (a for a in order if a not in chosen),
                key=lambda a: (load[a], sum(shared[_key(a, b)] for b in chosen)),
            )
        )
    return chosen


def plan_assignments(
    project: Project,
    *,
    annotator_ids: Sequence[int],
    selection: str = "all",
    n: int | None = None,
    seed: int | None = None,
    conditions: PairFilter | None = None,
    per_pair: str = "everyone",
    k: int | None = 1,
    phase: str | None = None,
    round: int = 0,
) -> Plan:
    """Preview: the pairs chosen, who gets which, and the resulting load per annotator. Writes nothing."""
    phase = phase or project.phase
    _check_phase(phase)
    known = dict(project_annotators(project))
    _check_annotators(annotator_ids, known)
    pair_ids = select_pairs(project, selection=selection, n=n, seed=seed, conditions=conditions)
    planned = distribute(pair_ids, list(annotator_ids), per_pair=per_pair, k=k, seed=seed)
    existing = _existing(project, planned, round)
    return Plan(
        project_id=project.pk,
        phase=phase,
        round=round,
        per_pair=per_pair,
        k=1 if per_pair == "one" else (len(annotator_ids) if per_pair == "everyone" else k or 1),
        seed=seed,
        pair_ids=tuple(pair_ids),
        annotator_ids=tuple(annotator_ids),
        assignments=tuple(planned),
        existing=frozenset(existing),
        loads=tuple(_loads(project, known, planned, existing, round)),
    )


def _check_phase(phase: str) -> None:
    if phase not in Project.Phase.values:
        raise ValidationError({"phase": f"Phase must be training, agreement or final, not {phase!r}."})


def _check_annotators(annotator_ids: Sequence[int], known: Mapping[int, str]) -> None:
    unknown = [a for a in annotator_ids if a not in known]
    if unknown:
        raise ValidationError({"annotators": f"User {unknown[0]} is not an annotator of this project."})


def _existing(project: Project, planned: list[tuple[int, int]], round: int) -> set[tuple[int, int]]:
    have = Assignment.objects.filter(project=project, pair__isnull=False, round=round).values_list(
        "annotator_id", "pair_id"
    )
    planned_set = set(planned)
    return {row for row in have if row in planned_set}


def _loads(
    project: Project,
    annotators: dict[int, str],
    planned: list[tuple[int, int]],
    existing: set[tuple[int, int]],
    round: int,
) -> list[Load]:
    counts: dict[int, Mapping[str, Any]] = {
        row["annotator_id"]: row
        for row in Assignment.objects.filter(project=project, pair__isnull=False, round=round)
        .values("annotator_id")
        .annotate(total=Count("id"), done=Count("id", filter=Q(status=Assignment.Status.DONE)))
    }
    new = Counter(a for a, p in planned if (a, p) not in existing)
    return [
        Load(
            annotator_id=user_id,
            username=name,
            existing=counts.get(user_id, {}).get("total", 0),
            new=new.get(user_id, 0),
            done=counts.get(user_id, {}).get("done", 0),
        )
        for user_id, name in annotators.items()
    ]


@transaction.atomic
def apply_plan(plan: Plan) -> int:
    """Write the plan's Assignment rows that do not exist yet (idempotent). Returns how many were new."""
    project = Project.objects.select_for_update().get(pk=plan.project_id)
    have = _existing(project, list(plan.assignments), plan.round)
    positions = dict(Pair.objects.filter(pk__in=plan.pair_ids).values_list("pk", "position"))
    for annotator_id in plan.annotator_ids:
        grant_role(project, _user(annotator_id), Membership.Role.ANNOTATOR)
    new = [
        Assignment(
            project=project,
            annotator_id=annotator_id,
            pair_id=pair_id,
            phase=plan.phase,
            round=plan.round,
            queue_position=positions[pair_id],
        )
        for annotator_id, pair_id in plan.assignments
        if (annotator_id, pair_id) not in have and pair_id in positions
    ]
    Assignment.objects.bulk_create(new)
    return len(new)


# ---- stored plans: computed once off the request, read a page at a time ---------------------------

#: Planned rows shown (and returned by the API) at a time.
PLAN_PAGE_SIZE = 100
#: Planned rows written or applied per statement batch.
PLAN_BATCH = 5000
#: Stored plans kept per project (older ones are deleted when a new one is stored).
PLANS_KEPT = 20


def plan_choices(
    *,
    annotator_ids: Sequence[int],
    selection: str = "all",
    n: int | None = None,
    seed: int | None = None,
    conditions: PairFilter | None = None,
    per_pair: str = "everyone",
    k: int | None = 1,
    phase: str | None = None,
    round: int = 0,
) -> dict[str, Any]:
    """The planner's choices as the flat JSON a stored plan keeps (and `plan_kwargs` reads back)."""
    conditions = conditions or PairFilter()
    return {
        "annotators": list(annotator_ids),
        "selection": selection,
        "n": n,
        "seed": seed,
        "label_key": conditions.label_key,
        "label_value": conditions.label_value,
        "source_prefix": conditions.source_prefix,
        "unannotated": conditions.unannotated,
        "unassigned": conditions.unassigned,
        "per_pair": per_pair,
        "k": k,
        "phase": phase,
        "round": round,
    }


def plan_kwargs(choices: Mapping[str, Any]) -> dict[str, Any]:
    """`plan_assignments` keyword arguments from a stored plan's choices."""
    return {
        "annotator_ids": list(choices["annotators"]),
        "selection": choices["selection"],
        "n": choices["n"],
        "seed": choices["seed"],
        "conditions": PairFilter(
            label_key=choices["label_key"],
            label_value=choices["label_value"],
            source_prefix=choices["source_prefix"],
            unannotated=choices["unannotated"],
            unassigned=choices["unassigned"],
        ),
        "per_pair": choices["per_pair"],
        "k": choices["k"],
        "phase": choices["phase"],
        "round": choices["round"],
    }


def _choices_key(choices: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(choices, sort_keys=True).encode()).hexdigest()


def source_mark(project: Project, annotators: Sequence[tuple[int, str]]) -> tuple[str, int]:
    """(mark, number of pairs): what a plan depends on besides its choices — the project's pairs
    (how many, the last id, the sum of their positions) and its annotators. One aggregate query."""
    pairs = Pair.objects.filter(project=project).aggregate(
        n=Count("pk"), last=Max("pk"), order=Sum("position")
    )
    ids = ",".join(str(pk) for pk, _ in sorted(annotators))
    text = f"pairs {pairs['n']} {pairs['last']} {pairs['order']}; annotators {ids}"
    return hashlib.sha256(text.encode()).hexdigest(), pairs["n"]


def check_choices(choices: Mapping[str, Any], n_pairs: int, known: Mapping[int, str]) -> None:
    """The rules `plan_assignments` enforces that need no pass over the pairs, with its messages."""
    _check_phase(choices["phase"])
    _check_annotators(choices["annotators"], known)
    _check_selection(choices["selection"], choices["n"], n_pairs, plan_kwargs(choices)["conditions"])
    _check_per_pair(choices["per_pair"], choices["k"], len(choices["annotators"]))


def request_plan(project: Project, user: Any, **kwargs: Any) -> AssignmentPlan:
    """The stored plan of these choices (`plan_assignments`' arguments) on the project as it is now.

    The choices are checked first (ValidationError with the planner's messages). An existing plan
    for the same choices, pairs and annotators, not yet applied, is returned as it is (ready, or still
    computing); otherwise a new one is stored and the `annotator.compute_assignment_plan` task sent —
    without a broker it has run when this returns; a queue that cannot be reached leaves the plan
    failed, with the message. Cost: a few queries whatever the project's size.
    """
    kwargs.setdefault("phase", None)
    kwargs["phase"] = kwargs["phase"] or project.phase
    choices = plan_choices(**kwargs)
    known = dict(project_annotators(project))
    source, n_pairs = source_mark(project, list(known.items()))
    check_choices(choices, n_pairs, known)
    key = _choices_key(choices)
    found = (
        AssignmentPlan.objects.filter(project=project, params_key=key, source=source, applied_at=None)
        .exclude(status=AssignmentPlan.Status.FAILED)
        .order_by("-pk")
        .first()
    )
    if found is not None:
        return found
    plan = AssignmentPlan.objects.create(
        project=project, created_by=user, params=choices, params_key=key, source=source
    )
    if taskqueue.runs_in_process():
        _send(plan.pk)
    else:
        transaction.on_commit(lambda: _send(plan.pk))
    plan.refresh_from_db()
    return plan


def _send(plan_id: int) -> None:
    """Hand the plan to a worker; if the queue is unreachable the plan fails now, saying so."""
    try:
        taskqueue.enqueue("annotator.compute_assignment_plan", plan_id)
    except taskqueue.QueueUnavailable as exc:
        AssignmentPlan.objects.filter(pk=plan_id, status=AssignmentPlan.Status.PENDING).update(
            status=AssignmentPlan.Status.FAILED, error=f"{exc} Change an option to try again."
        )


def compute_stored_plan(plan_id: int) -> str | None:
    """Compute a stored plan: `plan_assignments` with its choices; store the loads, the overlap, the
    totals and the planned rows. A finished plan is left as it is (a re-delivered task changes
    nothing); a deleted one is skipped (None). Choices the project no longer allows (a pair or an
    annotator went) leave the plan failed with the message. Older plans beyond `PLANS_KEPT` are deleted.
    """
    stored = AssignmentPlan.objects.select_related("project").filter(pk=plan_id).first()
    if stored is None:
        return None
    if stored.finished:
        return stored.status
    AssignmentPlan.objects.filter(pk=plan_id).update(status=AssignmentPlan.Status.RUNNING)
    try:
        plan = plan_assignments(stored.project, **plan_kwargs(stored.params))
    except ValidationError as error:
        message = " ".join(error.messages)
        AssignmentPlan.objects.filter(pk=plan_id).update(status=AssignmentPlan.Status.FAILED, error=message)
        return AssignmentPlan.Status.FAILED
    first = list(plan.pair_ids[:8])
    source_ids = dict(Pair.objects.filter(pk__in=first).values_list("pk", "source_id"))
    with transaction.atomic():
        PlannedAssignment.objects.filter(plan_id=plan_id).delete()
        for start in range(0, len(plan.assignments), PLAN_BATCH):
            PlannedAssignment.objects.bulk_create(
                PlannedAssignment(
                    plan_id=plan_id,
                    position=start + n,
                    annotator_id=annotator_id,
                    pair_id=pair_id,
                    is_new=(annotator_id, pair_id) not in plan.existing,
                )
                for n, (annotator_id, pair_id) in enumerate(plan.assignments[start : start + PLAN_BATCH])
            )
        AssignmentPlan.objects.filter(pk=plan_id).update(
            status=AssignmentPlan.Status.READY,
            n_pairs=len(plan.pair_ids),
            n_assignments=len(plan.assignments),
            n_new=len(plan.new_assignments),
            loads=[
                {
                    "annotator_id": load.annotator_id,
                    "username": load.username,
                    "existing": load.existing,
                    "new": load.new,
                    "done": load.done,
                    "total": load.total,
                }
                for load in plan.loads
            ],
            overlap=[[a, b, shared] for (a, b), shared in sorted(plan.overlap.items())],
            first_pairs=[source_ids[pk] for pk in first if pk in source_ids],
        )
    kept = AssignmentPlan.objects.filter(project=stored.project).order_by("-pk")[:PLANS_KEPT]
    AssignmentPlan.objects.filter(project=stored.project, pk__lt=min(p.pk for p in kept)).delete()
    return AssignmentPlan.Status.READY


def planned_page(plan: AssignmentPlan, page: int) -> list[Mapping[str, Any]]:
    """One page (`PLAN_PAGE_SIZE`) of a stored plan's rows in queue order: position, annotator and
    pair ids, username, pair source id, new or already assigned. One indexed query."""
    start = (max(page, 1) - 1) * PLAN_PAGE_SIZE
    return list(
        PlannedAssignment.objects.filter(plan=plan, position__gte=start, position__lt=start + PLAN_PAGE_SIZE)
        .order_by("position")
        .values("position", "annotator_id", "pair_id", "annotator__username", "pair__source_id", "is_new")
    )


def plan_pages(plan: AssignmentPlan) -> int:
    """How many pages of planned rows the plan has (at least one)."""
    return max(1, math.ceil(plan.n_assignments / PLAN_PAGE_SIZE))


@transaction.atomic
def apply_stored_plan(plan: AssignmentPlan) -> int:
    """Write exactly the stored plan's rows that do not exist yet (idempotent); returns how many.

    Refused (ValidationError on "plan") while the plan is not ready, and when the project's pairs or
    annotators changed since it was computed: preview again, then assign.
    """
    project = Project.objects.select_for_update().get(pk=plan.project_id)
    if plan.status != AssignmentPlan.Status.READY:
        raise ValidationError({"plan": "This plan is not ready yet; wait for its preview, then assign."})
    annotators = project_annotators(project)
    if source_mark(project, annotators)[0] != plan.source:
        raise ValidationError(
            {
                "plan": "The project's pairs or annotators changed since this preview; "
                "nothing was assigned. Check the new preview and assign again."
            }
        )
    choices = plan.params
    created = 0
    start = 0
    while start < plan.n_assignments:
        rows = list(
            PlannedAssignment.objects.filter(plan=plan, position__gte=start, position__lt=start + PLAN_BATCH)
            .order_by("position")
            .values_list("annotator_id", "pair_id", "pair__position")
        )
        start += PLAN_BATCH
        have = set(
            Assignment.objects.filter(
                project=project, round=choices["round"], pair_id__in={pair for _, pair, _ in rows}
            ).values_list("annotator_id", "pair_id")
        )
        new = [
            Assignment(
                project=project,
                annotator_id=annotator_id,
                pair_id=pair_id,
                phase=choices["phase"],
                round=choices["round"],
                queue_position=position,
            )
            for annotator_id, pair_id, position in rows
            if (annotator_id, pair_id) not in have
        ]
        Assignment.objects.bulk_create(new)
        created += len(new)
    AssignmentPlan.objects.filter(pk=plan.pk).update(applied_at=timezone.now(), created=created)
    plan.refresh_from_db()
    return created


def assign_whole_project(
    project: Project, annotators: Sequence[Any], user: Any, *, phase: str | None = None, round: int = 0
) -> tuple[AssignmentPlan, int | None]:
    """Give every listed annotator every pair of the project through a stored plan (they become
    annotators of the project first). Returns the plan and how many assignments were written — None
    while a worker is still computing the plan (ask again: the same plan comes back and is applied).

    The pairs are never held in memory: the worker stores the planned rows, `apply_stored_plan` writes
    them in batches. A queue that cannot be reached fails the plan with its message (ValidationError).
    """
    for annotator in annotators:
        grant_role(project, annotator, Membership.Role.ANNOTATOR)
    plan = request_plan(
        project,
        user,
        annotator_ids=sorted({annotator.pk for annotator in annotators}),
        selection="all",
        seed=0,
        per_pair="everyone",
        k=None,
        phase=phase,
        round=round,
    )
    if plan.status == AssignmentPlan.Status.FAILED:
        raise ValidationError({"plan": plan.error})
    if not plan.finished:
        return plan, None
    return plan, apply_stored_plan(plan)


def _user(user_id: int) -> Any:

    return get_user_model().objects.get(pk=user_id)


def assignment_summary(project: Project) -> list[dict[str, Any]]:
    """Per annotator of the project: pair assignments total / done / postponed / to do, time spent."""
    rows: dict[int, Mapping[str, Any]] = {
        row["annotator_id"]: row
        for row in Assignment.objects.filter(project=project, pair__isnull=False)
        .values("annotator_id")
        .annotate(
            total=Count("id"),
            done=Count("id", filter=Q(status=Assignment.Status.DONE)),
            postponed=Count("id", filter=Q(status=Assignment.Status.POSTPONED)),
            seconds=Sum("time_spent"),
        )
    }
    out = []
    for user_id, name in project_annotators(project):
        row = rows.get(user_id, {})
        total, done, postponed = row.get("total", 0), row.get("done", 0), row.get("postponed", 0)
        out.append(
            {
                "annotator_id": user_id,
                "username": name,
                "total": total,
                "done": done,
                "postponed": postponed,
                "todo": total - done - postponed,
                "seconds": row.get("seconds") or 0,
            }
        )
    return out
