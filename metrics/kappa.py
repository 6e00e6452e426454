"""Chance-corrected agreement of categorical judgements: Fleiss' κ, Cohen's κ, Krippendorff's α.

docs/measures.md#fleiss, #cohen, #krippendorff (Fujita's two-step evaluation; spec §7). All three are vectorized with numpy: labels are turned
into integer codes once (``np.unique``, or a direct offset for small integer labels) and the
count tables are built with ``np.bincount``. Undefined values are ``None`` (never NaN).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "FleissResult",
    "fleiss_kappa",
    "fleiss_kappa_from_ratings",
    "rating_table",
    "cohen_kappa",
    "cohen_kappa_pairs",
    "cohen_kappa_from_confusion",
    "krippendorff_alpha",
    "krippendorff_alpha_from_counts",
    "codes",
]

IntArray = npt.NDArray[np.int64]
_EPS = 1e-12  # κ is undefined when 1 − P̄_e ≤ _EPS (docs/measures.md#fleiss, #cohen)


def codes(values: Any) -> tuple[IntArray, npt.NDArray[Any]]:
    """Integer codes ``0..K-1`` of ``values`` and the K distinct values (sorted).

    Non-negative integer arrays with a small range are coded by offset (no sort); anything else
    goes through ``np.unique(..., return_inverse=True)``.
    """
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {arr.shape}")
    if arr.size and np.issubdtype(arr.dtype, np.integer):
        lo, hi = int(arr.min()), int(arr.max())
        if hi - lo <= 4 * arr.size + 1024:
            shifted = arr.astype(np.int64, copy=False) - lo if lo else arr.astype(np.int64, copy=False)
            used = np.bincount(shifted, minlength=hi - lo + 1) > 0
            if used.all():  # dense codes already (e.g. item numbers 0..n-1)
                return shifted, np.arange(lo, hi + 1)
            remap = np.cumsum(used) - 1
            return remap[shifted], np.flatnonzero(used) + lo
    uniques, inverse = np.unique(arr, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1), uniques


# -- Fleiss ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FleissResult:
    """Fleiss' κ (``None`` if undefined) and the number of items that entered it (``n_i ≥ 2``)."""

    kappa: float | None
    n_items: int


def fleiss_kappa(table: Any) -> FleissResult:
    """Fleiss' κ of an items × categories count table, allowing a variable number of raters per item.

    ``P_i = Σ_j n_ij(n_ij − 1) / (n_i(n_i − 1))``, ``P̄ = mean_i P_i``, ``p_j = Σ_i n_ij / Σ_i n_i``,
    ``P̄_e = Σ_j p_j²``, ``κ = (P̄ − P̄_e)/(1 − P̄_e)``. Only items with ``n_i ≥ 2`` count. Range
    [−1, 1]; ``None`` if no item qualifies or ``1 − P̄_e ≤ 1e-12`` (a single category used).
    With a constant ``n_i`` this equals ``statsmodels.stats.inter_rater.fleiss_kappa(table,
    method="fleiss")``. Fleiss (1971), eq. 1–9; docs/measures.md#fleiss.

    >>> fleiss_kappa([[3, 0], [0, 3], [2, 1]]).kappa  # 3 raters, 3 items
    0.55
    """
    n_ij = np.asarray(table)
    if n_ij.ndim != 2:
        raise ValueError(f"table must be 2-D (items × categories), got shape {n_ij.shape}")
    if not np.issubdtype(n_ij.dtype, np.integer):
        as_float = n_ij.astype(np.float64)
        if np.any(as_float != np.round(as_float)):
            raise ValueError("table must hold non-negative integer counts")
        n_ij = as_float.astype(np.int64)
    if n_ij.size and n_ij.min() < 0:
        raise ValueError("table must hold non-negative integer counts")
    n_i = n_ij.sum(axis=1)
    keep = n_i >= 2
    if not keep.all():
        n_ij, n_i = n_ij[keep], n_i[keep]
    if not len(n_i):
        return FleissResult(None, 0)
    P_i = (n_ij * (n_ij - 1)).sum(axis=1) / (n_i * (n_i - 1))  # noqa: N806 - Fleiss' symbol
    P_bar = P_i.mean()  # noqa: N806
    p_j = n_ij.sum(axis=0) / n_i.sum()
    P_e = float((p_j * p_j).sum())  # noqa: N806
    if 1 - P_e <= _EPS:
        return FleissResult(None, len(n_i))
    return FleissResult(float((P_bar - P_e) / (1 - P_e)), len(n_i))


def rating_table(items: Any, labels: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any], npt.NDArray[Any]]:
    """Items × categories count table from parallel sequences of raw ratings (one rating per entry).

    Returns ``(table, item_values, category_values)``; built with one ``np.bincount``.
    """
    item_codes, item_values = codes(items)
    label_codes, label_values = codes(labels)
    if len(item_codes) != len(label_codes):
        raise ValueError(f"items and labels differ in length ({len(item_codes)} vs {len(label_codes)})")
    k = len(label_values)
    flat = np.bincount(item_codes * k + label_codes, minlength=len(item_values) * k)
    return flat.reshape(len(item_values), k), item_values, label_values


def fleiss_kappa_from_ratings(items: Any, labels: Any) -> FleissResult:
    """Fleiss' κ from raw ratings: ``items[r]`` was given label ``labels[r]`` (see :func:`fleiss_kappa`).

    Example: Fujita's setting, every item judged by 3 of 6 raters — pass the 3·n_items ratings.
    """
    table, _, _ = rating_table(items, labels)
    return fleiss_kappa(table)


# -- Cohen ----------------------------------------------------------------------------------------


def cohen_kappa(y1: Sequence[Any], y2: Sequence[Any]) -> float | None:
    """Cohen's κ of two raters over the same items: ``κ = (p_o − p_e)/(1 − p_e)``.

    ``p_o`` = share of items with equal labels, ``p_e = Σ_k p_1(k)·p_2(k)`` with each rater's own
    marginals. Range [−1, 1]; ``None`` for no items or ``1 − p_e ≤ 1e-12``. Equals
    ``sklearn.metrics.cohen_kappa_score``. Cohen (1960), eq. 1; docs/measures.md#cohen.

    >>> cohen_kappa(["OK", "OK", "NG", "NG"], ["OK", "NG", "NG", "NG"])
    0.5
    """
    if len(y1) != len(y2):
        raise ValueError(f"y1 and y2 differ in length ({len(y1)} vs {len(y2)})")
    if not len(y1):
        return None
    c, values = codes(np.concatenate([np.asarray(y1, dtype=object), np.asarray(y2, dtype=object)]))
    return _cohen_codes(c[: len(y1)], c[len(y1) :], len(values))


def _cohen_codes(c1: IntArray, c2: IntArray, k: int) -> float | None:
    n = len(c1)
    if n == 0:
        return None
    p_o = np.count_nonzero(c1 == c2) / n
    p_e = float(np.dot(np.bincount(c1, minlength=k), np.bincount(c2, minlength=k))) / (n * n)
    if 1 - p_e <= _EPS:
        return None
    return float((p_o - p_e) / (1 - p_e))


def cohen_kappa_from_confusion(confusion: Mapping[tuple[Any, Any], int]) -> float | None:
    """Cohen's κ from the counts ``confusion[x, y]`` of items labelled ``x`` by rater 1 and ``y`` by rater 2.

    Equals :func:`cohen_kappa` of the items the counts describe, bit for bit: ``p_o`` = diagonal / n,
    ``p_e`` = (Σ_k n_1(k)·n_2(k)) / n² computed from the same integers in the same order of operations.
    """
    n = sum(confusion.values())
    if n == 0:
        return None
    agree = sum(v for (x, y), v in confusion.items() if x == y)
    m1: dict[Any, int] = {}
    m2: dict[Any, int] = {}
    for (x, y), v in confusion.items():
        m1[x] = m1.get(x, 0) + v
        m2[y] = m2.get(y, 0) + v
    p_o = agree / n
    p_e = float(sum(m1[k] * m2.get(k, 0) for k in m1)) / (n * n)
    if 1 - p_e <= _EPS:
        return None
    return float((p_o - p_e) / (1 - p_e))


def cohen_kappa_pairs(matrix: Any, *, missing: int = -1) -> dict[tuple[int, int], tuple[float | None, int]]:
    """Cohen's κ for every pair of columns of an items × raters code matrix (``missing`` = not judged).

    Returns ``{(r1, r2): (κ, n_common_items)}`` for ``r1 < r2``; each pair uses the items both
    judged (see :func:`cohen_kappa`). Codes must be integers ``≥ 0`` apart from ``missing``.
    """
    m = np.asarray(matrix)
    if m.ndim != 2 or not np.issubdtype(m.dtype, np.integer):
        raise ValueError(f"matrix must be a 2-D integer array (items × raters), got {m.dtype} {m.shape}")
    present = m != missing
    if np.any(m[present] < 0):
        raise ValueError("codes must be >= 0 (apart from the missing marker)")
    k = int(m[present].max()) + 1 if present.any() else 1
    out: dict[tuple[int, int], tuple[float | None, int]] = {}
    cols = [m[:, r].astype(np.int64) for r in range(m.shape[1])]
    for r1 in range(m.shape[1]):
        for r2 in range(r1 + 1, m.shape[1]):
            both = present[:, r1] & present[:, r2]
            if both.all():
                c1, c2 = cols[r1], cols[r2]
            else:
                c1, c2 = cols[r1][both], cols[r2][both]
            out[r1, r2] = (_cohen_codes(c1, c2, k), len(c1))
    return out


# -- Krippendorff ---------------------------------------------------------------------------------


def krippendorff_alpha_from_counts(counts: Any) -> float | None:
    """Krippendorff's α (nominal) from a units × values count table (``n_uc`` = raters giving value c).

    ``α = 1 − (n − 1)·Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k`` with the coincidences
    ``o_ck = Σ_u n_uc·(n_uk − δ_ck)/(m_u − 1)`` over pairable units (``m_u ≥ 2``), ``n_c = Σ_k o_ck``.
    Range [−1, 1]; ``None`` if fewer than two pairable values or only one value occurs.
    Krippendorff (2011), *Computing Krippendorff's alpha-reliability*, §B (nominal);
    docs/measures.md#krippendorff.
    """
    n_uc = np.asarray(counts, dtype=np.float64)
    if n_uc.ndim != 2:
        raise ValueError(f"counts must be 2-D (units × values), got shape {n_uc.shape}")
    m_u = n_uc.sum(axis=1)
    keep = m_u >= 2
    n_uc, m_u = n_uc[keep], m_u[keep]
    if not len(m_u):
        return None
    o_cc = ((n_uc * (n_uc - 1)).sum(axis=1) / (m_u - 1)).sum()  # Σ_c o_cc
    n_c = n_uc.sum(axis=0)
    n = float(m_u.sum())
    d_e = n * n - float((n_c * n_c).sum())  # Σ_{c≠k} n_c n_k
    if n <= 1 or d_e <= _EPS:
        return None
    return float(1 - (n - 1) * (n - o_cc) / d_e)


def krippendorff_alpha(reliability_data: Any) -> float | None:
    """Krippendorff's α (nominal) of a raters × units matrix with ``NaN`` (or ``None``) for missing.

    Same layout as the ``krippendorff`` package's ``alpha(reliability_data=…,
    level_of_measurement="nominal")``, which it equals. See :func:`krippendorff_alpha_from_counts`.

    >>> krippendorff_alpha([[1, 2, 1], [1, 2, 2]])
    0.4444444444444444
    """
    data = np.asarray(reliability_data, dtype=object if _has_none(reliability_data) else None)
    if data.ndim != 2:
        raise ValueError(f"reliability_data must be 2-D (raters × units), got shape {data.shape}")
    if data.dtype == object:
        present = np.array([[v is not None and v == v for v in row] for row in data], dtype=bool)
    elif np.issubdtype(data.dtype, np.floating):
        present = ~np.isnan(data)
    else:
        present = np.ones(data.shape, dtype=bool)
    unit_idx = np.broadcast_to(np.arange(data.shape[1]), data.shape)[present]
    values = data[present]
    if values.dtype == object:
        values = values.astype(str) if any(isinstance(v, str) for v in values) else values.astype(np.float64)
    if np.issubdtype(values.dtype, np.floating) and len(values) and np.all(values == np.round(values)):
        values = values.astype(np.int64)
    if not len(values):
        return None
    value_codes, uniq = codes(values)
    k = len(uniq)
    table = np.bincount(unit_idx * k + value_codes, minlength=data.shape[1] * k).reshape(data.shape[1], k)
    return krippendorff_alpha_from_counts(table)


def _has_none(data: Any) -> bool:
    if isinstance(data, np.ndarray):
        return data.dtype == object
    return any(v is None or isinstance(v, str) for row in data for v in row)
