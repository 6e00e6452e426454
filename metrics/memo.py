"""Reuse of per-annotator and per-annotator-pair results between computations of the same document.

Pairwise measures (word/phrase alignment P/R/F1, κ_C) of an annotator pair depend only on the two
annotators' own section data and on what every computation shares (pairs, options). When a project
is recomputed after one annotator changed one pair, the other annotators' pairs have exactly the
inputs they had last time: :class:`PairwiseMemo` keeps their results and gives them back. Inputs are
compared by value (equality of the section data), never by identity or by a hash alone, so a reused
result is the one a fresh computation would produce; the report functions that take a memo are
bit-identical with and without one (tests hold this).

Example::

    memo = PairwiseMemo()
    alignment_report(doc, memo=memo)     # computes everything
    alignment_report(doc2, memo=memo)    # doc2: one annotator changed → only their pairs computed
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["PairwiseMemo"]

_MISSING = object()


class PairwiseMemo:
    """Results per annotator (``per_annotator``) and per annotator pair (``per_pair``), valid for the
    ``context`` (shared inputs) and each annotator's ``inputs`` last given to :meth:`begin`."""

    def __init__(self) -> None:
        self.context: Any = _MISSING
        self.inputs: dict[str, Any] = {}
        self.per_annotator: dict[str, Any] = {}
        self.per_pair: dict[tuple[str, str], Any] = {}

    def changed(self, context: Any, inputs: Mapping[str, Any]) -> set[str]:
        """The annotators whose results cannot be reused for these inputs (all when the context differs)."""
        if context != self.context:
            return set(inputs)
        return {r for r, value in inputs.items() if self.inputs.get(r, _MISSING) != value}

    def begin(self, context: Any, inputs: Mapping[str, Any]) -> set[str]:
        """Start a computation: forget what the new inputs invalidate; returns the changed annotators.

        Kept afterwards: ``per_annotator[r]`` of unchanged annotators and ``per_pair[a, b]`` where
        neither ``a`` nor ``b`` changed (or left). The caller computes and stores the rest.
        """
        changed = self.changed(context, inputs)
        if context != self.context:
            self.context = context
            self.per_annotator.clear()
            self.per_pair.clear()
        stale = changed | (self.inputs.keys() - inputs.keys())
        for r in stale:
            self.per_annotator.pop(r, None)
        if stale:
            self.per_pair = {
                k: v for k, v in self.per_pair.items() if k[0] not in stale and k[1] not in stale
            }
        self.inputs = dict(inputs)
        return changed
