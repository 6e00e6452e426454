"""Chance-corrected phrase-alignment agreement κ_C (Cohn, Callison-Burch & Lapata 2008;
docs/measures.md#kappa-c).

Observed agreement ``pi_hat`` is the mean concordance of the two annotators' non-identical atomic
phrase pairs; chance agreement ``pi_0`` is estimated by Monte Carlo from an edit model: each
annotator is modelled as flipping cells of the automatic initial alignment independently with a
probability linear in the pair's length (after Kupper & Hafner 1989). The random recipe is
normative (docs/measures.md#kappa-c) so that dashboards are reproducible to the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from metrics.alignment import mean_defined, non_identical_atomic_pairs_many, section_annotators
from metrics.phrases import IDENTICAL_MATCHES, atomic_spans, diagonal_runs, identical_tokens, validate_links
from metrics.types import Document, Link, Pair

__all__ = [
    "EditModel",
    "KappaC",
    "REASONS",
    "concordance",
    "edit_rate",
    "fit_edit_model",
    "chance_concordance",
    "kappa_c",
    "kappa_c_report",
    "kappa_c_from_items",
    "kappa_c_measures",
    "concordance_fraction",
    "ItemConcordances",
    "item_concordances",
    "ChanceChunk",
    "chance_chunk",
    "chance_draws",
    "kappa_c_chunks",
    "split_items",
]

#: Why κ_C of an annotator pair is null (``None`` when it is defined).
REASONS = ("pi0_is_1", "no_initial_alignment", "no_items")

#: Upper bound on uniform draws held in memory at once (the stream is the same in any chunking).
_MAX_DRAWS = 1 << 22

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def concordance(a: set[Any] | frozenset[Any], b: set[Any] | frozenset[Any]) -> float:
    """Concordance of two sets of phrase pairs: ``|A ∩ B| / min(|A|, |B|)``
    (docs/measures.md#kappa-c).

    Range [0, 1]. Defined everywhere: ``1`` if both sets are empty (both annotators agree there is
    nothing to align), ``0`` if exactly one is empty.

    Reference: Cohn, Callison-Burch & Lapata 2008, CL 34(4), §4.3.

    Examples
    --------
    >>> concordance({1, 2, 3}, {2, 3}), concordance(set(), set()), concordance({1}, set())
    (1.0, 1.0, 0.0)
    """
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def concordance_fraction(a: set[Any] | frozenset[Any], b: set[Any] | frozenset[Any]) -> tuple[int, int]:
    """:func:`concordance` as ``(hits, smaller)`` integers, ``concordance(a, b) == hits / smaller`` to
    the last bit: ``(|A ∩ B|, min(|A|, |B|))``, ``(1, 1)`` if both sets are empty, ``(0, 1)`` if exactly
    one is. Stored per pair, it keeps the observed agreement exact through JSON.

    Examples
    --------
    >>> concordance_fraction({1, 2, 3}, {2, 3}), concordance_fraction(set(), set())
    ((2, 2), (1, 1))
    """
    if not a and not b:
        return 1, 1
    if not a or not b:
        return 0, 1
    return len(a & b), min(len(a), len(b))


# --------------------------------------------------------------------------- edit model


@dataclass(frozen=True, slots=True)
class EditModel:
    """An annotator's edit model ``Pr(edit | L) = clip(alpha + beta·L, 0, 1)`` fitted on ``n_items``."""

    alpha: float
    beta: float
    n_items: int

    def pr_edit(self, length: int) -> float:
        """Probability that a cell of a pair of length ``L = N + M`` is flipped, clipped to [0, 1]."""
        return min(1.0, max(0.0, self.alpha + self.beta * length))

    def as_dict(self) -> dict[str, float | int]:
        return {"alpha": self.alpha, "beta": self.beta, "n_items": self.n_items}


def edit_rate(links: frozenset[Link], initial: frozenset[Link], n: int, m: int) -> float | None:
    """Edit rate ``q = |P △ I| / (N·M)``: share of cells whose linked state the annotator changed.

    ``links`` is the annotator's P-level alignment (sure ∪ possible), ``initial`` the automatic
    alignment ``I``. Range [0, 1]; ``None`` for an empty member (``N·M = 0``, no cells).

    Examples
    --------
    >>> edit_rate(frozenset({(0, 0), (1, 1)}), frozenset({(0, 0), (1, 0)}), 2, 2)
    0.5
    """
    links = validate_links(links, n, m, where="links")
    initial = validate_links(initial, n, m, where="initial alignment")
    return len(links ^ initial) / (n * m) if n * m else None


def fit_edit_model(q: Sequence[float], lengths: Sequence[int]) -> EditModel | None:
    """Ordinary least squares fit of ``q = alpha_r + beta_r·L`` over one annotator's items.

    ``q[i]`` is the edit rate of item i (:func:`edit_rate`), ``lengths[i] = N_i + M_i``::

        beta_r  = Σ (L_i − L̄)(q_i − q̄) / Σ (L_i − L̄)²       alpha_r = q̄ − beta_r·L̄

    If all ``L_i`` are equal (including a single item) ``beta_r = 0`` and ``alpha_r = q̄``.
    ``None`` when there is no item. **Alt** (not used): a binomial maximum-likelihood fit.

    Reference: Cohn, Callison-Burch & Lapata 2008, CL 34(4), §4.3; docs/measures.md#kappa-c.

    Examples
    --------
    >>> model = fit_edit_model([0.1, 0.3], [10, 20])
    >>> round(model.alpha, 12), round(model.beta, 12), model.n_items
    (-0.1, 0.02, 2)
    >>> fit_edit_model([0.0, 0.0], [8, 7])   # nobody edits
    EditModel(alpha=0.0, beta=0.0, n_items=2)
    """
    if len(q) != len(lengths):
        raise ValueError(f"q and lengths differ in length ({len(q)} vs {len(lengths)})")
    for name, values in (("q", q), ("lengths", lengths)):
        for k, v in enumerate(values):
            if not math.isfinite(v):
                raise ValueError(f"{name}[{k}] must be finite, got {v!r}")
    if not q:
        return None
    n_items = len(q)
    q_bar = math.fsum(q) / n_items
    l_bar = math.fsum(lengths) / n_items
    s_ll = math.fsum((x - l_bar) ** 2 for x in lengths)
    if len(set(lengths)) == 1 or s_ll == 0:
        return EditModel(q_bar, 0.0, n_items)
    beta_r = math.fsum((x - l_bar) * (y - q_bar) for x, y in zip(lengths, q, strict=True)) / s_ll
    return EditModel(q_bar - beta_r * l_bar, beta_r, n_items)


def _fit_annotator(pairs: Sequence[Pair], links: Sequence[frozenset[Link]]) -> EditModel | None:
    q, lengths = [], []
    for pair, p_links in zip(pairs, links, strict=True):
        n, m = len(pair.tokens1), len(pair.tokens2)
        if pair.initial_alignment is not None and n * m:
            q.append(len(p_links ^ pair.initial_alignment) / (n * m))
            lengths.append(n + m)
    return fit_edit_model(q, lengths)


# --------------------------------------------------------------------------- Monte Carlo


def _atomic_keys(x: npt.NDArray[np.bool_], runs: IntArray, invalid: int) -> IntArray:
    """Non-identical atomic pairs of each link matrix in ``x`` (J, N, M) as integer keys (J, N).

    Rows whose smallest pair is missing or identical hold ``invalid``; duplicates (several source
    words with the same smallest pair) are also set to ``invalid`` so that each row is a set.
    """
    _, n, m = x.shape
    lo, hi, j1, j2 = atomic_spans(x)
    size = hi - lo + 1
    linked = lo >= 0
    same = (j2 - j1 + 1 == size) & (runs[np.maximum(lo, 0), np.maximum(j1, 0)] >= size)
    keys = np.where(linked & ~same, ((lo * n + hi) * m + j1) * m + j2, invalid)
    keys.sort(axis=1)
    keys[:, 1:][keys[:, 1:] == keys[:, :-1]] = invalid
    return keys


def _distinct_samples(
    initial: npt.NDArray[np.bool_], flips: npt.NDArray[np.bool_], p: float
) -> tuple[npt.NDArray[np.bool_], IntArray | None]:
    """The distinct link sets ``initial ^ flips[s]`` and, if any repeat, the map sample → distinct.

    With ``p`` in {0, 1} every sample is the same link set. When few cells flip per sample, samples
    repeat often, so they are cached by the bytes of their flip pattern; otherwise repeats are too
    rare to pay for the hashing and every sample is extracted.
    """
    n_samples = flips.shape[0]
    if p in (0.0, 1.0):
        return flips[:1] ^ initial, np.zeros(n_samples, dtype=np.int64)
    if p * initial.size > 3.0:
        return flips ^ initial, None
    seen: dict[bytes, int] = {}
    inverse = np.array(
        [seen.setdefault(row.tobytes(), len(seen)) for row in flips.reshape(n_samples, -1)], dtype=np.int64
    )
    first = np.unique(inverse, return_index=True)[1]
    return flips[first] ^ initial, inverse


def _sample_keys(
    initial: npt.NDArray[np.bool_],
    flips_a: npt.NDArray[np.bool_],
    p_a: float,
    flips_b: npt.NDArray[np.bool_],
    p_b: float,
    runs: IntArray,
) -> tuple[IntArray, IntArray]:
    """Atomic-pair keys of a's and b's samples (invalid -1 and -2), extracted in one batch."""
    x_a, inverse_a = _distinct_samples(initial, flips_a, p_a)
    x_b, inverse_b = _distinct_samples(initial, flips_b, p_b)
    keys = _atomic_keys(np.concatenate((x_a, x_b)), runs, -1)
    keys_a, keys_b = keys[: len(x_a)], keys[len(x_a) :]
    keys_b[keys_b == -1] = -2
    return (
        keys_a if inverse_a is None else keys_a[inverse_a],
        keys_b if inverse_b is None else keys_b[inverse_b],
    )


def _concordances(keys_a: IntArray, keys_b: IntArray) -> FloatArray:
    """Row-wise :func:`concordance` of key sets (``keys_a`` invalid = -1, ``keys_b`` invalid = -2)."""
    size_a = (keys_a >= 0).sum(axis=1)
    size_b = (keys_b >= 0).sum(axis=1)
    common = (keys_a[:, :, None] == keys_b[:, None, :]).any(axis=2).sum(axis=1)
    smaller = np.minimum(size_a, size_b)
    return np.where(
        smaller > 0, common / np.maximum(smaller, 1), np.where(np.maximum(size_a, size_b) == 0, 1.0, 0.0)
    )


def _item_concordances(
    rng: np.random.Generator,
    pair: Pair,
    p_a: float,
    p_b: float,
    mc_samples: int,
    identical_match: str,
) -> FloatArray:
    """The J sampled concordances of one item, drawing ``ua``, ``ub`` per sample (docs/measures.md#kappa-c)."""
    n, m = len(pair.tokens1), len(pair.tokens2)
    initial = np.zeros((n, m), dtype=bool)
    for i, j in pair.initial_alignment or ():
        initial[i, j] = True
    runs = diagonal_runs(identical_tokens(pair.tokens1, pair.tokens2, identical_match=identical_match))
    chunk = max(1, _MAX_DRAWS // max(1, 2 * n * m))
    out = []
    for start in range(0, mc_samples, chunk):
        # rng.random((J, 2, N, M)) yields the same numbers in the same order as J successive
        # (ua, ub) pairs of rng.random((N, M)) calls (tested), so chunks keep the normative stream.
        u = rng.random((min(chunk, mc_samples - start), 2, n, m))
        keys_a, keys_b = _sample_keys(initial, u[:, 0] < p_a, p_a, u[:, 1] < p_b, p_b, runs)
        out.append(_concordances(keys_a, keys_b))
    return np.concatenate(out)


def chance_concordance(
    pairs: Sequence[Pair],
    pr_edit_a: Sequence[float],
    pr_edit_b: Sequence[float],
    *,
    mc_samples: int = 1000,
    mc_seed: int = 0,
    identical_match: str = "exact",
) -> tuple[float | None, float | None]:
    """Monte Carlo chance agreement ``(pi_0, pi0_se)`` of one annotator pair (docs/measures.md#kappa-c).

    For item ``i`` (``pairs[i]``, which must have an initial alignment ``I_i``) and sample
    ``s = 1..J``, ``Ã_is`` flips each cell of ``I_i`` independently with probability
    ``pr_edit_a[i]`` (``B̃_is`` with ``pr_edit_b[i]``); the samples go through extraction, atomic
    selection and the identity filter, and::

        pi_0   = mean_i (1/J) Σ_s conc(Ã_is, B̃_is)
        pi0_se = sqrt(Σ_i s_i² / J) / n_items        (s_i² = unbiased variance of item i's J values)

    Randomness (normative): one ``Generator(PCG64(mc_seed))``; items in order; per item, J times
    ``ua = rng.random((N, M))`` then ``ub = rng.random((N, M))``; a cell flips iff ``u < p``.
    ``(None, None)`` for no items. With ``pr_edit`` in {0, 1} for every item the result is exact.
    """
    if len(pr_edit_a) != len(pairs) or len(pr_edit_b) != len(pairs):
        raise ValueError("pr_edit_a and pr_edit_b need one probability per pair")
    for name, probs in (("pr_edit_a", pr_edit_a), ("pr_edit_b", pr_edit_b)):
        for k, p in enumerate(probs):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name}[{k}] must lie in [0, 1], got {p!r}")
    if isinstance(mc_samples, bool) or not isinstance(mc_samples, int) or mc_samples < 2:
        raise ValueError(f"mc_samples must be an integer >= 2, got {mc_samples!r}")
    if identical_match not in IDENTICAL_MATCHES:
        raise ValueError(f'identical_match must be "exact" or "casefold", got {identical_match!r}')
    for pair in pairs:
        if pair.initial_alignment is None:
            raise ValueError(f"pair {pair.id!r}: no initial alignment to sample from")
        validate_links(
            pair.initial_alignment, len(pair.tokens1), len(pair.tokens2), where=f"pair {pair.id!r}"
        )
    if not pairs:
        return None, None
    means, variances = _chance_items(pairs, pr_edit_a, pr_edit_b, mc_samples, mc_seed, identical_match)
    return _pi0_of_items(means, variances, mc_samples)


def _chance_items(
    pairs: Sequence[Pair],
    pr_edit_a: Sequence[float],
    pr_edit_b: Sequence[float],
    mc_samples: int,
    mc_seed: int,
    identical_match: str,
) -> tuple[list[float], list[float]]:
    """Per item, the mean and unbiased variance of its J sampled concordances (normative stream)."""
    rng = np.random.Generator(np.random.PCG64(mc_seed))
    return _chance_range(rng, pairs, pr_edit_a, pr_edit_b, mc_samples, identical_match)


def _chance_range(
    rng: np.random.Generator,
    pairs: Sequence[Pair],
    pr_edit_a: Sequence[float],
    pr_edit_b: Sequence[float],
    mc_samples: int,
    identical_match: str,
) -> tuple[list[float], list[float]]:
    """Mean and unbiased variance of each item's J concordances, drawing from ``rng`` where it stands."""
    means, variances = [], []
    for pair, p_a, p_b in zip(pairs, pr_edit_a, pr_edit_b, strict=True):
        conc = _item_concordances(rng, pair, p_a, p_b, mc_samples, identical_match)
        means.append(float(conc.mean()))
        variances.append(float(conc.var(ddof=1)))
    return means, variances


def _pi0_of_items(means: Sequence[float], variances: Sequence[float], mc_samples: int) -> tuple[float, float]:
    """``(pi_0, pi0_se)`` from the items' means and variances (the one combination, whatever the split:
    ``math.fsum`` is correctly rounded, so it does not depend on how the items were computed)."""
    n_items = len(means)
    return math.fsum(means) / n_items, math.sqrt(math.fsum(variances) / mc_samples) / n_items


# --------------------------------------------------------------------------- κ_C


@dataclass(frozen=True, slots=True)
class KappaC:
    """κ_C of one annotator pair with its parts; ``reason`` says why ``kappa`` is ``None``."""

    kappa: float | None
    pi_hat: float | None
    pi_0: float | None
    pi0_se: float | None
    n_items: int
    reason: str | None


def kappa_c(
    a: Sequence[frozenset[Link]],
    b: Sequence[frozenset[Link]],
    pairs: Sequence[Pair],
    *,
    model_a: EditModel | None = None,
    model_b: EditModel | None = None,
    mc_samples: int = 1000,
    mc_seed: int = 0,
    identical_match: str = "exact",
    chance_items: tuple[Sequence[float], Sequence[float]] | None = None,
) -> KappaC:
    """Chance-corrected phrase-alignment agreement κ_C of two annotators (docs/measures.md#kappa-c).

    ``a[i]``, ``b[i]`` are the P-level links (sure ∪ possible) of item ``pairs[i]``; ``A_i``, ``B_i``
    their non-identical atomic phrase pairs (docs/measures.md#phrase-extraction)::

        conc(A, B) = |A ∩ B| / min(|A|, |B|)    (1 if both empty, 0 if exactly one is)
        pi_hat = mean_i conc(A_i, B_i)
        pi_0   = mean_i (1/J) Σ_s conc(Ã_is, B̃_is)       (see :func:`chance_concordance`)
        κ_C    = (pi_hat − pi_0) / (1 − pi_0)

    ``model_a`` / ``model_b`` give ``Pr(edit | r, i) = clip(alpha_r + beta_r·(N_i + M_i), 0, 1)``;
    when omitted they are fitted (:func:`fit_edit_model`) on these items only — the document report
    fits each annotator on every pair it annotated. κ_C ≤ 1; negative below chance.

    ``chance_items = (means, variances)``, one value per item, gives the Monte Carlo's per-item
    results computed elsewhere (:func:`chance_chunk` over :func:`kappa_c_chunks`, e.g. on several
    workers); ``pi_0`` and ``pi0_se`` are then combined from them exactly as without it.

    Degenerate cases (``reason``): no items → everything ``None`` ("no_items"); an item without
    initial alignment → ``pi_0``, ``pi0_se``, κ ``None`` ("no_initial_alignment", ``pi_hat`` still
    given); ``pi_0 = 1`` → κ ``None`` ("pi0_is_1": 0/0 if ``pi_hat = 1``, −∞ otherwise).

    Reference: Cohn, Callison-Burch & Lapata 2008, CL 34(4), §4.3 (after Kupper & Hafner 1989).

    Examples
    --------
    Nobody edits the initial alignment, so every sample is the initial alignment and
    ``pi_0 = 1`` exactly (Cohn et al.):

    >>> pair = Pair("k1", ("he", "bought", "a", "car"), ("he", "purchased", "an", "automobile"),
    ...             frozenset({(0, 0), (1, 1), (3, 3)}))
    >>> r = kappa_c([pair.initial_alignment], [pair.initial_alignment], [pair], mc_samples=50)
    >>> r.pi_hat, r.pi_0, r.kappa, r.reason
    (1.0, 1.0, None, 'pi0_is_1')
    """
    if not len(a) == len(b) == len(pairs):
        raise ValueError(f"a, b and pairs differ in length ({len(a)}, {len(b)}, {len(pairs)})")
    if identical_match not in IDENTICAL_MATCHES:
        raise ValueError(f'identical_match must be "exact" or "casefold", got {identical_match!r}')
    for name, side in (("a", a), ("b", b)):
        for pair, links in zip(pairs, side, strict=True):
            validate_links(links, len(pair.tokens1), len(pair.tokens2), where=f"{name}, pair {pair.id!r}")
    if not pairs:
        return KappaC(None, None, None, None, 0, "no_items")
    tokens = [(p.tokens1, p.tokens2) for p in pairs]
    shapes = [(len(p.tokens1), len(p.tokens2)) for p in pairs]
    atom = non_identical_atomic_pairs_many(
        [(frozenset(x), *s) for x, s in zip([*a, *b], shapes * 2, strict=True)],
        tokens * 2,
        identical_match=identical_match,
    )
    pi_hat = math.fsum(concordance(x, y) for x, y in zip(atom[: len(a)], atom[len(a) :], strict=True)) / len(
        a
    )
    if any(p.initial_alignment is None for p in pairs):
        return KappaC(None, pi_hat, None, None, len(pairs), "no_initial_alignment")
    if model_a is None:
        model_a = _fit_annotator(pairs, [frozenset(x) for x in a])
    if model_b is None:
        model_b = _fit_annotator(pairs, [frozenset(x) for x in b])
    no_cells = EditModel(0.0, 0.0, 0)  # no model only when every member is empty: nothing to flip
    model_a, model_b = model_a or no_cells, model_b or no_cells
    pr_a = [model_a.pr_edit(n + m) for n, m in shapes]
    pr_b = [model_b.pr_edit(n + m) for n, m in shapes]
    pi_0: float | None
    pi0_se: float | None
    if chance_items is not None:
        means, variances = chance_items
        if not len(means) == len(variances) == len(pairs):
            raise ValueError(
                f"chance_items: need one mean and one variance per item ({len(pairs)}), "
                f"got {len(means)} and {len(variances)}"
            )
        pi_0, pi0_se = _pi0_of_items(means, variances, mc_samples)
    else:
        pi_0, pi0_se = chance_concordance(
            pairs, pr_a, pr_b, mc_samples=mc_samples, mc_seed=mc_seed, identical_match=identical_match
        )
    assert pi_0 is not None and pi0_se is not None
    return _kappa_c_of(pi_hat, pi_0, pi0_se, len(pairs))


def _kappa_c_of(pi_hat: float, pi_0: float, pi0_se: float, n_items: int) -> KappaC:
    """``κ_C = (pi_hat − pi_0) / (1 − pi_0)``, ``None`` ("pi0_is_1") when ``pi_0 = 1``."""
    if pi_0 == 1.0:
        return KappaC(None, pi_hat, pi_0, pi0_se, n_items, "pi0_is_1")
    return KappaC((pi_hat - pi_0) / (1.0 - pi_0), pi_hat, pi_0, pi0_se, n_items, None)


def kappa_c_from_items(
    conc: Sequence[float],
    chance_items: tuple[Sequence[float], Sequence[float]] | None,
    *,
    mc_samples: int,
) -> KappaC:
    """κ_C of one annotator pair from its items' parts: ``conc[i] = conc(A_i, B_i)`` and the Monte
    Carlo's per-item ``(means, variances)`` (docs/measures.md#kappa-c)::

        pi_hat = mean_i conc[i]      pi_0 = mean_i means[i]      pi0_se = sqrt(Σ_i variances[i] / J) / n
        κ_C    = (pi_hat − pi_0) / (1 − pi_0)

    What :func:`kappa_c` computes from the links, combined the same way (``math.fsum``, correctly
    rounded: the same bits whatever computed the parts). ``chance_items`` ``None`` means an item has no
    initial alignment ("no_initial_alignment": only ``pi_hat``); no items → "no_items".

    Examples
    --------
    >>> r = kappa_c_from_items([1.0, 0.5], ([0.5, 0.5], [0.0, 0.0]), mc_samples=10)
    >>> r.pi_hat, r.pi_0, r.kappa, r.pi0_se
    (0.75, 0.5, 0.5, 0.0)
    >>> kappa_c_from_items([1.0], None, mc_samples=10).reason
    'no_initial_alignment'
    """
    for k, c in enumerate(conc):
        if not 0.0 <= c <= 1.0:
            raise ValueError(f"conc[{k}] must lie in [0, 1], got {c!r}")
    if not conc:
        return KappaC(None, None, None, None, 0, "no_items")
    pi_hat = math.fsum(conc) / len(conc)
    if chance_items is None:
        return KappaC(None, pi_hat, None, None, len(conc), "no_initial_alignment")
    means, variances = chance_items
    if not len(means) == len(variances) == len(conc):
        raise ValueError(
            f"chance_items: need one mean and one variance per item ({len(conc)}), "
            f"got {len(means)} and {len(variances)}"
        )
    pi_0, pi0_se = _pi0_of_items(means, variances, mc_samples)
    return _kappa_c_of(pi_hat, pi_0, pi0_se, len(conc))


def kappa_c_report(
    doc: Document,
    *,
    chance: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
) -> dict[str, dict[str, Any]]:
    """The ``kappa_c*`` measures of a document (docs/measures.md#kappa-c, #report).

    Per annotator pair ``a|b`` (``a`` before ``b``): the items are the pairs both annotated, in
    document order; edit models are fitted per annotator over every pair it annotated that has an
    initial alignment. Keys: ``kappa_c``, ``kappa_c.pi_hat``, ``kappa_c.pi0`` (value = mean over
    annotator pairs skipping ``None``, by_pair), ``kappa_c.pi0_se``, ``kappa_c.n_items``,
    ``kappa_c.reason`` (by_pair), ``kappa_c.edit_model`` (by_annotator: ``{alpha, beta, n_items}``
    or ``None`` without any item). ``by_pair`` is omitted with fewer than two annotators.

    ``chance["a|b"] = (means, variances)`` gives the per-item Monte Carlo results of annotator pair
    ``a|b`` computed elsewhere — the chunks of :func:`kappa_c_chunks` run by :func:`chance_chunk` and
    put end to end in item order; pairs it lacks are sampled here. Same report either way, bit for bit.
    """
    wa = doc.word_alignments
    if wa is None:
        return {}
    annotators = section_annotators(doc, wa)
    models: dict[str, EditModel | None] = {}
    for r in annotators:
        mine = [p for p in doc.pairs if p.id in wa[r]]
        models[r] = _fit_annotator(mine, [wa[r][p.id].P for p in mine])
    results: dict[str, KappaC] = {}
    for a, b in doc.annotator_pairs(annotators):
        items = [p for p in doc.pairs if p.id in wa[a] and p.id in wa[b]]
        results[f"{a}|{b}"] = kappa_c(
            [wa[a][p.id].P for p in items],
            [wa[b][p.id].P for p in items],
            items,
            model_a=models[a],
            model_b=models[b],
            mc_samples=doc.options.mc_samples,
            mc_seed=doc.options.mc_seed,
            identical_match=doc.options.identical_match,
            chance_items=(chance or {}).get(f"{a}|{b}"),
        )
    return kappa_c_measures(results, models, with_pairs=len(annotators) >= 2)


def kappa_c_measures(
    results: Mapping[str, KappaC], models: Mapping[str, EditModel | None], *, with_pairs: bool
) -> dict[str, dict[str, Any]]:
    """The ``kappa_c*`` report keys (see :func:`kappa_c_report`) of the annotator pairs' κ_C
    ``results["a|b"]`` (in annotator-pair order) and the annotators' edit ``models``; ``by_pair`` only
    ``with_pairs`` (two annotators or more)."""

    def entry(field: str, *, value: bool) -> dict[str, Any]:
        by_pair = {key: getattr(r, field) for key, r in results.items()}
        out: dict[str, Any] = {"value": mean_defined(by_pair.values())} if value else {}
        if with_pairs:
            out["by_pair"] = by_pair
        return out

    return {
        "kappa_c": entry("kappa", value=True),
        "kappa_c.pi_hat": entry("pi_hat", value=True),
        "kappa_c.pi0": entry("pi_0", value=True),
        "kappa_c.pi0_se": entry("pi0_se", value=False),
        "kappa_c.n_items": entry("n_items", value=False),
        "kappa_c.reason": entry("reason", value=False),
        "kappa_c.edit_model": {
            "by_annotator": {r: (m.as_dict() if m is not None else None) for r, m in models.items()}
        },
    }


@dataclass(frozen=True, slots=True)
class ItemConcordances:
    """Per-item parts of κ_C for one annotator pair: ``pi_hat[i] = conc(A_i, B_i)`` and ``pi_0[i]`` =
    the mean of item i's J sampled concordances (``None`` when an item lacks an initial alignment)."""

    pairs: tuple[Pair, ...]
    pi_hat: tuple[float, ...]
    pi_0: tuple[float, ...] | None


def item_concordances(doc: Document, a: str, b: str) -> ItemConcordances:
    """The per-item observed and chance concordances behind ``kappa_c.by_pair["a|b"]``.

    Same items (pairs both annotated, document order), edit models (each annotator fitted on every
    pair it annotated) and random stream as :func:`kappa_c_report`, so
    ``mean(pi_hat) = kappa_c.pi_hat`` and ``mean(pi_0) = kappa_c.pi0`` of the report (up to the
    order of summation). Used for κ_C by sentence length (docs/measures.md#stat-cohn-fig4).

    Example — nobody edits the initial alignment, so each item's chance concordance is 1:

    >>> from metrics.document import parse_document
    >>> doc = parse_document({"format": "paraphrase-agreement/1", "annotators": ["A", "B"],
    ...     "pairs": [{"id": "k1", "tokens1": ["he", "bought", "a", "car"],
    ...                "tokens2": ["he", "purchased", "an", "automobile"],
    ...                "initial_alignment": [[1, 1], [3, 3]]}],
    ...     "options": {"mc_samples": 20},
    ...     "word_alignments": {r: {"k1": {"sure": [[1, 1], [3, 3]]}} for r in ("A", "B")}})
    >>> item_concordances(doc, "A", "B").pi_0
    (1.0,)
    """
    wa = doc.word_alignments
    if wa is None or a not in wa or b not in wa:
        raise ValueError(f"annotators {a!r} and {b!r} must both have word alignments")
    items = [p for p in doc.pairs if p.id in wa[a] and p.id in wa[b]]
    tokens = [(p.tokens1, p.tokens2) for p in items]
    shapes = [(len(p.tokens1), len(p.tokens2)) for p in items]
    links = [wa[a][p.id].P for p in items] + [wa[b][p.id].P for p in items]
    atom = non_identical_atomic_pairs_many(
        [(x, *s) for x, s in zip(links, shapes * 2, strict=True)],
        tokens * 2,
        identical_match=doc.options.identical_match,
    )
    pi_hat = tuple(concordance(x, y) for x, y in zip(atom[: len(items)], atom[len(items) :], strict=True))
    if any(p.initial_alignment is None for p in items):
        return ItemConcordances(tuple(items), pi_hat, None)
    no_cells = EditModel(0.0, 0.0, 0)
    models = []
    for r in (a, b):
        mine = [p for p in doc.pairs if p.id in wa[r]]
        models.append(_fit_annotator(mine, [wa[r][p.id].P for p in mine]) or no_cells)
    pr_a = [models[0].pr_edit(n + m) for n, m in shapes]
    pr_b = [models[1].pr_edit(n + m) for n, m in shapes]
    options = doc.options
    means, _ = _chance_items(items, pr_a, pr_b, options.mc_samples, options.mc_seed, options.identical_match)
    return ItemConcordances(tuple(items), pi_hat, tuple(means))


def kappa_c_work(doc: Document) -> int:
    """Monte Carlo work (items × samples) that :func:`kappa_c_report` has to do.

    An annotator pair with an item that has no initial alignment needs none: its κ_C is undefined
    ("no_initial_alignment") before any sampling.
    """
    wa = doc.word_alignments
    if not wa:
        return 0
    annotators = section_annotators(doc, wa)
    without_initial = {p.id for p in doc.pairs if p.initial_alignment is None}
    work = 0
    for a, b in doc.annotator_pairs(annotators):
        items = wa[a].keys() & wa[b].keys()
        if not items & without_initial:  # otherwise κ_C is undefined before any sampling
            work += len(items)
    return work * doc.options.mc_samples


# --------------------------------------------------------------------------- chunks


def chance_draws(pair: Pair, mc_samples: int) -> int:
    """Uniform draws the normative recipe takes for one item: ``2·J·N·M`` (``ua`` and ``ub`` per sample)."""
    return 2 * mc_samples * len(pair.tokens1) * len(pair.tokens2)


@dataclass(frozen=True, slots=True)
class ChanceChunk:
    """A range of one annotator pair's items for the chance Monte Carlo, with all it needs to run alone.

    ``pairs[k]`` is the pair's item ``start + k``; ``offset`` = the uniform draws of items ``0..start−1``
    (Σ ``2·J·N_i·M_i``), which the generator is advanced past (``PCG64.advance``: each double of
    ``Generator.random`` is one 64-bit output) so that the chunk draws exactly the numbers the single
    stream of the recipe gives its items.
    """

    key: str
    start: int
    offset: int
    pairs: tuple[Pair, ...]
    pr_edit_a: tuple[float, ...]
    pr_edit_b: tuple[float, ...]
    mc_samples: int
    mc_seed: int
    identical_match: str

    @property
    def draws(self) -> int:
        return sum(chance_draws(p, self.mc_samples) for p in self.pairs)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (floats keep every bit through JSON: ``repr`` round-trips)."""
        return {
            "key": self.key,
            "start": self.start,
            "offset": self.offset,
            "pairs": [
                {
                    "id": p.id,
                    "tokens1": list(p.tokens1),
                    "tokens2": list(p.tokens2),
                    "initial_alignment": sorted(map(list, p.initial_alignment or ())),
                }
                for p in self.pairs
            ],
            "pr_edit_a": list(self.pr_edit_a),
            "pr_edit_b": list(self.pr_edit_b),
            "mc_samples": self.mc_samples,
            "mc_seed": self.mc_seed,
            "identical_match": self.identical_match,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> ChanceChunk:
        """Inverse of :meth:`as_dict`; raises ``ValueError`` naming a missing or malformed field."""
        try:
            pairs = tuple(
                Pair(
                    str(p["id"]),
                    tuple(p["tokens1"]),
                    tuple(p["tokens2"]),
                    frozenset((int(i), int(j)) for i, j in p["initial_alignment"]),
                )
                for p in raw["pairs"]
            )
            return cls(
                str(raw["key"]),
                int(raw["start"]),
                int(raw["offset"]),
                pairs,
                tuple(float(x) for x in raw["pr_edit_a"]),
                tuple(float(x) for x in raw["pr_edit_b"]),
                int(raw["mc_samples"]),
                int(raw["mc_seed"]),
                str(raw["identical_match"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"chance chunk: malformed field ({type(exc).__name__}: {exc})") from exc


def chance_chunk(chunk: ChanceChunk) -> tuple[list[float], list[float]]:
    """Per-item ``(means, variances)`` of the J sampled concordances of the chunk's items.

    Equal, bit for bit, to the slice ``[start, start + len(pairs))`` of what the single-stream recipe
    of :func:`chance_concordance` computes for the whole annotator pair (docs/measures.md#kappa-c):
    ``Generator(PCG64(mc_seed))`` advanced by ``offset`` draws, then the recipe for each item.
    """
    if chunk.start < 0 or chunk.offset < 0:
        raise ValueError(f"chunk {chunk.key}@{chunk.start}: start and offset must be >= 0")
    if len(chunk.pr_edit_a) != len(chunk.pairs) or len(chunk.pr_edit_b) != len(chunk.pairs):
        raise ValueError(f"chunk {chunk.key}@{chunk.start}: need one probability per pair and annotator")
    for name, probs in (("pr_edit_a", chunk.pr_edit_a), ("pr_edit_b", chunk.pr_edit_b)):
        for k, p in enumerate(probs):
            if not 0.0 <= p <= 1.0:
                raise ValueError(
                    f"chunk {chunk.key}@{chunk.start}: {name}[{k}] must lie in [0, 1], got {p!r}"
                )
    if chunk.mc_samples < 2:
        raise ValueError(f"chunk {chunk.key}@{chunk.start}: mc_samples must be >= 2, got {chunk.mc_samples}")
    if chunk.identical_match not in IDENTICAL_MATCHES:
        raise ValueError(
            f"chunk {chunk.key}@{chunk.start}: unknown identical_match {chunk.identical_match!r}"
        )
    for pair in chunk.pairs:
        validate_links(
            pair.initial_alignment or (), len(pair.tokens1), len(pair.tokens2), where=f"pair {pair.id!r}"
        )
    bit_generator = np.random.PCG64(chunk.mc_seed)
    bit_generator.advance(chunk.offset)
    return _chance_range(
        np.random.Generator(bit_generator),
        chunk.pairs,
        chunk.pr_edit_a,
        chunk.pr_edit_b,
        chunk.mc_samples,
        chunk.identical_match,
    )


def split_items(
    key: str,
    pairs: Sequence[Pair],
    pr_edit_a: Sequence[float],
    pr_edit_b: Sequence[float],
    *,
    max_draws: int,
    mc_samples: int,
    mc_seed: int,
    identical_match: str,
) -> list[ChanceChunk]:
    """One annotator pair's items cut into consecutive chunks of at most ``max_draws`` uniform draws
    (an item larger than that is a chunk of its own); each chunk carries its generator ``offset``."""
    if max_draws < 1:
        raise ValueError(f"max_draws must be >= 1, got {max_draws!r}")
    chunks: list[ChanceChunk] = []
    start = offset = 0
    while start < len(pairs):
        stop, draws = start + 1, chance_draws(pairs[start], mc_samples)
        while stop < len(pairs) and draws + chance_draws(pairs[stop], mc_samples) <= max_draws:
            draws += chance_draws(pairs[stop], mc_samples)
            stop += 1
        chunks.append(
            ChanceChunk(
                key,
                start,
                offset,
                tuple(pairs[start:stop]),
                tuple(pr_edit_a[start:stop]),
                tuple(pr_edit_b[start:stop]),
                mc_samples,
                mc_seed,
                identical_match,
            )
        )
        start, offset = stop, offset + draws
    return chunks


def kappa_c_chunks(doc: Document, *, max_draws: int) -> dict[str, list[ChanceChunk]]:
    """The chance Monte Carlo of :func:`kappa_c_report` cut into chunks that can run anywhere.

    Per annotator pair ``"a|b"`` that samples at all (items, every one with an initial alignment),
    its items (pairs both annotated, document order) in consecutive chunks of at most ``max_draws``
    draws, with the edit probabilities of the report's edit models (each annotator fitted on every pair
    it annotated). Running each chunk with :func:`chance_chunk` and joining the results in order gives
    ``kappa_c_report``'s ``chance`` argument; the report is then the single-process one, bit for bit.
    """
    wa = doc.word_alignments
    if not wa:
        return {}
    annotators = section_annotators(doc, wa)
    no_cells = EditModel(0.0, 0.0, 0)
    models: dict[str, EditModel] = {}
    for r in annotators:
        mine = [p for p in doc.pairs if p.id in wa[r]]
        models[r] = _fit_annotator(mine, [wa[r][p.id].P for p in mine]) or no_cells
    out: dict[str, list[ChanceChunk]] = {}
    for a, b in doc.annotator_pairs(annotators):
        items = [p for p in doc.pairs if p.id in wa[a] and p.id in wa[b]]
        if not items or any(p.initial_alignment is None for p in items):
            continue  # κ_C is decided without sampling
        shapes = [len(p.tokens1) + len(p.tokens2) for p in items]
        out[f"{a}|{b}"] = split_items(
            f"{a}|{b}",
            items,
            [models[a].pr_edit(length) for length in shapes],
            [models[b].pr_edit(length) for length in shapes],
            max_draws=max_draws,
            mc_samples=doc.options.mc_samples,
            mc_seed=doc.options.mc_seed,
            identical_match=doc.options.identical_match,
        )
    return out
