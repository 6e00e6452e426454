"""A project's corpus: adding pairs and evaluation units (each unit checked, with its items) and
assigning pairs to annotators (who become the project's annotators through
`annotator.projects.roles.grant_role`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.core import counts
from annotator.core.trees import tree_nodes
from annotator.models import Assignment, EvaluationItem, EvaluationUnit, Membership, Pair, Project
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
def create_unit(
    project: Project,
    source_id: str,
    source_sentence: str,
    phrase: str,
    phrase_start: int,
    phrase_end: int,
    substitutions: Sequence[tuple[str, str, str]],
    *,
    position: int | None = None,
) -> EvaluationUnit:
    """Build a unit: the source sentence with the marked phrase and one item per substitution.

    `substitutions` are `(item_id, paraphrase, candidate_source)`; each item's sentence is the source
    with `source_sentence[phrase_start:phrase_end]` replaced by the paraphrase.
    """
    source_id = str(source_id).strip()
    _check_unit(project, source_id, source_sentence, phrase, phrase_start, phrase_end)
    if position is None:
        position = counts.n_units(project)
    unit = EvaluationUnit.objects.create(
        project=project,
        source_id=source_id,
        position=position,
        source_sentence=source_sentence,
        phrase=phrase,
        phrase_start=phrase_start,
        phrase_end=phrase_end,
    )
    items = [_item(unit, n, substitution) for n, substitution in enumerate(substitutions)]
    if not items:
        raise ValidationError({"substitutions": f"Unit {source_id} needs at least one substitution."})
    seen = Counter(item.source_id for item in items)
    dupes = [name for name, count in seen.items() if count > 1]
    if dupes:
        raise ValidationError({"substitutions": f"Unit {source_id}: item id {dupes[0]!r} is used twice."})
    EvaluationItem.objects.bulk_create(items)
    return unit


def _check_unit(project: Project, source_id: str, sentence: str, phrase: str, start: int, end: int) -> None:
    if not source_id:
        raise ValidationError({"source_id": "The unit needs an id."})
    if EvaluationUnit.objects.filter(project=project, source_id=source_id).exists():
        raise ValidationError({"source_id": f"Unit {source_id!r} already exists in {project.name}."})
    if not sentence.strip():
        raise ValidationError({"source_sentence": f"Unit {source_id}: the source sentence is empty."})
    if not (0 <= start < end <= len(sentence)):
        raise ValidationError(
            {
                "phrase_start": f"Unit {source_id}: characters {start}–{end} are not a span of the "
                f"{len(sentence)}-character source sentence."
            }
        )
    if sentence[start:end] != phrase:
        raise ValidationError(
            {
                "phrase": f"Unit {source_id}: characters {start}–{end} of the source sentence read "
                f"{sentence[start:end]!r}, not the phrase {phrase!r}."
            }
        )


def _item(unit: EvaluationUnit, n: int, substitution: Sequence[str]) -> EvaluationItem:
    if len(substitution) != 3:
        raise ValidationError(
            {
                "substitutions": f"Unit {unit.source_id}, substitution {n + 1}: expected "
                "(item id, paraphrase, candidate source)."
            }
        )
    item_id, paraphrase, candidate_source = (str(part).strip() for part in substitution)
    if not item_id or not paraphrase:
        missing = "an item id" if not item_id else "a paraphrase"
        raise ValidationError(
            {"substitutions": f"Unit {unit.source_id}, substitution {n + 1} has no {missing}."}
        )
    s, start, end = unit.source_sentence, unit.phrase_start, unit.phrase_end
    return EvaluationItem(
        unit=unit,
        source_id=item_id,
        position=n,
        paraphrase=paraphrase,
        sentence=s[:start] + paraphrase + s[end:],
        substitution_start=start,
        substitution_end=start + len(paraphrase),
        candidate_source=candidate_source,
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
