"""Evaluation test data made through the evaluation services (the paths raters and leads take)."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.corpus import projects
from annotator.evaluation import services as evaluation
from annotator.models import EvaluationUnit, Project
from tests import factories

SENTENCE = "The council put off the vote until Monday."
PHRASE = "put off"
START = SENTENCE.index(PHRASE)
SUBSTITUTIONS = [
    ("e1", "postponed", "lexicon-A"),
    ("e2", "delayed", "lexicon-B"),
    ("e3", "put away", "system-X"),
]


def unit(
    project: Project, source_id: str = "u1", substitutions: list[tuple[str, str, str]] | None = None
) -> EvaluationUnit:
    return evaluation.create_unit(
        project, source_id, SENTENCE, PHRASE, START, START + len(PHRASE), substitutions or SUBSTITUTIONS
    )


def evaluation_project(
    name: str = "E", *, n_units: int = 1, raters: tuple[Any, ...] = (), lead: Any = None, r: int | None = None
) -> Project:
    """A project with the evaluation layer, `n_units` units and every unit given to r (default all) raters."""
    project = projects.create_project(
        name,
        leads=[lead] if lead else [],
        layer_evaluation=True,
        layer_pair_label=False,
        layer_phenomena=False,
        layer_word_alignment=False,
    )
    for n in range(n_units):
        unit(project, f"u{n + 1}", [(f"u{n + 1}e{k}", p, s) for k, (_, p, s) in enumerate(SUBSTITUTIONS, 1)])
    if raters:
        evaluation.assign_units(project, raters, r=r or len(raters), seed=0)
    return project


def rate_unit(unit: EvaluationUnit, rater: Any, g: str | list[str], m: str | list[str]) -> None:
    """Judge every item of the unit (G labels, submit, M labels, finalize) as a rater would."""
    items = list(unit.items.all())
    gs = g if isinstance(g, list) else [g] * len(items)
    ms = m if isinstance(m, list) else [m] * len(items)
    labels = {item.source_id: (gl, ml) for item, gl, ml in zip(items, gs, ms, strict=True)}
    evaluation.rate_unit(unit, rater, labels)


@pytest.fixture
def fast_hashing(settings: Any) -> None:
    """Users are made by the dozen here; the production hasher would dominate the run time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def eager_celery() -> Any:
    """Run tasks in-process even when REDIS_URL points at a broker (tests without a worker)."""
    from celery import current_app

    before = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = before


def raters(n: int, prefix: str = "rater") -> list[Any]:
    return [factories.user(f"{prefix}{k + 1}") for k in range(n)]
