"""The built-in initial word aligner: link identical tokens of the two members.

Annotators correct an automatic alignment rather than start from nothing (Cohn, Callison-Burch &
Lapata 2008), and κ_C measures each annotator's edits against that starting point (spec §5.4), so the
starting point must be deterministic and stored with the pair, apart from anyone's links.

Rule: tokens are compared case-insensitively (``str.casefold``). First every form that occurs exactly
once in each member is linked (unique matches are safe anchors). Then the remaining occurrences of
repeated forms are linked one-to-one, closest relative position first (i/n₁ against j/n₂), so
"the … the" in one member pairs with "the … the" in the other in order. A token gets at most one link.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from annotator.models import Pair

SOURCE = "identical-tokens"


def _positions(tokens: Sequence[str]) -> dict[str, list[int]]:
    positions: dict[str, list[int]] = defaultdict(list)
    for index, token in enumerate(tokens):
        positions[token.casefold()].append(index)
    return positions


def identical_token_alignment(tokens1: Sequence[str], tokens2: Sequence[str]) -> list[list[int]]:
    """Links ``[i, j]`` between identical tokens (case-insensitive), unique matches first, sorted.

    >>> identical_token_alignment(["The", "film", "opened", "."], ["Film", "premiered", "."])
    [[1, 0], [3, 2]]
    """
    pos1, pos2 = _positions(tokens1), _positions(tokens2)
    n1, n2 = max(len(tokens1), 1), max(len(tokens2), 1)
    links: list[tuple[int, int]] = []
    repeated: list[tuple[float, int, int]] = []
    for form, occ1 in pos1.items():
        occ2 = pos2.get(form)
        if not occ2:
            continue
        if len(occ1) == 1 and len(occ2) == 1:
            links.append((occ1[0], occ2[0]))
            continue
        for i in occ1:
            for j in occ2:
                repeated.append((abs((i + 0.5) / n1 - (j + 0.5) / n2), i, j))
    used1 = {i for i, _ in links}
    used2 = {j for _, j in links}
    for _distance, i, j in sorted(repeated):
        if i not in used1 and j not in used2:
            links.append((i, j))
            used1.add(i)
            used2.add(j)
    return [[i, j] for i, j in sorted(links)]


@transaction.atomic
def ensure_initial_alignment(pair: Pair) -> list[Any]:
    """Give the pair an initial alignment from the built-in aligner when it has none; return it.

    An imported alignment (or an empty one, ``[]``) is kept as it is: only ``None`` means "none yet".
    The conditional update makes concurrent first openings harmless: the same links are written once.
    """
    if pair.initial_alignment is not None:
        return pair.initial_alignment
    links = identical_token_alignment(pair.tokens1, pair.tokens2)
    updated = Pair.objects.filter(pk=pair.pk, initial_alignment__isnull=True).update(
        initial_alignment=links, initial_alignment_source=SOURCE
    )
    if not updated:
        pair.refresh_from_db(fields=["initial_alignment", "initial_alignment_source"])
        return pair.initial_alignment or []
    pair.initial_alignment, pair.initial_alignment_source = links, SOURCE
    return links
