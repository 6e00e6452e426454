"""What one pair adds to the agreement sums, as its part row keeps it (`[[measure, annotators, key,
value], …]`): shared by the word-alignment, phenomena and phrase-alignment parts (`pair_parts`,
`phenomena_parts`, `phrase_parts`), each with its own model."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import models

Cell = tuple[str, str, str]  # measure, annotators, key


def cells_of(kept: Iterable[Sequence[Any]]) -> dict[Cell, int]:
    """The cells of a part as its row keeps them."""
    return {(m, a, k): int(n) for m, a, k, n in kept}


def stored(cells: Mapping[Cell, int]) -> list[list[Any]]:
    """The part as its row keeps it (cells in order)."""
    return [[m, a, k, n] for (m, a, k), n in sorted(cells.items())]


def difference(after: Mapping[Cell, int], before: Mapping[Cell, int]) -> dict[Cell, int]:
    """What the totals move by when a pair's part goes from `before` to `after` (zero cells left out)."""
    out = dict(after)
    for cell, n in before.items():
        out[cell] = out.get(cell, 0) - n
    return {cell: n for cell, n in out.items() if n}


def replace_parts(
    model: type[models.Model], project_id: int, parts: Mapping[int, Mapping[Cell, int]]
) -> None:
    """Replace the project's parts of `model` by `parts` (pair pk → cells)."""
    model._default_manager.filter(project_id=project_id).delete()
    model._default_manager.bulk_create(
        [model(project_id=project_id, pair_id=pk, cells=stored(c)) for pk, c in parts.items()],
        batch_size=1000,
    )


def kept_parts(model: type[models.Model], project_id: int) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part of `model` as kept (pairs adding nothing left out)."""
    rows = model._default_manager.filter(project_id=project_id).values_list("pair_id", "cells")
    return {pk: cells_of(cells) for pk, cells in rows if cells}
