"""Test data made through the services, so tests take the same paths as users."""

from __future__ import annotations

from typing import Any

from annotator.core.tagsets import VILA_NAME
from annotator.corpus import projects
from annotator.models import Project, Tagset

PASSWORD = "test-pass-123"


def user(username: str, *, staff: bool = False) -> Any:
    return projects.create_user(username, PASSWORD, is_staff=staff)


def vila() -> Tagset:
    return Tagset.objects.get(name=VILA_NAME)


def project_with_pairs(
    name: str = "P", *, n_pairs: int = 2, lead: Any = None, annotators: tuple[Any, ...] = (), **fields: Any
) -> Project:
    """A project on the Vila tagset with `n_pairs` small pairs, each assigned to every annotator."""
    project = projects.create_project(name, tagset=vila(), leads=[lead] if lead else [], **fields)
    pairs = [
        projects.add_pair(
            project,
            f"p{n + 1}",
            tokens1=["The", "film", "opened", "on", "Friday", "."],
            tokens2=["Film", "premiered", "Friday", "."],
            tree1="(S (NP (DT The) (NN film)) (VP (VBD opened) (PP (IN on) (NNP Friday))) (. .))",
            tree2="(S (NP (NN Film)) (VP (VBD premiered) (NP (NNP Friday))) (. .))",
            initial_alignment=[[1, 0], [4, 2], [5, 3]],
        )
        for n in range(n_pairs)
    ]
    if annotators:
        projects.assign_pairs(project, annotators, pairs)
    return project
