"""The two-step evaluation of paraphrase substitutions: units, their raters, judgements and a unit's steps.

A rater works unit by unit. Step 1 (grammaticality) shows only the paraphrased sentences; submitting
it opens step 2 (meaning, against the original); finalizing ends the unit. Until then the rater may
revise the labels of the open step, and may postpone the unit (it returns at the end of the queue).
Every change writes `AnnotationHistory` and tells the recompute pipeline inside its transaction.

The rater's `Assignment` row of the unit is the lock of their work on it (like `PairLabel` for
pairs); a `Judgement` carries its own `version` for optimistic concurrency (`ConflictError`).
Initial judgements live in round 0; re-evaluation judgements (`phase="reevaluation"`) in round 1 are
separate rows, so an initial judgement is never overwritten.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotator import taskqueue
from annotator.agreement import record_change
from annotator.annotation import history
from annotator.annotation.services import ConflictError
from annotator.core import counts
from annotator.evaluation import decision_trees
from annotator.evaluation.reevaluation import has_started, initial_phase_complete, open_unit_for_revisit
from annotator.evaluation.rounds import INITIAL_ROUND, REEVALUATION_ROUND, Status, Step, new_assignment
from annotator.models import Assignment, EvaluationItem, EvaluationUnit, Judgement, Membership, Project
from annotator.models.work import working_rank
from annotator.projects.roles import grant_role

log = logging.getLogger(__name__)

JUDGEMENT_FIELDS = ["item_id", "step", "phase", "label", "answers"]
ASSIGNMENT_FIELDS = ["step", "status", "round"]


# ---- units ----------------------------------------------------------------------------------------


# ---- assigning units to raters --------------------------------------------------------------------


def _pick_raters(loads: dict[Any, int], together: Counter, r: int, order: list[Any]) -> list[Any]:
    """The r least-loaded raters; within a load level, those who have shared fewest units so far.

    Always taking the r least-loaded keeps every rater's load within one of every other's; the
    second criterion spreads the rater pairs so that every pair overlaps.
    """
    chosen: list[Any] = []
    rank = {rater: n for n, rater in enumerate(order)}
    while len(chosen) < r:
        low = min(loads[x] for x in order if x not in chosen)
        level = [x for x in order if x not in chosen and loads[x] == low]
        best = min(level, key=lambda x: (sum(together[frozenset((x, c))] for c in chosen), rank[x]))
        chosen.append(best)
    return chosen


@transaction.atomic
def assign_units(
    project: Project,
    raters: Iterable[Any],
    r: int = 3,
    seed: int = 0,
    *,
    units: Iterable[EvaluationUnit] | None = None,
) -> int:
    """Give each unit (default: the project's units nobody rates yet) to `r` of `raters`.

    Loads stay equal within ±1 (counting units the raters already have) and rater pairs overlap;
    the result depends only on the raters, the units and `seed`. Returns how many assignments were made.
    """
    raters = list(dict.fromkeys(raters))
    if not 1 <= r <= len(raters):
        raise ValidationError(
            {"r": f"Each unit needs r raters with 1 ≤ r ≤ {len(raters)} (the raters given), not {r}."}
        )
    if units is None:
        units = project.units.exclude(assignments__round=INITIAL_ROUND).order_by("position", "id")
    units = list(units)
    for rater in raters:
        grant_role(project, rater, Membership.Role.ANNOTATOR)
    loads, together = _current_loads(project, raters)
    order = sorted(raters, key=lambda u: u.pk)
    random.Random(seed).shuffle(order)
    taken = set(
        Assignment.objects.filter(unit__in=units, round=INITIAL_ROUND).values_list("unit_id", "annotator_id")
    )
    new = []
    for unit in units:
        picked = _pick_raters(loads, together, r, order)
        for rater in picked:
            loads[rater] += 1
            if (unit.pk, rater.pk) not in taken:
                new.append(new_assignment(project, rater, unit))
        together.update(frozenset(p) for p in combinations(picked, 2))
    Assignment.objects.bulk_create(new)
    return len(new)


def _current_loads(project: Project, raters: list[Any]) -> tuple[dict[Any, int], Counter]:
    by_pk = {rater.pk: rater for rater in raters}
    loads = dict.fromkeys(raters, 0)
    raters_of: dict[int, list[Any]] = {}
    rows = Assignment.objects.filter(project=project, unit__isnull=False, round=INITIAL_ROUND)
    for unit_id, rater_id in rows.values_list("unit_id", "annotator_id"):
        if rater_id in by_pk:
            loads[by_pk[rater_id]] += 1
            raters_of.setdefault(unit_id, []).append(by_pk[rater_id])
    together: Counter = Counter()
    for group in raters_of.values():
        together.update(frozenset(p) for p in combinations(group, 2))
    return loads, together


# ---- a rater's work on a unit ---------------------------------------------------------------------


def _locked_assignment(unit_id: int, rater: Any, round: int) -> Assignment:
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("unit", "annotator")
        .filter(unit_id=unit_id, annotator=rater, round=round)
        .first()
    )
    if assignment is None:
        what = "re-evaluation of unit" if round else "unit"
        raise ValidationError({"unit": f"The {what} {unit_id} is not assigned to {rater}."})
    return assignment


def _check_step(assignment: Assignment, step: str, phase: str) -> None:
    if phase == Judgement.Phase.REEVALUATION:
        if assignment.status == Status.DONE:
            raise ValidationError(
                {"unit": "You have finished re-evaluating this unit; its labels are final."}
            )
        return
    if assignment.step == Step.FINALIZED:
        raise ValidationError({"unit": "This unit is finalized; its labels can no longer change."})
    if step == Step.MEANING and assignment.step == Step.GRAMMATICALITY:
        raise ValidationError({"step": "Submit the grammaticality of this unit before judging meaning."})
    if step == Step.GRAMMATICALITY and assignment.step != Step.GRAMMATICALITY:
        raise ValidationError(
            {
                "step": "Grammaticality was submitted and you have seen the original since; "
                "it can no longer change."
            }
        )


def _resolve(step: str, answers: Mapping[str, Any] | None, label: str | None) -> tuple[str, dict[str, str]]:
    """Answers give the label; a bare label (imports, demo data) gets the answers of its path."""
    if answers:
        walked = decision_trees.walk(step, answers)
        found = (
            decision_trees.grammaticality_label
            if step == Step.GRAMMATICALITY
            else decision_trees.meaning_label
        )
        derived = found(answers)
        if label is not None and label != derived:
            raise ValidationError({"label": f"The answers lead to {derived!r}, not {label!r}."})
        return derived, walked.answers
    if label is None:
        raise ValidationError({"answers": "Answer the questions to reach a label."})
    return label, decision_trees.answers_for_label(step, label)


def _check_phase(phase: str) -> int:
    if phase not in Judgement.Phase.values:
        raise ValidationError({"phase": f"Phase must be initial or reevaluation, not {phase!r}."})
    return REEVALUATION_ROUND if phase == Judgement.Phase.REEVALUATION else INITIAL_ROUND


@transaction.atomic
def record_judgement(
    item: EvaluationItem,
    rater: Any,
    step: str,
    answers: Mapping[str, Any] | None = None,
    label: str | None = None,
    phase: str = "initial",
    base_version: int | None = None,
    *,
    actor: Any = None,
) -> Judgement:
    """Record (or revise) the rater's grammaticality or meaning judgement of an item.

    The label follows from the decision-tree `answers` (or `answers` follow from a bare `label`).
    `base_version` is the judgement version the client saw (0 = none yet; None skips the check);
    a stale one raises `ConflictError`. Re-evaluation judgements are separate rows (round 1).
    """
    decision_trees.tree_for(step)
    round = _check_phase(phase)
    label, answers = _resolve(step, answers, label)
    unit = item.unit
    if round == REEVALUATION_ROUND:
        open_unit_for_revisit(unit.project, rater, unit.pk)
    assignment = _locked_assignment(unit.pk, rater, round)
    _check_step(assignment, step, phase)
    if (
        phase == Judgement.Phase.REEVALUATION
        and not Judgement.objects.filter(
            item=item, rater=rater, step=step, phase=Judgement.Phase.INITIAL
        ).exists()
    ):
        raise ValidationError(
            {"item": f"Item {item.source_id} has no earlier {step} judgement to re-evaluate."}
        )
    judgement = Judgement.objects.filter(item=item, rater=rater, step=step, phase=phase).first()
    current = judgement.version if judgement else 0
    if base_version is not None and base_version != current:
        raise ConflictError(
            current,
            f"Your {step} judgement of item {item.source_id} was changed in another tab or device "
            f"(now at version {current}). Reload to see it.",
        )
    if judgement is not None and (judgement.label, judgement.answers) == (label, answers):
        return judgement  # same answers again (a double click): nothing changed
    judgement = _write_judgement(judgement, item, rater, step, phase, label, answers, actor or rater)
    _start(assignment, actor or rater)
    record_change(unit.project_id)
    return judgement


def _write_judgement(
    judgement: Judgement | None,
    item: EvaluationItem,
    rater: Any,
    step: str,
    phase: str,
    label: str,
    answers: Mapping[str, Any],
    actor: Any,
) -> Judgement:
    """Create the judgement, or move the existing one to the new answers and its next version; the
    change goes into the unit's history."""
    unit = item.unit
    if judgement is None:
        judgement = Judgement.objects.create(
            item=item, rater=rater, step=step, phase=phase, label=label, answers=answers
        )
        _history(unit, judgement, "create", actor, rater, None, history.snapshot(judgement, JUDGEMENT_FIELDS))
        return judgement
    before = history.snapshot(judgement, JUDGEMENT_FIELDS)
    judgement.label, judgement.answers = label, answers
    judgement.version += 1
    judgement.save(update_fields=["label", "answers", "version", "updated_at"])
    _history(unit, judgement, "update", actor, rater, before, history.snapshot(judgement, JUDGEMENT_FIELDS))
    return judgement


def _history(
    unit: EvaluationUnit, obj: Any, action: str, actor: Any, owner: Any, before: Any, after: Any
) -> None:
    history.record(
        project_id=unit.project_id,
        unit_id=unit.pk,
        obj=obj,
        action=action,
        actor=actor,
        owner_id=owner.pk,
        before=before,
        after=after,
    )


def _set_assignment(assignment: Assignment, actor: Any, **changes: Any) -> Assignment:
    before = history.snapshot(assignment, ASSIGNMENT_FIELDS)
    for name, value in changes.items():
        setattr(assignment, name, value)
    assignment.save(update_fields=list(changes))
    after = history.snapshot(assignment, ASSIGNMENT_FIELDS)
    if after != before:
        if assignment.unit is None:
            raise ValueError(f"assignment {assignment.pk} is not a unit's")
        _history(assignment.unit, assignment, "update", actor, assignment.annotator, before, after)
    return assignment


def _start(assignment: Assignment, actor: Any) -> None:
    if assignment.status in (Status.TODO, Status.POSTPONED):
        changes: dict[str, Any] = {"status": Status.IN_PROGRESS}
        if assignment.started_at is None:
            changes["started_at"] = timezone.now()
        _set_assignment(assignment, actor, **changes)


def _missing(unit: EvaluationUnit, rater: Any, step: str, phase: str = Judgement.Phase.INITIAL) -> list[str]:
    judged = set(
        Judgement.objects.filter(item__unit=unit, rater=rater, step=step, phase=phase).values_list(
            "item_id", flat=True
        )
    )
    return [item.source_id for item in unit.items.all() if item.pk not in judged]


@transaction.atomic
def submit_grammaticality(unit: EvaluationUnit, rater: Any, *, actor: Any = None) -> Assignment:
    """End step 1: every item needs a grammaticality label; the meaning step opens."""
    assignment = _locked_assignment(unit.pk, rater, INITIAL_ROUND)
    if assignment.step != Step.GRAMMATICALITY:
        return assignment  # already submitted (a second click or another tab)
    missing = _missing(unit, rater, Step.GRAMMATICALITY)
    if missing:
        raise ValidationError(
            {"unit": f"Judge the grammaticality of every sentence first (missing: {', '.join(missing)})."}
        )
    return _set_assignment(assignment, actor or rater, step=Step.MEANING, status=Status.IN_PROGRESS)


@transaction.atomic
def finalize_unit(unit: EvaluationUnit, rater: Any, *, actor: Any = None) -> Assignment:
    """End step 2: every item needs a meaning label; the unit's labels become final."""
    assignment = _locked_assignment(unit.pk, rater, INITIAL_ROUND)
    if assignment.step == Step.FINALIZED:
        return assignment
    if assignment.step != Step.MEANING:
        raise ValidationError({"unit": "Submit the grammaticality of this unit before finalizing it."})
    missing = _missing(unit, rater, Step.MEANING)
    if missing:
        raise ValidationError(
            {"unit": f"Judge the meaning of every sentence first (missing: {', '.join(missing)})."}
        )
    assignment = _set_assignment(
        assignment, actor or rater, step=Step.FINALIZED, status=Status.DONE, finished_at=timezone.now()
    )
    record_change(unit.project_id)
    project_id = unit.project_id
    transaction.on_commit(lambda: start_reevaluation_if_complete(project_id))
    return assignment


def start_reevaluation_if_complete(project_id: int, seed: int = 0) -> bool:
    """Once every unit is finalized, enqueue the drawing of the re-evaluation sets (once per project).

    Seed 0 is the interchange document's default `reeval_seed`, so the sets match the exported report.
    """
    project = Project.objects.filter(pk=project_id).first()
    if project is None or has_started(project) or not initial_phase_complete(project):
        return False
    try:
        taskqueue.enqueue("annotator.build_reevaluation_sets", project_id, seed)
    except (
        taskqueue.QueueUnavailable
    ) as exc:  # broker unreachable: the lead can still start it from the setup page
        log.warning("could not enqueue re-evaluation sets of project %s: %s", project_id, exc)
        return False
    return True


@transaction.atomic
def postpone_unit(
    unit: EvaluationUnit, rater: Any, *, round: int = INITIAL_ROUND, actor: Any = None
) -> Assignment:
    """Put the unit aside: it goes to the end of the rater's queue and comes back after the rest."""
    assignment = _locked_assignment(unit.pk, rater, round)
    if assignment.status == Status.DONE:
        raise ValidationError({"unit": "A finished unit cannot be postponed."})
    return _set_assignment(assignment, actor or rater, status=Status.POSTPONED)


@transaction.atomic
def finish_reevaluation(unit: EvaluationUnit, rater: Any, *, actor: Any = None) -> Assignment:
    """The rater is done re-evaluating this unit (unchanged labels simply stay as they were)."""
    assignment = _locked_assignment(unit.pk, rater, REEVALUATION_ROUND)
    if assignment.status == Status.DONE:
        return assignment
    assignment = _set_assignment(assignment, actor or rater, status=Status.DONE, finished_at=timezone.now())
    record_change(unit.project_id)
    return assignment


# ---- reading a rater's work -----------------------------------------------------------------------


QUEUE_PAGE_SIZE = 100  # units per page of the rating queue, as the annotator's queue of pairs


def rating_queue(project: Project, rater: Any, *, round: int = INITIAL_ROUND) -> QuerySet[Assignment]:
    """The rater's units in working order: open ones by position, then postponed ones, then done ones.

    A query, not a list: the ordering is the database's, so a page of it (a slice) reads one page of
    rows whatever the number of units (`queue_counts` gives the totals)."""
    return (
        Assignment.objects.filter(project=project, annotator=rater, unit__isnull=False, round=round)
        .annotate(working_rank=working_rank())
        .select_related("unit")
        .order_by("working_rank", "queue_position", "id")
    )


@dataclass(frozen=True)
class RatingCounts:
    """How many of the rater's units there are in a round, finalized and postponed."""

    total: int
    done: int
    postponed: int

    @property
    def open(self) -> int:
        return self.total - self.done - self.postponed

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0


def queue_counts(project: Project, rater: Any, *, round: int = INITIAL_ROUND) -> RatingCounts:
    """The totals of the rater's queue, from the stored assignment tallies (one small query)."""
    tallies = counts.assignment_tallies(project, annotator_id=rater.pk, kind="units", round=round)
    return RatingCounts(
        counts.total(tallies),
        counts.total(tallies, status=Status.DONE),
        counts.total(tallies, status=Status.POSTPONED),
    )


def next_unit(
    project: Project, rater: Any, *, round: int = INITIAL_ROUND, after: int | None = None
) -> Assignment | None:
    """The next unit to work on: the first open one (skipping `after`); postponed ones return last.

    The first unfinished unit in working order other than `after`, else `after` if it is unfinished:
    each a query handing back one row through the queue's index."""
    queue = rating_queue(project, rater, round=round).exclude(status=Status.DONE)
    if after is None:
        return queue.first()
    return queue.exclude(unit_id=after).first() or queue.filter(unit_id=after).first()


def judgements_of(
    unit: EvaluationUnit, rater: Any, *, phase: str = Judgement.Phase.INITIAL
) -> dict[tuple[int, str], Judgement]:
    """The rater's own judgements of the unit's items, by (item id, step). Never another rater's."""
    rows: QuerySet[Judgement] = Judgement.objects.filter(item__unit=unit, rater=rater, phase=phase)
    return {(j.item_id, j.step): j for j in rows}


@transaction.atomic
def rate_unit(
    unit: EvaluationUnit,
    rater: Any,
    labels: Mapping[str, tuple[str, str]],
    *,
    finalize: bool = True,
    actor: Any = None,
) -> Assignment:
    """Record a whole unit's ratings in the order a rater works (imports, demo data, tests).

    `labels` maps item source id → (G5 label, M6 label) and must cover every item: all
    grammaticality labels, submit, all meaning labels, then (by default) finalize.
    """
    items = list(unit.items.all())
    missing = [item.source_id for item in items if item.source_id not in labels]
    unknown = sorted(set(labels) - {item.source_id for item in items})
    if missing or unknown:
        what = f"no labels for {', '.join(missing)}" if missing else f"no item {', '.join(unknown)}"
        raise ValidationError({"labels": f"Unit {unit.source_id}: {what}."})
    for item in items:
        record_judgement(item, rater, Step.GRAMMATICALITY, label=labels[item.source_id][0], actor=actor)
    submit_grammaticality(unit, rater, actor=actor)
    for item in items:
        record_judgement(item, rater, Step.MEANING, label=labels[item.source_id][1], actor=actor)
    if finalize:
        return finalize_unit(unit, rater, actor=actor)
    return Assignment.objects.get(unit=unit, annotator=rater, round=INITIAL_ROUND)
