"""The built-in initial word aligner: link identical tokens of the two members.

Annotators correct an automatic alignment rather than start from nothing (Cohn, Callison-Burch &
Lapata 2008), and κ_C measures each annotator's edits against that starting point (spec §5.4), so the
starting point must be deterministic and apart from anyone's links. A pair's stored initial alignment
(imported, or written by the project's trained aligner, `annotator.corpus.aligner_training`) wins; for
a pair without one this matcher is the fallback, computed when needed and never written when someone
opens the pair (opening a pair records nothing).

Rule: tokens are compared case-insensitively (``str.casefold``). First every form that occurs exactly
once in each member is linked (unique matches are safe anchors). Then the remaining occurrences of
repeated forms are linked one-to-one, closest relative position first (i/n₁ against j/n₂), so
"the … the" in one member pairs with "the … the" in the other in order. A token gets at most one link.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the matcher itself is pure: importing this module loads no Django model
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


def suggested_alignment(pair: Pair) -> tuple[list[list[int]], str]:
    """The automatic links shown to annotators as suggestions, and where they come from.

    The stored initial alignment (imported, or the project's trained aligner) when the pair has one;
    otherwise the identical-token matcher computed on the spot. Nothing is written: a suggestion only
    becomes someone's link when that annotator accepts it.
    """
    if pair.initial_alignment is not None:
        return [list(link) for link in pair.initial_alignment], pair.initial_alignment_source or "imported"
    return identical_token_alignment(pair.tokens1, pair.tokens2), SOURCE


def suggestion_confidences(pair: Pair) -> list[float | None]:
    """The confidence of each of the pair's suggested links (`suggested_alignment`'s, in its order), or
    None for a link without one (imported, the fallback matcher, eflomal): the stored confidences when
    they are the initial alignment's, one per link."""
    links = pair.initial_alignment
    stored = pair.initial_alignment_confidence
    if links is None:
        return [None] * len(identical_token_alignment(pair.tokens1, pair.tokens2))
    if isinstance(stored, list) and len(stored) == len(links):
        return [float(c) if isinstance(c, int | float) else None for c in stored]
    return [None] * len(links)


def is_likely(confidence: float | None, threshold: float) -> bool:
    """Whether a suggested link is shown strongly: no confidence of its own, or at least the threshold."""
    return confidence is None or confidence >= threshold


def baseline_alignment(
    initial: Sequence[Sequence[int]] | None, tokens1: Sequence[str], tokens2: Sequence[str]
) -> list[list[int]]:
    """κ_C's starting point of a pair: its stored initial alignment, else the identical-token matcher's."""
    if initial is not None:
        return [list(link) for link in initial]
    return identical_token_alignment(tokens1, tokens2)
