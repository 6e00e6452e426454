"""How likely each cell of a pair is a link, by two logistic regressions over its evidence (no Django).

Sultan, Bethard & Sumner (2015, "Feature-rich two-stage logistic regression for monolingual
alignment") weigh a word pair's evidence by a classifier trained on hand-aligned pairs instead of
thresholds set by hand, in two stages: the first reads the pair's own evidence, the second the same
plus what the first stage believes of its neighbours (the contextual evidence of their 2014 aligner).
This module does the same over the posterior aligner's cells:

- **stage one** (:data:`STAGE_ONE`): the two directional posteriors and whether the cell is the best
  of its row and column, the kind of lexical evidence (the same word underneath, a shared stem, a
  WordNet relation, nothing), the word classes, how often the corpus links the word pair, whether two
  function words can do one job, and the distance from the diagonal;
- **stage two** (:data:`STAGE_TWO`): stage one's log-odds, its probabilities of the diagonal and
  crossing neighbours, the best within three words in both members, and the best rival in the cell's
  row or column.

The weights are fitted on the `tune` part of the hand-aligned gold (`bench/fit_link_weights.py`
writes `link_weights.json` beside this file, which the aligner reads): a link's **confidence** is the
second stage's probability. :func:`fit_weights` is the one place they are fitted.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

#: The weights the aligner uses, fitted by `bench/fit_link_weights.py`.
WEIGHTS_FILE = Path(__file__).with_name("link_weights.json")

# kinds of evidence, as `posterior_aligner` codes them
_NONE, _IDENTICAL, _LEMMA, _NUMBER, _NAME, _STEM, _SYNONYM = range(7)
_CONTENT = 0  # `alignment_evidence.word_class` of a content word

STAGE_ONE = (
    "posterior",  # mean of the two directions' posteriors
    "posterior_geometric",  # their geometric mean: high only when both directions agree
    "best_both_directions",  # the cell is the best of its column forward and of its row backward
    "best_one_direction",
    "same_word_content",  # identical or a variant (inflection, number, name), not two function words
    "same_word_function",
    "shared_stem",
    "wordnet",
    "wordnet_posterior",
    "different_content",  # two different words, both content words
    "different_function",  # two different words, both function words, punctuation or numbers
    "different_class",  # two different words of different classes
    "corpus_links",  # log(1 + how often the corpus links the word pair), different words only
    "corpus_links_content",
    "reliable_posterior",  # the posterior scaled by min(1, corpus links / 4), different words only
    "function_role",  # two different function words that can do one job (`in`/`of`)
    "distance",  # |i/n₁ − j/n₂|
    "identical_function_distance",
)
STAGE_TWO = (
    "stage_one",  # stage one's log-odds of the cell
    "diagonal_neighbours",  # stage one's probabilities of (i−1, j−1) and (i+1, j+1), summed
    "crossing_neighbours",  # of (i−1, j+1) and (i+1, j−1)
    "nearby",  # the best within three words in both members, off the cell's row and column
    "rival",  # the best other cell of the cell's row or column
    "stronger_rival",  # the rival where it beats the cell
    "neighbours_elsewhere",  # a word next to one end linked more than two words away from the other end
    "same_function_word_elsewhere",  # the same, for the same function word (or its variant) in both members
)
#: Groups of features the bench's ablation takes out one at a time (docs/aligner.md).
GROUPS: dict[str, tuple[str, ...]] = {
    "both directions' agreement": ("posterior_geometric", "best_both_directions", "best_one_direction"),
    "corpus reliability": ("corpus_links", "corpus_links_content", "reliable_posterior"),
    "word classes": ("different_content", "different_function", "different_class"),
    "function roles": ("function_role",),
    "distance from the diagonal": ("distance", "identical_function_distance"),
    "context (stage two)": STAGE_TWO,
}


@dataclass(frozen=True)
class LinkWeights:
    """Two logistic regressions (coefficients in the order of :data:`STAGE_ONE` and of :data:`STAGE_ONE`
    + :data:`STAGE_TWO`) and the probability a link must reach. ``two_stages`` false: stage one alone."""

    one: tuple[float, ...]
    one_intercept: float
    two: tuple[float, ...]
    two_intercept: float
    threshold: float
    two_stages: bool = True

    def validate(self) -> None:
        if len(self.one) != len(STAGE_ONE):
            raise ValueError(
                f"link weights: stage one has {len(self.one)} coefficients, not {len(STAGE_ONE)}"
            )
        if len(self.two) != len(STAGE_ONE) + len(STAGE_TWO):
            raise ValueError(
                f"link weights: stage two has {len(self.two)} coefficients, not {len(STAGE_ONE) + len(STAGE_TWO)}"
            )
        if not 0 < self.threshold < 1:
            raise ValueError(f"link weights: threshold must be in (0, 1), not {self.threshold}")


@lru_cache(maxsize=4)
def load_weights(path: Path = WEIGHTS_FILE) -> LinkWeights:
    """The weights stored at `path` (JSON: ``stage_one``, ``stage_two`` with ``coefficients`` by feature
    name and ``intercept``; ``threshold``), checked against the features this module computes."""
    try:
        raw = json.loads(path.read_text())
        weights = LinkWeights(
            one=tuple(float(raw["stage_one"]["coefficients"][name]) for name in STAGE_ONE),
            one_intercept=float(raw["stage_one"]["intercept"]),
            two=tuple(float(raw["stage_two"]["coefficients"][name]) for name in STAGE_ONE + STAGE_TWO),
            two_intercept=float(raw["stage_two"]["intercept"]),
            threshold=float(raw["threshold"]),
            two_stages=bool(raw.get("two_stages", True)),
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"link weights in {path}: {error!r}") from error
    weights.validate()
    return weights


def weights_digest(path: Path = WEIGHTS_FILE) -> str:
    """The first 12 hex digits of the SHA-256 of the weights file: which weights a run used."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def weights_json(weights: LinkWeights, note: str) -> str:
    """The weights as :func:`load_weights` reads them, with a note on how they were fitted."""
    return json.dumps(
        {
            "note": note,
            "threshold": weights.threshold,
            "two_stages": weights.two_stages,
            "stage_one": {
                "intercept": round(weights.one_intercept, 6),
                "coefficients": {n: round(c, 6) for n, c in zip(STAGE_ONE, weights.one, strict=True)},
            },
            "stage_two": {
                "intercept": round(weights.two_intercept, 6),
                "coefficients": {
                    n: round(c, 6) for n, c in zip(STAGE_ONE + STAGE_TWO, weights.two, strict=True)
                },
            },
        },
        indent=1,
    )


@dataclass(frozen=True)
class PairEvidence:
    """One pair's cells (n₁ × n₂ arrays) as the posterior aligner trained them."""

    forward: np.ndarray  # p(member-1 token i | member-2 token j): each column sums to ≤ 1
    backward: np.ndarray  # p(member-2 token j | member-1 token i): each row sums to ≤ 1
    kind: np.ndarray  # kind of lexical evidence (posterior_aligner's codes)
    linked: np.ndarray  # soft count of the word pair's links over the corpus
    class1: np.ndarray  # word class of each member-1 token (n₁)
    class2: np.ndarray  # of each member-2 token (n₂)
    same_role: np.ndarray  # two function words that can do one job
    function1: np.ndarray  # each member-1 token is a function word or punctuation (n₁; numbers are not)
    function2: np.ndarray  # of each member-2 token (n₂)


def stage_one_features(e: PairEvidence) -> np.ndarray:
    """The … × n₁ × n₂ × len(STAGE_ONE) features of a pair's cells (of pairs of one shape, stacked on
    a leading axis)."""
    f, b, kind = e.forward, e.backward, e.kind
    n1, n2 = f.shape[-2:]
    class1, class2 = e.class1[..., :, None], e.class2[..., None, :]
    base = (f + b) / 2
    same = (kind == _IDENTICAL) | (kind == _LEMMA) | (kind == _NUMBER) | (kind == _NAME)
    none = kind == _NONE
    content = (class1 == _CONTENT) & (class2 == _CONTENT)
    function = (class1 != _CONTENT) & (class2 != _CONTENT)
    differ = class1 != class2
    best_forward = f >= f.max(axis=-2, keepdims=True)
    best_backward = b >= b.max(axis=-1, keepdims=True)
    links = np.log1p(e.linked)
    distance = np.abs((np.arange(n1)[:, None] + 0.5) / n1 - (np.arange(n2)[None, :] + 0.5) / n2)
    columns = (
        base,
        np.sqrt(f * b),
        best_forward & best_backward,
        best_forward | best_backward,
        same & ~function,
        same & function,
        kind == _STEM,
        kind == _SYNONYM,
        (kind == _SYNONYM) * base,
        none & content,
        none & function,
        none & differ,
        none * links,
        (none & content) * links,
        none * base * np.minimum(1.0, e.linked / 4.0),
        none & e.same_role,
        np.broadcast_to(distance, f.shape),
        ((kind == _IDENTICAL) & function) * distance,
    )
    return np.stack([np.asarray(c, dtype=float) for c in columns], axis=-1)


def _others_best(p: np.ndarray, axis: int) -> np.ndarray:
    """Each cell's best rival along `axis` (-2: its column, -1: its row)."""
    if p.shape[axis] < 2:
        return np.zeros_like(p)
    ordered = -np.sort(-p, axis=axis)
    top = np.take(ordered, [0], axis=axis)
    second = np.take(ordered, [1], axis=axis)
    return np.where(p >= top, second, top)


def _elsewhere(p1: np.ndarray, distance: int = 2) -> np.ndarray:
    """For each cell (i, j), stage one's best link of a word next to i to a word more than `distance`
    words from j, or of a word next to j to a word more than `distance` words from i."""
    n1, n2 = p1.shape[-2:]
    far2 = np.abs(np.arange(n2)[:, None] - np.arange(n2)[None, :]) > distance  # (j, l)
    far1 = np.abs(np.arange(n1)[:, None] - np.arange(n1)[None, :]) > distance  # (i, k)
    row_far = (p1[..., :, None, :] * far2).max(axis=-1)  # (k, j): row k's best far from j
    col_far = (np.swapaxes(p1, -1, -2)[..., :, None, :] * far1).max(axis=-1)  # (l, i): column l's, from i
    col_far = np.swapaxes(col_far, -1, -2)
    found = np.zeros_like(p1)
    np.maximum(found[..., 1:, :], row_far[..., :-1, :], out=found[..., 1:, :])
    np.maximum(found[..., :-1, :], row_far[..., 1:, :], out=found[..., :-1, :])
    np.maximum(found[..., :, 1:], col_far[..., :, :-1], out=found[..., :, 1:])
    np.maximum(found[..., :, :-1], col_far[..., :, 1:], out=found[..., :, :-1])
    return found


def stage_two_features(one: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """Stage one's features and the … × n₁ × n₂ × len(STAGE_TWO) features of its probabilities `p1`."""
    n1, n2 = p1.shape[-2:]
    padded = np.zeros((*p1.shape[:-2], n1 + 6, n2 + 6))
    padded[..., 3:-3, 3:-3] = p1
    padded[..., 2, 2] = 1.0  # the sentences' starts and ends agree with their neighbours
    padded[..., n1 + 3, n2 + 3] = 1.0
    diagonal = padded[..., 2 : n1 + 2, 2 : n2 + 2] + padded[..., 4 : n1 + 4, 4 : n2 + 4]
    crossing = padded[..., 2 : n1 + 2, 4 : n2 + 4] + padded[..., 4 : n1 + 4, 2 : n2 + 2]
    # the best within three words in both members, off the row and column: rows first, then columns
    rows = np.zeros((*p1.shape[:-2], n1, n2 + 6))
    for di in (-3, -2, -1, 1, 2, 3):
        np.maximum(rows, padded[..., 3 + di : n1 + 3 + di, :], out=rows)
    nearby = np.zeros_like(p1)
    for dj in (-3, -2, -1, 1, 2, 3):
        np.maximum(nearby, rows[..., 3 + dj : n2 + 3 + dj], out=nearby)
    rival = np.maximum(_others_best(p1, -2), _others_best(p1, -1))
    clipped = np.clip(p1, 1e-4, 1 - 1e-4)
    elsewhere = _elsewhere(p1)
    same_function_word = one[..., STAGE_ONE.index("same_word_function")]
    two = np.stack(
        [
            np.log(clipped / (1 - clipped)),
            diagonal,
            crossing,
            nearby,
            rival,
            rival * (rival > p1),
            elsewhere,
            elsewhere * same_function_word,
        ],
        axis=-1,
    )
    return np.concatenate([one, two], axis=-1)


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def link_probabilities(e: PairEvidence, weights: LinkWeights) -> np.ndarray:
    """The probability that each cell is a link (… × n₁ × n₂: one pair, or pairs of one shape stacked)."""
    one = stage_one_features(e)
    p1 = _logistic(one @ np.asarray(weights.one) + weights.one_intercept)
    if not weights.two_stages:
        return p1
    return _logistic(stage_two_features(one, p1) @ np.asarray(weights.two) + weights.two_intercept)


def stacked(evidence: Sequence[PairEvidence]) -> PairEvidence:
    """Pairs of one shape as one `PairEvidence` with a leading axis (scored at once: the cost of many
    small arrays is in their number)."""
    return PairEvidence(
        *(np.stack([getattr(e, field) for e in evidence]) for field in PairEvidence.__dataclass_fields__)
    )


def link_probabilities_of_pairs(
    evidence: Sequence[PairEvidence | None], weights: LinkWeights
) -> list[np.ndarray | None]:
    """Each pair's n₁ × n₂ probabilities (None for None), pairs of one shape scored together."""
    by_shape: dict[tuple[int, ...], list[int]] = {}
    for n, e in enumerate(evidence):
        if e is not None:
            by_shape.setdefault(e.forward.shape, []).append(n)
    result: list[np.ndarray | None] = [None] * len(evidence)
    for members in by_shape.values():
        batch = stacked([e for n in members if (e := evidence[n]) is not None])
        for n, probabilities in zip(members, link_probabilities(batch, weights), strict=True):
            result[n] = probabilities
    return result


def fit_weights(
    examples: Sequence[tuple[PairEvidence, Collection[tuple[int, int]], Collection[tuple[int, int]]]],
    *,
    threshold: float = 0.5,
    possible_weight: float = 0.3,
    regularisation: float = 1.0,
    without: Collection[str] = (),
    two_stages: bool = True,
) -> LinkWeights:
    """Weights fitted on hand-aligned pairs: each example is a pair's evidence, its sure links and its
    possible links. A sure link is a positive cell, a possible one a positive of weight
    `possible_weight`, every other cell a negative. `regularisation` is the inverse L2 strength
    (scikit-learn's C); the features named in `without` are left out (their coefficients 0). Stage
    two is fitted on stage one's probabilities of the same pairs (Sultan et al. 2015 do likewise)."""
    from sklearn.linear_model import LogisticRegression  # only fitting needs it

    if not examples:
        raise ValueError("fit_weights: no hand-aligned pairs to fit on")
    unknown = set(without) - set(STAGE_ONE + STAGE_TWO)
    if unknown:
        raise ValueError(f"fit_weights: unknown features {sorted(unknown)}")
    ones, targets, sample_weights = [], [], []
    for evidence, sure, possible in examples:
        n1, n2 = evidence.forward.shape
        target = np.zeros((n1, n2))
        weight = np.ones((n1, n2))
        for i, j in possible:
            target[i, j], weight[i, j] = 1.0, possible_weight
        for i, j in sure:
            target[i, j], weight[i, j] = 1.0, 1.0
        ones.append(stage_one_features(evidence))
        targets.append(target.ravel())
        sample_weights.append(weight.ravel())
    y, w = np.concatenate(targets), np.concatenate(sample_weights)

    def fit(x: np.ndarray, names: Sequence[str]) -> tuple[np.ndarray, float]:
        keep = np.array([name not in without for name in names])
        model = LogisticRegression(C=regularisation, max_iter=5000)
        model.fit(x[:, keep], y, sample_weight=w)
        coefficients = np.zeros(len(names))
        coefficients[keep] = model.coef_[0]
        return coefficients, float(model.intercept_[0])

    x1 = np.concatenate([one.reshape(-1, len(STAGE_ONE)) for one in ones])
    one_c, one_b = fit(x1, STAGE_ONE)
    if not two_stages:
        return LinkWeights(
            tuple(one_c), one_b, (0.0,) * (len(STAGE_ONE) + len(STAGE_TWO)), 0.0, threshold, two_stages=False
        )
    x2 = np.concatenate(
        [
            stage_two_features(one, _logistic(one @ one_c + one_b)).reshape(
                -1, len(STAGE_ONE) + len(STAGE_TWO)
            )
            for one in ones
        ]
    )
    two_c, two_b = fit(x2, STAGE_ONE + STAGE_TWO)
    return LinkWeights(tuple(one_c), one_b, tuple(two_c), two_b, threshold)
