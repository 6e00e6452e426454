"""A project's sizes and its assignments' tallies, read from the counts the database keeps
(`annotator.models.counts`, kept by triggers): one indexed lookup, whatever the project's size.

`KnownCountPaginator` pages a queryset whose length is known from these counts, so a page of a
1,000,000-pair project costs what a page of a small one costs (no COUNT over the project's rows).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.paginator import Paginator

from annotator.models import AssignmentCount, Project, ProjectSize


def sizes(project: Project | int) -> ProjectSize:
    """The project's numbers of pairs, evaluation units and evaluation items (zeros when it has none)."""
    project_id = project if isinstance(project, int) else project.pk
    return ProjectSize.objects.filter(project_id=project_id).first() or ProjectSize(project_id=project_id)


def n_pairs(project: Project | int) -> int:
    return sizes(project).pairs


def n_units(project: Project | int) -> int:
    return sizes(project).units


def assignment_tallies(project: Project | int, **where: Any) -> list[dict[str, Any]]:
    """The project's assignment tallies, one per annotator, kind, phase, round, status and step:
    rows {annotator_id, username, kind, phase, round, status, step, n, seconds}, filtered by `where`
    (AssignmentCount lookups, e.g. kind="units")."""
    project_id = project if isinstance(project, int) else project.pk
    rows = (
        AssignmentCount.objects.filter(project_id=project_id, **where)
        .values(
            "annotator_id", "annotator__username", "kind", "phase", "round", "status", "step", "n", "seconds"
        )
        .order_by("annotator__username", "kind", "phase", "round", "status", "step")
    )
    return [
        {
            "annotator_id": row["annotator_id"],
            "username": row["annotator__username"],
            "kind": row["kind"],
            "phase": row["phase"],
            "round": row["round"],
            "status": row["status"],
            "step": row["step"],
            "n": row["n"],
            "seconds": row["seconds"],
        }
        for row in rows
    ]


def total(rows: Iterable[dict[str, Any]], **where: Any) -> int:
    """The sum of `n` over the tally rows matching every `where` (a value, or a tuple of values)."""
    return sum(
        row["n"]
        for row in rows
        if all(row[k] in v if isinstance(v, tuple) else row[k] == v for k, v in where.items())
    )


class KnownCountPaginator(Paginator):
    """A Django paginator given its number of objects (from the stored counts) instead of counting."""

    def __init__(self, object_list: Any, per_page: int, *, count: int, **kwargs: Any) -> None:
        super().__init__(object_list, per_page, **kwargs)
        self.__dict__["count"] = count  # `Paginator.count` is a cached property
