"""Re-evaluation of disagreed items (Fujita): each rater re-judges the items whose binary class
(G2 for grammaticality, M2 for meaning) the raters disagreed on, mixed with a 10 % sample of agreed
items, in a shuffled order.

The sets are drawn by `metrics.reeval.reevaluation_sets` (spec §7, the normative PCG64 recipe) from
the initial judgements, and stored per (rater, viewpoint) with the seed and fraction so that the draw
can be redone. Item ids in the stored sets are the interchange document's ids
(`"<unit source_id>/<item source_id>"`, `annotator.agreement.evaluation_item_ids`) and raters are
usernames, so a set can be compared with `python -m metrics report` on the exported project.

Only judgements of *finalized* units enter the draw: a lead may start re-evaluation before everyone
has finished, and a half-rated unit is not yet a judgement. Once every unit is finalized this is
exactly the document's `evaluations.ratings`, and the sets equal the report's `reeval.G`/`reeval.M`
for the same seed and fraction.

Each rater gets a round-1 `Assignment` for every unit holding an item of their sets, ordered by the
first appearance of the unit's items in the shuffled orders. Re-evaluation judgements are separate
rows (`phase="reevaluation"`); the initial ones are never touched.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from annotator.agreement.document import evaluation_item_ids, project_annotators
from annotator.evaluation.rounds import INITIAL_ROUND, REEVALUATION_ROUND, Status, Step, new_assignment
from annotator.models import Assignment, EvaluationItem, Judgement, Project, ReevaluationSet
from metrics.reeval import ReevalSet, Viewpoint, reevaluation_sets
from metrics.types import Judgement as MJudgement

VIEWPOINTS: tuple[Viewpoint, ...] = ("G", "M")
DEFAULT_FRACTION = 0.1


def initial_judgements(project: Project) -> tuple[list[str], list[MJudgement]]:
    """The raters (usernames, document order) and their initial judgements of finalized units."""
    names = dict(project_annotators(project))
    ids = evaluation_item_ids(project)
    finalized = Assignment.objects.filter(
        project=project, round=INITIAL_ROUND, step=Step.FINALIZED, unit__isnull=False
    ).values_list("unit_id", "annotator_id")
    rows = Judgement.objects.filter(
        item__unit__project=project, phase=Judgement.Phase.INITIAL, rater_id__in=list(names)
    ).values_list("item_id", "item__unit_id", "rater_id", "step", "label")
    done = set(finalized)
    labels: dict[tuple[int, int], dict[str, str]] = defaultdict(dict)
    for item_id, unit_id, rater_id, step, label in rows:
        if (unit_id, rater_id) in done:
            labels[item_id, rater_id]["G" if step == Step.GRAMMATICALITY else "M"] = label
    order = {pk: n for n, pk in enumerate(ids)}
    rater_order = {user_id: n for n, user_id in enumerate(names)}
    keys = sorted(labels, key=lambda k: (order[k[0]], rater_order[k[1]]))
    judgements = [
        MJudgement(item=ids[i], rater=names[r], G=labels[i, r].get("G"), M=labels[i, r].get("M"))
        for i, r in keys
    ]
    return list(names.values()), judgements


@transaction.atomic
def build_reevaluation_sets(project: Project, seed: int = 0, *, fraction: float = DEFAULT_FRACTION) -> int:
    """Draw and store every rater's G and M re-evaluation sets; give them their round-1 units.

    Running it again with the same seed on the same judgements changes nothing. Returns the number
    of round-1 assignments created.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValidationError({"seed": f"The seed must be a whole number ≥ 0, not {seed!r}."})
    raters, judgements = initial_judgements(project)
    if not judgements:
        raise ValidationError(
            {"project": "No unit has been finalized yet, so there is nothing to re-evaluate."}
        )
    sets = {
        viewpoint: reevaluation_sets(
            judgements, viewpoint=viewpoint, seed=seed, fraction=fraction, raters=raters
        )
        for viewpoint in VIEWPOINTS
    }
    users = {u.username: u for u in get_user_model().objects.filter(username__in=raters)}
    for viewpoint, by_rater in sets.items():
        for name, drawn in by_rater.items():
            _store(project, users[name], viewpoint, drawn, seed, fraction)
    return _assign_round(project, users, sets)


def _store(
    project: Project, rater: Any, viewpoint: str, drawn: ReevalSet, seed: int, fraction: float
) -> None:
    ReevaluationSet.objects.update_or_create(
        project=project,
        rater=rater,
        viewpoint=viewpoint,
        defaults={"seed": seed, "fraction": fraction, **drawn.as_dict()},
    )


def _assign_round(
    project: Project, users: dict[str, Any], sets: dict[Viewpoint, dict[str, ReevalSet]]
) -> int:
    unit_of = _unit_of_document_item(project)
    units = {unit.pk: unit for unit in project.units.all()}
    created = 0
    for name, rater in users.items():
        first_seen: dict[int, int] = {}
        for viewpoint in VIEWPOINTS:
            for n, item in enumerate(sets[viewpoint][name].order):
                unit_id = unit_of[item]
                first_seen[unit_id] = min(first_seen.get(unit_id, n), n)
        have = set(
            Assignment.objects.filter(
                annotator=rater, round=REEVALUATION_ROUND, unit_id__in=list(first_seen)
            ).values_list("unit_id", flat=True)
        )
        new = []
        for unit_id, position in sorted(first_seen.items(), key=lambda kv: kv[1]):
            if unit_id not in have:
                assignment = new_assignment(project, rater, units[unit_id], round=REEVALUATION_ROUND)
                assignment.queue_position = position
                new.append(assignment)
        Assignment.objects.bulk_create(new)
        created += len(new)
    return created


def _unit_of_document_item(project: Project) -> dict[str, int]:
    ids = evaluation_item_ids(project)
    units = dict(EvaluationItem.objects.filter(unit__project=project).values_list("pk", "unit_id"))
    return {doc_id: units[pk] for pk, doc_id in ids.items()}


# ---- what a rater sees ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Marks:
    """Which of a rater's items are in their re-evaluation sets, by item pk and viewpoint."""

    grammaticality: frozenset[int]
    meaning: frozenset[int]

    def of(self, item_pk: int) -> list[str]:
        return [
            s
            for s, marked in ((Step.GRAMMATICALITY, self.grammaticality), (Step.MEANING, self.meaning))
            if item_pk in marked
        ]


def marks_for(project: Project, rater: Any) -> Marks:
    """The rater's marked items (never anyone else's)."""
    doc_ids = {doc_id: pk for pk, doc_id in evaluation_item_ids(project).items()}
    rows = ReevaluationSet.objects.filter(project=project, rater=rater).values_list("viewpoint", "order")
    marked: dict[str, set[int]] = {"G": set(), "M": set()}
    for viewpoint, order in rows:
        marked[viewpoint].update(doc_ids[i] for i in order if i in doc_ids)
    return Marks(frozenset(marked["G"]), frozenset(marked["M"]))


def has_started(project: Project) -> bool:
    return ReevaluationSet.objects.filter(project=project).exists()


@transaction.atomic
def open_unit_for_revisit(project: Project, rater: Any, unit_id: int) -> Assignment:
    """A rater may revisit any unit they finalized once re-evaluation has started, marked or not."""
    existing = Assignment.objects.filter(unit_id=unit_id, annotator=rater, round=REEVALUATION_ROUND).first()
    if existing is not None:
        return existing
    if not has_started(project):
        raise ValidationError({"unit": "Re-evaluation has not started in this project yet."})
    initial = (
        Assignment.objects.filter(
            Q(step=Step.FINALIZED), unit_id=unit_id, annotator=rater, round=INITIAL_ROUND
        )
        .select_related("unit")
        .first()
    )
    if initial is None or initial.unit is None:
        raise ValidationError({"unit": "Only units you have finalized can be re-evaluated."})
    assignment = new_assignment(project, rater, initial.unit, round=REEVALUATION_ROUND)
    assignment.queue_position = 10**6 + initial.unit.position  # after the marked units
    assignment.status = Status.TODO
    assignment.save()
    return assignment


def initial_phase_complete(project: Project) -> bool:
    """Every assigned unit has been finalized by each of its raters (and there is at least one)."""
    rows = Assignment.objects.filter(project=project, round=INITIAL_ROUND, unit__isnull=False)
    return rows.exists() and not rows.exclude(step=Step.FINALIZED).exists()
