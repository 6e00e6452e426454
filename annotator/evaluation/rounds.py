"""Rounds of evaluation work: round 0 holds the initial judgements, round 1 the re-evaluation."""

from __future__ import annotations

from typing import Any

from annotator.models import Assignment, EvaluationUnit, Project

INITIAL_ROUND = 0
REEVALUATION_ROUND = 1
Step = Assignment.Step
Status = Assignment.Status


def new_assignment(
    project: Project, rater: Any, unit: EvaluationUnit, round: int = INITIAL_ROUND
) -> Assignment:
    """An unsaved assignment of `unit` to `rater` in `round` (initial work starts at grammaticality)."""
    return Assignment(
        project=project,
        annotator=rater,
        unit=unit,
        phase=project.phase,
        round=round,
        step=Step.GRAMMATICALITY if round == INITIAL_ROUND else "",
        queue_position=unit.position,
    )
