"""Atomic phrase pairs of a word alignment (no Django here).

Cohn, Callison-Burch & Lapata (2008, §4.2) score phrase alignments by the *atomic* phrase pairs of a
word alignment: the smallest phrase pairs consistent with it (Och & Ney 2004's consistency: no link
leaves the pair from inside it), which cannot be split into smaller consistent pairs. Each is found
from a link, grown to the smallest consistent box around it: start from the link, take in every link
that has exactly one end inside the box, and repeat until nothing is taken in. Unaligned words are not added at the edges (they would give several pairs per group).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Span = tuple[int, int]  # [start, end)
PhrasePair = tuple[Span, Span]


def atomic_phrase_pairs(links: Iterable[Sequence[int]]) -> set[PhrasePair]:
    """The atomic phrase pairs ``((start1, end1), (start2, end2))`` of the links ``(i, j)``.

    >>> sorted(atomic_phrase_pairs([(0, 0), (1, 1), (2, 1), (3, 3), (4, 2), (4, 3)]))
    [((0, 1), (0, 1)), ((1, 3), (1, 2)), ((3, 5), (2, 4))]
    """
    pairs = {(int(i), int(j)) for i, j in links}
    out: set[PhrasePair] = set()
    for seed in pairs:
        lo1 = hi1 = seed[0]
        lo2 = hi2 = seed[1]
        grown = True
        while grown:
            grown = False
            for i, j in pairs:
                inside1 = lo1 <= i <= hi1
                inside2 = lo2 <= j <= hi2
                if inside1 != inside2:
                    lo1, hi1 = min(lo1, i), max(hi1, i)
                    lo2, hi2 = min(lo2, j), max(hi2, j)
                    grown = True
        out.add(((lo1, hi1 + 1), (lo2, hi2 + 1)))
    return out
