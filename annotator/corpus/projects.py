"""A project's corpus: adding pairs and assigning them to annotators (who become the project's
annotators through `annotator.projects.roles.grant_role`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction

from annotator.core import counts
from annotator.core.trees import tree_nodes
from annotator.models import Assignment, Membership, Pair, Project
from annotator.projects.roles import grant_role


def add_pair(
    project: Project,
    source_id: str,
    *,
    tokens1: Sequence[str],
    tokens2: Sequence[str],
    text1: str | None = None,
    text2: str | None = None,
    tree1: str = "",
    tree2: str = "",
    corpus_labels: dict[str, Any] | None = None,
    initial_alignment: Sequence[Sequence[int]] | None = None,
    initial_alignment_source: str = "",
    position: int | None = None,
) -> Pair:
    """Create a pair; trees (if any) must have the members' tokens as leaves."""
    if position is None:
        position = counts.n_pairs(project)
    return Pair.objects.create(
        project=project,
        source_id=source_id,
        position=position,
        text1=text1 if text1 is not None else " ".join(tokens1),
        text2=text2 if text2 is not None else " ".join(tokens2),
        tokens1=list(tokens1),
        tokens2=list(tokens2),
        tree1=tree1,
        tree2=tree2,
        nodes1=tree_nodes(tree1, tokens1) if tree1 else [],
        nodes2=tree_nodes(tree2, tokens2) if tree2 else [],
        corpus_labels=corpus_labels or {},
        initial_alignment=[list(link) for link in initial_alignment]
        if initial_alignment is not None
        else None,
        initial_alignment_source=initial_alignment_source,
    )


@transaction.atomic
def assign_pairs(
    project: Project,
    annotators: Iterable[Any],
    pairs: Iterable[Pair],
    *,
    phase: str | None = None,
    round: int = 0,
) -> int:
    """Give every listed annotator every listed pair (existing assignments are kept). Returns how many were new."""
    pairs = list(pairs)
    created = 0
    for user in annotators:
        grant_role(project, user, Membership.Role.ANNOTATOR)
        have = set(
            Assignment.objects.filter(annotator=user, pair__in=pairs, round=round).values_list(
                "pair_id", flat=True
            )
        )
        new = [
            Assignment(
                project=project,
                annotator=user,
                pair=pair,
                phase=phase or project.phase,
                round=round,
                queue_position=pair.position,
            )
            for pair in pairs
            if pair.pk not in have
        ]
        Assignment.objects.bulk_create(new)
        created += len(new)
    return created
