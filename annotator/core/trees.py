"""Parse trees: Penn Treebank bracketed text → the node spans phrase alignment works with.

Parsing is NLTK's `Tree.fromstring`; nodes are listed in pre-order with their token span, so a node's
index is stable for a given tree text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotator.core import nltk_import

if TYPE_CHECKING:  # importing nltk costs about a second; only parsing needs it
    from nltk.tree import Tree  # heavy: nltk is loaded on the first parse, not at start-up


class TreeError(ValueError):
    """The bracketed text is not a tree over the member's tokens."""


def parse_tree(text: str) -> Tree:
    nltk_import.nltk()  # without scipy, scikit-learn and pandas
    from nltk.tree import Tree  # heavy: nltk is loaded on the first parse, not at start-up

    try:
        tree = Tree.fromstring(text.strip())
    except ValueError as exc:
        raise TreeError(f"not a Penn Treebank bracketed tree: {exc}") from exc
    if not isinstance(tree, Tree):
        raise TreeError("not a Penn Treebank bracketed tree: no brackets")
    return tree


def tree_nodes(text: str, tokens: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Pre-order list of nodes {label, start, end (exclusive), depth, parent} over leaf indices.

    With `tokens`, the leaves must equal the member's tokens (PTB escapes such as -LRB- are accepted for
    brackets), otherwise `TreeError` says where they differ.
    """
    nltk_import.nltk()  # without scipy, scikit-learn and pandas
    from nltk.tree import Tree  # heavy: nltk is loaded on the first parse, not at start-up

    tree = parse_tree(text)
    leaves = tree.leaves()
    if tokens is not None:
        check_leaves(leaves, tokens)
    nodes: list[dict[str, Any]] = []

    def walk(node: Tree, start: int, depth: int, parent: int | None) -> int:
        index = len(nodes)
        nodes.append({"label": node.label(), "start": start, "end": start, "depth": depth, "parent": parent})
        position = start
        for child in node:
            if isinstance(child, Tree):
                position = walk(child, position, depth + 1, index)
            else:
                position += 1
        nodes[index]["end"] = position
        return position

    walk(tree, 0, 0, None)
    return nodes


PTB_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}


def check_leaves(leaves: Sequence[str], tokens: Sequence[str]) -> None:
    if len(leaves) != len(tokens):
        raise TreeError(f"the tree has {len(leaves)} leaves but the member has {len(tokens)} tokens")
    for n, (leaf, token) in enumerate(zip(leaves, tokens, strict=True)):
        if leaf != token and PTB_ESCAPES.get(leaf) != token:
            raise TreeError(f"leaf {n} is {leaf!r} but token {n} is {token!r}")


def node_tokens(nodes: Sequence[dict[str, Any]], index: int | None) -> list[int] | None:
    """The token indices a node covers (None for the null node)."""
    if index is None:
        return None
    node = nodes[index]
    return list(range(node["start"], node["end"]))
