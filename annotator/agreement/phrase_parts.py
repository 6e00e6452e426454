"""Agreement sums computed from the pairs' phrase alignments, kept by the database with each pair's part.

SPADE's ALIR and ALIP (docs/measures.md#spade) intersect corpus-wide sets of phrase alignments
`(pair, s1, s2)`, so every size they take is a sum over the pairs (`metrics.spade_sums`): per annotator
`|H|`, per two annotators `|G ∩ G'|`, per three `|A ∩ B ∩ C|`. The cells are those of
`metrics.spade_sums.pair_part` with annotators as user ids;
an annotator takes part when their `spade.size` is not 0 (the document lists the annotators with a
phrase alignment).

What one pair adds is kept on its `AgreementPhrasePart` row. A phrase alignment save (added, re-marked
sure or possible, removed; undo and redo go through the same services) calls `pair_changed` in its
transaction, holding the pair's row lock (`annotator.annotation.services`): it reads the pair's trees,
its part and its annotators' phrase alignments, computes the pair's part afresh (the sets are within
the pair), writes it and returns the difference, which `sums.add` moves the totals by. `report_figures`
turns the kept totals into the report's ``spade.alir`` and ``spade.alip``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import annotator.agreement.parts as parts
from annotator.agreement.parts import Cell
from annotator.core.trees import node_tokens
from annotator.models import AgreementPhrasePart, Membership, Pair, PhraseAlignment, Project
from metrics.spade_sums import MEASURES, SIZE, joined, pair_part, report_from_sums
from metrics.types import PhraseAlignment as Triple

#: (pair pk, annotator id, node1, node2) of a non-gold phrase alignment of one of the annotators.
Row = tuple[int, int, int | None, int | None]
Trees = Mapping[int, tuple[Sequence[dict[str, Any]], Sequence[dict[str, Any]]]]


def _span(nodes: Sequence[dict[str, Any]], index: int | None) -> frozenset[int] | None:
    tokens = node_tokens(nodes, index)
    return None if tokens is None else frozenset(tokens)


def parts_of_rows(rows: Iterable[Row], trees: Trees) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part (annotators by user id), from the phrase alignment rows and the pairs' tree
    nodes (`trees`: pk → (nodes1, nodes2)); pairs adding nothing are left out. The migration calls it
    with rows read through the historical models."""
    sets: dict[int, dict[str, set[Triple]]] = {}
    for pair_id, annotator_id, node1, node2 in rows:
        nodes1, nodes2 = trees[pair_id]
        triple = Triple(str(pair_id), _span(nodes1, node1), _span(nodes2, node2))
        sets.setdefault(pair_id, {}).setdefault(str(annotator_id), set()).add(triple)
    return {pk: cells for pk, humans in sets.items() if (cells := pair_part(humans))}


def _annotators(project_id: int) -> list[int]:
    return list(
        Membership.objects.filter(project_id=project_id, role=Membership.Role.ANNOTATOR).values_list(
            "user_id", flat=True
        )
    )


def _rows(project_id: int, pair_id: int | None = None) -> tuple[list[Row], Trees]:
    alignments = PhraseAlignment.objects.filter(
        pair__project_id=project_id, is_gold=False, annotator_id__in=_annotators(project_id)
    )
    pairs = Pair.objects.filter(project_id=project_id)
    if pair_id is not None:
        alignments, pairs = alignments.filter(pair_id=pair_id), pairs.filter(pk=pair_id)
    rows: list[Row] = list(alignments.values_list("pair_id", "annotator_id", "node1", "node2"))
    wanted = {row[0] for row in rows}
    trees = {
        pk: (nodes1, nodes2)
        for pk, nodes1, nodes2 in pairs.filter(pk__in=wanted).values_list("pk", "nodes1", "nodes2")
    }
    return rows, trees


def pair_changed(project_id: int, pair_id: int) -> dict[Cell, int]:
    """The pair's phrase alignments may have changed: compute its part afresh, keep it, and return the
    difference from the part it had (the caller adds it to the totals in the same transaction). Nothing
    when the project has no phrase alignment layer. The caller holds the pair's row lock on
    PostgreSQL, so two saves of one pair compute their parts in turn."""
    if not Project.objects.filter(pk=project_id, layer_phrase_alignment=True).exists():
        return {}
    kept = AgreementPhrasePart.objects.filter(pair_id=pair_id).values_list("cells", flat=True).first()
    before = parts.cells_of(kept or [])
    after = parts_of_rows(*_rows(project_id, pair_id)).get(pair_id, {})
    if after == before:
        return {}
    AgreementPhrasePart.objects.update_or_create(
        pair_id=pair_id, defaults={"project_id": project_id, "cells": parts.stored(after)}
    )
    return parts.difference(after, before)


def project_parts(project_id: int) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part, computed afresh from the project's phrase alignments (nothing without the
    layer)."""
    if not Project.objects.filter(pk=project_id, layer_phrase_alignment=True).exists():
        return {}
    return parts_of_rows(*_rows(project_id))


def store_parts(project_id: int, project_parts: Mapping[int, Mapping[Cell, int]]) -> None:
    """Replace the project's phrase parts by `project_parts`."""
    parts.replace_parts(AgreementPhrasePart, project_id, project_parts)


def kept_parts(project_id: int) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part as kept (pairs adding nothing left out)."""
    return parts.kept_parts(AgreementPhrasePart, project_id)


def _named(annotators: str, names: Mapping[str, str]) -> str | None:
    """A cell's annotators with user ids turned into usernames (None when one is not named)."""
    ids = annotators.split("|")
    return joined(*(names[i] for i in ids)) if all(i in names for i in ids) else None


def report_figures(rows: Iterable[tuple[str, str, str, int]], names: Mapping[str, str]) -> dict[str, Any]:
    """The ``spade.alir`` and ``spade.alip`` report keys from the kept totals (`rows`: measure,
    annotators, key, value of the measures of `metrics.spade_sums`; `names`: user id as text →
    username of the project's annotators). Annotators are in the document's order (by name)."""
    cells: dict[Cell, int] = {}
    for measure, annotators, key, n in rows:
        named = _named(annotators, names) if measure in MEASURES else None
        if named is not None:
            cells[(measure, named, key)] = n
    order = sorted(name for (m, a, _), n in cells.items() if m == SIZE and n for name in [a])
    return report_from_sums(order, cells)
