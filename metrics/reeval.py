"""Re-evaluation sets of the two-step evaluation (Fujita; docs/measures.md#reeval).

Each rater re-judges the items on which the raters disagreed, mixed with a small random sample of
items on which they agreed (so that the rater cannot tell which is which). The random draws follow
the spec's normative PCG64 recipe, so the web application and the report show the same sets.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from metrics.types import Evaluations, Judgement, scale_label

__all__ = ["ReevalSet", "after_revisions", "reevaluation_sets", "sample_size"]

Viewpoint = Literal["G", "M"]


@dataclass(frozen=True, slots=True)
class ReevalSet:
    """One rater's re-evaluation set: item ids (``order`` is the presentation order)."""

    disagreement: tuple[str, ...]
    agreeing: tuple[str, ...]
    sampled: tuple[str, ...]
    order: tuple[str, ...]

    def as_dict(self) -> dict[str, list[str]]:
        return {
            "disagreement": list(self.disagreement),
            "agreeing": list(self.agreeing),
            "sampled": list(self.sampled),
            "order": list(self.order),
        }


def sample_size(n_disagreement: int, n_agreeing: int, *, fraction: float) -> int:
    """Number of agreeing items to mix in: ``k = min(|agreeing|, floor(fraction·|disagreement| + 0.5))``.

    Rounds half up, computed exactly on the decimal value of ``fraction`` (so ``0.35·90 = 31.5 → 32``
    although the binary double product is 31.4999…). docs/measures.md#reeval.

    >>> [sample_size(n, 1000, fraction=0.1) for n in (167, 222, 25)]
    [17, 22, 3]
    """
    if n_disagreement < 0 or n_agreeing < 0:
        raise ValueError("counts must be non-negative")
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction must be in [0, 1], got {fraction!r}")
    k = math.floor(Fraction(repr(float(fraction))) * n_disagreement + Fraction(1, 2))
    return min(n_agreeing, k)


def reevaluation_sets(
    judgements: Iterable[Judgement],
    *,
    viewpoint: Viewpoint,
    seed: int = 0,
    fraction: float = 0.1,
    raters: Sequence[str] | None = None,
) -> dict[str, ReevalSet]:
    """Re-evaluation set of every rater from the *initial* judgements (Fujita;
    docs/measures.md#reeval).

    Viewpoint "G" uses the binary scale G2, "M" uses M2. An item *disagrees* if its judgements
    (at least two) carry more than one binary class. For rater r (items sorted as strings):
    ``disagreement`` = r's disagreeing items, ``agreeing`` = r's other items with ≥ 2 judgements,
    ``sampled`` = k = :func:`sample_size` items of ``agreeing`` drawn without replacement,
    ``order`` = ``disagreement + sampled`` shuffled. Randomness (normative): per rater a fresh
    ``Generator(PCG64(seed))``; ``idx = rng.choice(len(agreeing), size=k, replace=False)`` (skipped
    if k = 0), then ``perm = rng.permutation(len(order))``. ``raters`` fixes the raters and their
    order (default: order of first appearance). Judgements without a label on the viewpoint are
    ignored.

    Fujita's 10 % samples: 167 disagreements give 17 sampled items, 222 give 22
    (:func:`sample_size`). A small example — u1 is Perfect/Irredeemable (OK vs NG on G2), u2
    Perfect/Awkward (both OK); 10 % of one disagreement rounds to no sample:

    >>> js = [Judgement("u1", "E1", "Perfect", None), Judgement("u1", "E2", "Irredeemable", None),
    ...       Judgement("u2", "E1", "Perfect", None), Judgement("u2", "E2", "Awkward", None)]
    >>> reevaluation_sets(js, viewpoint="G")["E1"]
    ReevalSet(disagreement=('u1',), agreeing=('u2',), sampled=(), order=('u1',))
    """
    if viewpoint not in ("G", "M"):
        raise ValueError(f'viewpoint must be "G" or "M", got {viewpoint!r}')
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    scale = "G2" if viewpoint == "G" else "M2"
    classes: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    items_of: dict[str, list[str]] = {}
    for n, j in enumerate(judgements):
        if not isinstance(j, Judgement):
            raise ValueError(f"judgements[{n}] must be a Judgement, got {type(j).__name__}")
        items_of.setdefault(j.rater, [])
        label = scale_label(j, scale)
        if label is None:
            continue
        classes.setdefault(j.item, set()).add(label)
        counts[j.item] = counts.get(j.item, 0) + 1
        items_of[j.rater].append(j.item)
    names = list(raters) if raters is not None else list(items_of)
    out: dict[str, ReevalSet] = {}
    for r in names:
        mine = sorted(set(items_of.get(r, [])))
        disagreement = [i for i in mine if counts[i] >= 2 and len(classes[i]) > 1]
        agreeing = [i for i in mine if counts[i] >= 2 and len(classes[i]) == 1]
        out[r] = _draw(disagreement, agreeing, seed=seed, fraction=fraction)
    return out


def _draw(disagreement: list[str], agreeing: list[str], *, seed: int, fraction: float) -> ReevalSet:
    rng = np.random.Generator(np.random.PCG64(seed))
    k = sample_size(len(disagreement), len(agreeing), fraction=fraction)
    sampled: list[str] = []
    if k > 0:
        idx = rng.choice(len(agreeing), size=k, replace=False)
        sampled = [agreeing[t] for t in idx]
    order = disagreement + sampled
    perm = rng.permutation(len(order))
    return ReevalSet(tuple(disagreement), tuple(agreeing), tuple(sampled), tuple(order[t] for t in perm))


def after_revisions(evaluations: Evaluations) -> tuple[Judgement, ...]:
    """The initial judgements with the revisions applied (a revision overrides only what it gives).

    These are the "after" judgements of ``fleiss.after.*`` and ``cohen.after.*``
    (docs/measures.md#revisions).

    >>> ev = Evaluations(("E1",), (Judgement("u1", "E1", "Awkward", "Equivalent"),),
    ...                  (Judgement("u1", "E1", None, "Missing Info."),))
    >>> after_revisions(ev)
    (Judgement(item='u1', rater='E1', G='Awkward', M='Missing Info.'),)
    """
    revised = {(r.item, r.rater): r for r in evaluations.revisions}
    out = []
    for j in evaluations.ratings:
        r = revised.get((j.item, j.rater))
        if r is not None:
            j = Judgement(j.item, j.rater, r.G if r.G is not None else j.G, r.M if r.M is not None else j.M)
        out.append(j)
    return tuple(out)
