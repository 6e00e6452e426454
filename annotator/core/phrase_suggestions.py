"""Automatic phrase alignments between parse-tree nodes, derived from a word alignment (no Django here).

A pair of nodes ``(u, v)`` — ``u`` in member 1's tree, ``v`` in member 2's — is **consistent** with the
word links L when their yields (the token spans ``[start, end)`` they cover) form a phrase pair in the
sense of standard phrase extraction (Och & Ney 2004; Cohn, Callison-Burch & Lapata 2008 §4.2, spec §5.2
condition 1):

    every link (i, j) ∈ L with i in yield(u) has j in yield(v), and vice versa,
    and at least one link lies inside (i in yield(u) and j in yield(v)).

Unlike the spec's extraction the spans are not free: they are the constituents of the two trees, so
unaligned words may sit on a node's boundary (the tree, not the links, decides where a phrase ends).

Many node pairs can hold the same links: an unaligned word next to a phrase lets both the phrase and
its parent pair with the same counterpart ("opened on Friday" and "on Friday" against "premiered
Friday" when only Friday–Friday is linked). Group the consistent pairs by the links inside them: the
nodes of a group are, on each side, a chain of nested constituents (all contain the group's linked
words, and each of them is consistent with each of the other side's), so every group has one largest
and one smallest pair. Which pairs are suggested (``choice``):

- ``"maximal"`` (default): the largest pair of each group — the constituents that take in the
  unaligned words around their links ("The film" ↔ "Film", "opened on Friday" ↔ "premiered Friday"),
  which is the phrase level an annotator aligns between trees;
- ``"minimal"``: the smallest pair of each group (often single words: "Friday" ↔ "Friday");
- ``"all"``: every consistent pair (each group whole).

Nested groups stay (the whole sentences pair up whenever there is a link, a VP and its NP object each
have their own group), as in SPADE, whose annotators align phrases at every level (Arase & Tsujii 2018).
A unary chain (``NP → NNP``) gives several nodes with the same span; a pair names the topmost node of
each chain (the first in pre-order), so a span pair is suggested once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotator.core.aligner import suggested_alignment

if TYPE_CHECKING:  # the functions are pure: importing this module loads no Django model
    from annotator.models import Pair

CHOICES = ("maximal", "minimal", "all")

NodePair = tuple[int, int]
Span = tuple[int, int]  # [start, end)


def _spans(nodes: Sequence[Mapping[str, Any]], where: str) -> dict[Span, int]:
    """Each distinct span of the tree with its topmost node (pre-order: a parent precedes its children)."""
    spans: dict[Span, int] = {}
    for index, node in enumerate(nodes):
        try:
            start, end = int(node["start"]), int(node["end"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{where}[{index}] has no integer start/end") from exc
        if not 0 <= start < end:
            raise ValueError(f"{where}[{index}] spans [{start}, {end}), not a non-empty token span")
        spans.setdefault((start, end), index)
    return spans


def _links(links: Iterable[Sequence[int]], n: int, m: int) -> list[tuple[int, int]]:
    out = []
    for k, link in enumerate(links):
        if len(link) != 2:
            raise ValueError(f"links[{k}] is {list(link)!r}, not a pair [i, j]")
        i, j = int(link[0]), int(link[1])
        if not (0 <= i < n and 0 <= j < m):
            raise ValueError(f"links[{k}] = [{i}, {j}] is outside the trees' {n} × {m} tokens")
        out.append((i, j))
    return out


def _bounds(links: list[tuple[int, int]], size: int, side: int) -> list[tuple[int, int] | None]:
    """Per token of one side: (min, max) of the other side's indices it links to, or None."""
    bounds: list[tuple[int, int] | None] = [None] * size
    for link in links:
        a, b = link[side], link[1 - side]
        old = bounds[a]
        bounds[a] = (b, b) if old is None else (min(old[0], b), max(old[1], b))
    return bounds


def _span_bounds(bounds: list[tuple[int, int] | None], span: Span) -> tuple[int, int] | None:
    known = [b for b in bounds[span[0] : span[1]] if b is not None]
    if not known:
        return None
    return min(b[0] for b in known), max(b[1] for b in known)


def consistent_span_pairs(
    links: Iterable[Sequence[int]], spans1: Iterable[Span], spans2: Iterable[Span], n: int, m: int
) -> list[tuple[Span, Span]]:
    """The pairs of spans (one per side) consistent with the links, sorted."""
    checked = _links(links, n, m)
    forward, backward = _bounds(checked, n, 0), _bounds(checked, m, 1)
    targets = {s: _span_bounds(forward, s) for s in spans1}
    sources = {s: _span_bounds(backward, s) for s in spans2}
    pairs = []
    for s1, t in targets.items():
        if t is None:
            continue
        for s2, s in sources.items():
            # every link leaving s1 lands in s2, every link leaving s2 lands in s1; s1 has a link,
            # and since its targets lie in s2 that link is inside the pair
            if s is not None and s2[0] <= t[0] and t[1] < s2[1] and s1[0] <= s[0] and s[1] < s1[1]:
                pairs.append((s1, s2))
    return sorted(pairs)


def _one_per_group(
    pairs: list[tuple[Span, Span]], links: list[tuple[int, int]], largest: bool
) -> list[tuple[Span, Span]]:
    """The largest (or smallest) pair of each group of pairs holding the same links."""
    groups: dict[frozenset[tuple[int, int]], list[tuple[Span, Span]]] = {}
    for pair in pairs:
        (a, b), _ = pair
        groups.setdefault(frozenset(link for link in links if a <= link[0] < b), []).append(pair)
    sign = 1 if largest else -1

    def size(pair: tuple[Span, Span]) -> int:
        return sign * (pair[0][1] - pair[0][0] + pair[1][1] - pair[1][0])

    return sorted(max(group, key=size) for group in groups.values())


def phrase_alignments_from_words(
    links: Iterable[Sequence[int]],
    nodes1: Sequence[Mapping[str, Any]],
    nodes2: Sequence[Mapping[str, Any]],
    *,
    choice: str = "maximal",
) -> list[NodePair]:
    """The tree-node pairs ``(node1, node2)`` whose yields are consistent with the word links.

    ``nodes1``/``nodes2`` are the pre-order node lists of `annotator.core.trees.tree_nodes`
    (``{"start", "end"}`` over token indices, ``end`` exclusive); ``links`` are ``[i, j]`` word links.
    ``choice`` is ``"maximal"``, ``"minimal"`` or ``"all"`` (module docstring). Sorted by node index.

    >>> n1 = [{"start": 0, "end": 2}, {"start": 0, "end": 1}, {"start": 1, "end": 2}]  # (S (A a) (B b))
    >>> n2 = [{"start": 0, "end": 2}, {"start": 0, "end": 1}, {"start": 1, "end": 2}]  # (S (X x) (Y y))
    >>> phrase_alignments_from_words([[0, 1], [1, 0]], n1, n2)
    [(0, 0), (1, 2), (2, 1)]
    >>> phrase_alignments_from_words([[0, 1]], n1, n2)  # b and x unaligned: a ↔ y and a b ↔ x y
    [(0, 0)]
    >>> phrase_alignments_from_words([[0, 1]], n1, n2, choice="minimal")
    [(1, 2)]
    """
    if choice not in CHOICES:
        raise ValueError(f"choice must be one of {', '.join(CHOICES)}, got {choice!r}")
    spans1, spans2 = _spans(nodes1, "nodes1"), _spans(nodes2, "nodes2")
    if not spans1 or not spans2:
        return []
    n = max(end for _, end in spans1)
    m = max(end for _, end in spans2)
    links = list(links)
    pairs = consistent_span_pairs(links, spans1, spans2, n, m)
    if choice != "all":
        pairs = _one_per_group(pairs, _links(links, n, m), largest=choice == "maximal")
    return sorted((spans1[s1], spans2[s2]) for s1, s2 in pairs)


def phrase_suggestion_source(word_source: str, word_version: int | None, tree_source: str) -> str:
    """Where a pair's automatic phrase alignment comes from: its word alignment and its trees."""
    words = f"{word_source} v{word_version}" if word_version else word_source
    return f"{words} × {tree_source or 'imported'} trees"


def suggested_phrase_alignment(pair: Pair, *, choice: str = "maximal") -> tuple[list[NodePair], str]:
    """A pair's automatic phrase alignment and its source, computed on the spot (nothing is stored).

    From the pair's word suggestions (`annotator.core.aligner.suggested_alignment`: the stored initial
    alignment with its version, else the identical-token matcher) and its trees (imported or parsed);
    a pair without both trees has none.
    """
    if not pair.nodes1 or not pair.nodes2:
        return [], ""
    links, word_source = suggested_alignment(pair)
    version = pair.initial_alignment_version if pair.initial_alignment is not None else None
    source = phrase_suggestion_source(word_source, version, pair.tree_source)
    return phrase_alignments_from_words(links, pair.nodes1, pair.nodes2, choice=choice), source
