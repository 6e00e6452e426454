"""Agreement pair by pair, for the disagreement explorer and the re-annotation rules.

`pair_agreement(doc)` takes the interchange document of a project (`annotator.agreement.project_document`)
and returns, for every pair, the values of every two annotators who worked on it:

- `do_f1["a|b"]`: the DO-measure F1 of Vila et al. (2015, §4.3) restricted to the pair, i.e.
  `metrics.iapta.do_f1(a's phenomena of the pair, b's, tagset=…)`; `do_f1_by_type["a|b"][type]` the
  same restricted to one type. They are read off the metrics library's per-(pair, type) sufficient
  statistics (`metrics.iapta.pair_tables`, columns `CELL_FIELDS`) in one vectorised pass, so a project
  of MSRP-A's size (3,900 pairs × 3 annotators) takes well under a second; a test holds them equal to
  `do_f1` called pair by pair.
- `alignment_f1["a|b"]`: word-alignment F1 (`metrics.alignment.word_alignment_scores`, Och & Ney's
  generous tier) where both aligned the pair.
- `labels`: annotator → pair label; `label_disagreement`: the labels given differ.
- `score`: the mean of the defined `do_f1` values (the headline), `None` when undefined.

An annotator "worked on" a pair when they have a phenomenon, a label or a word alignment entry on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from metrics.alignment import word_alignment_scores
from metrics.document import parse_document
from metrics.iapta import CELL_FIELDS, index_phenomena, pair_tables
from metrics.types import Document

_N_X, _N_Y = CELL_FIELDS.index("n_x"), CELL_FIELDS.index("n_y")
_D_XY, _D_YX = CELL_FIELDS.index("do_xy"), CELL_FIELDS.index("do_yx")


def _do_f1(n_x: np.ndarray, n_y: np.ndarray, d_xy: np.ndarray, d_yx: np.ndarray) -> np.ndarray:
    """F1 = HM(K(X→Y), K(Y→X)), K = Σ max overlapping / count; 0 if one side is empty, NaN if both."""
    with np.errstate(divide="ignore", invalid="ignore"):
        k_xy = np.where(n_x > 0, d_xy / np.where(n_x > 0, n_x, 1), np.nan)
        k_yx = np.where(n_y > 0, d_yx / np.where(n_y > 0, n_y, 1), np.nan)
        s = k_xy + k_yx
        f1 = np.where(s == 0, 0.0, 2 * k_xy * k_yx / np.where(s == 0, 1, s))
    f1 = np.where((n_x == 0) | (n_y == 0), 0.0, f1)
    return np.where((n_x == 0) & (n_y == 0), np.nan, f1)


def _opt(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _workers(raw: Mapping[str, Any]) -> dict[str, set[str]]:
    """Pair id → annotators who worked on it."""
    out: dict[str, set[str]] = {}
    for name, xs in (raw.get("phenomena") or {}).items():
        for x in xs:
            out.setdefault(x["pair"], set()).add(name)
    for section in (raw.get("pair_labels") or {}, raw.get("word_alignments") or {}):
        for name, pair_ids in section.items():
            for pid in pair_ids:
                out.setdefault(pid, set()).add(name)
    return out


def pair_agreement(raw: Mapping[str, Any], doc: Document | None = None) -> dict[str, dict[str, Any]]:
    """Per pair id (document order): who worked on it and the agreement of every two of them."""
    doc = doc or parse_document(dict(raw))
    order = list(doc.annotators)
    workers = _workers(raw)
    labels: dict[str, dict[str, str]] = raw.get("pair_labels") or {}
    rows: dict[str, dict[str, Any]] = {}
    for pair in doc.pairs:
        who = [a for a in order if a in workers.get(pair.id, ())]
        rows[pair.id] = {
            "annotators": who,
            "labels": {a: labels[a][pair.id] for a in who if pair.id in labels.get(a, {})},
            "do_f1": {},
            "do_f1_by_type": {},
            "alignment_f1": {},
            "types": [],
        }
    if doc.phenomena is not None:
        _phenomena_values(doc, rows)
    if doc.word_alignments is not None:
        _alignment_values(doc, rows)
    for row in rows.values():
        row["label_disagreement"] = len(set(row["labels"].values())) > 1
        defined = [v for v in row["do_f1"].values() if v is not None]
        row["score"] = sum(defined) / len(defined) if defined else None
    return rows


def _phenomena_values(doc: Document, rows: dict[str, dict[str, Any]]) -> None:
    assert doc.phenomena is not None
    types = doc.tagset.types if doc.tagset is not None else ()
    type_names = [t.name for t in types]
    type_index = {name: n for n, name in enumerate(type_names)}
    a_by_type = [1.0 if t.one_sided else 0.5 for t in types]
    pair_ids = [p.id for p in doc.pairs]
    names = [a for a in doc.annotators if a in doc.phenomena]
    index = {a: index_phenomena(doc.phenomena[a], type_index) for a in names}
    used: dict[str, set[str]] = {}
    for a in names:
        for x in doc.phenomena[a]:
            used.setdefault(x.pair, set()).add(x.type)
    for pid, found in used.items():
        rows[pid]["types"] = [t for t in type_names if t in found]
    for n, a in enumerate(names):
        for b in names[n + 1 :]:
            tables = pair_tables(index[a], index[b], pairs=pair_ids, types=type_names, a_by_type=a_by_type)
            _store_pair_values(f"{a}|{b}", a, b, tables.cells, pair_ids, type_names, rows)


def _store_pair_values(
    key: str,
    a: str,
    b: str,
    cells: np.ndarray,
    pair_ids: list[str],
    type_names: list[str],
    rows: dict[str, dict[str, Any]],
) -> None:
    per_pair = cells.sum(axis=1)
    f1 = _do_f1(per_pair[:, _N_X], per_pair[:, _N_Y], per_pair[:, _D_XY], per_pair[:, _D_YX])
    cell_f1 = _do_f1(cells[:, :, _N_X], cells[:, :, _N_Y], cells[:, :, _D_XY], cells[:, :, _D_YX])
    present = (cells[:, :, _N_X] + cells[:, :, _N_Y]) > 0
    for p, pid in enumerate(pair_ids):
        row = rows[pid]
        if a not in row["annotators"] or b not in row["annotators"]:
            continue
        row["do_f1"][key] = _opt(f1[p])
        row["do_f1_by_type"][key] = {type_names[t]: _opt(cell_f1[p, t]) for t in np.flatnonzero(present[p])}


def _alignment_values(doc: Document, rows: dict[str, dict[str, Any]]) -> None:
    assert doc.word_alignments is not None
    names = [a for a in doc.annotators if a in doc.word_alignments]
    for pair in doc.pairs:
        for n, a in enumerate(names):
            wa = doc.word_alignments[a].get(pair.id)
            if wa is None:
                continue
            for b in names[n + 1 :]:
                wb = doc.word_alignments[b].get(pair.id)
                if wb is not None:
                    scores = word_alignment_scores(
                        wa, wb, pair.tokens1, pair.tokens2, identical_match=doc.options.identical_match
                    )
                    rows[pair.id]["alignment_f1"][f"{a}|{b}"] = scores[2]


# ---- choosing and ordering pairs ---------------------------------------------------------------------

MEASURES = {
    "do_f1": "Phenomena (DO F1)",
    "alignment_f1": "Word alignment (F1)",
    "labels": "Pair label",
}


def row_value(
    row: Mapping[str, Any], measure: str, *, annotator_pair: str = "", ptype: str = ""
) -> float | None:
    """The value a pair is ordered by: the mean over annotator pairs (or the one chosen) of `measure`.

    For "labels" it is 0 when the labels differ and 1 when they agree (None with fewer than two).
    With `ptype`, DO F1 is taken for that type only.
    """
    if measure == "labels":
        labels = row["labels"]
        if annotator_pair:
            a, _, b = annotator_pair.partition("|")
            labels = {k: v for k, v in labels.items() if k in (a, b)}
        return None if len(labels) < 2 else (0.0 if len(set(labels.values())) > 1 else 1.0)
    if measure == "do_f1" and ptype:
        values = {k: v.get(ptype) for k, v in row["do_f1_by_type"].items() if ptype in v}
    else:
        values = row[measure]
    if annotator_pair:
        values = {k: v for k, v in values.items() if k == annotator_pair}
    defined = [v for v in values.values() if v is not None]
    return sum(defined) / len(defined) if defined else None


def ordered_pairs(
    rows: Mapping[str, Mapping[str, Any]],
    *,
    measure: str = "do_f1",
    annotator_pair: str = "",
    ptype: str = "",
) -> list[tuple[str, float | None]]:
    """(pair id, value) lowest first; pairs without a value come last, in document order.

    `ptype` keeps the pairs where someone annotated that type; `annotator_pair` ("a|b") the pairs
    both of them worked on.
    """
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}, got {measure!r}")
    out = []
    for n, (pid, row) in enumerate(rows.items()):
        if ptype and ptype not in row["types"]:
            continue
        if annotator_pair and not set(annotator_pair.split("|")) <= set(row["annotators"]):
            continue
        out.append((n, pid, row_value(row, measure, annotator_pair=annotator_pair, ptype=ptype)))
    out.sort(key=lambda item: (item[2] is None, item[2] if item[2] is not None else 0.0, item[0]))
    return [(pid, value) for _, pid, value in out]


def annotator_pairs(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every "a|b" key that occurs, in first-seen order."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in (*row["do_f1"], *row["alignment_f1"]):
            seen.setdefault(key, None)
        names = list(row["labels"])
        for n, a in enumerate(names):
            for b in names[n + 1 :]:
                seen.setdefault(f"{a}|{b}", None)
    return list(seen)


# ---- from the database -------------------------------------------------------------------------------


def project_pair_agreement(project: Any) -> dict[str, dict[str, Any]]:
    """`pair_agreement` of the project's current annotations, cached under the document's fingerprint.

    The document is rebuilt on every call (a few queries); the computation runs only when the
    annotations changed since the last call, so paging and filtering the explorer stay cheap.
    """
    from django.core.cache import cache

    from ..agreement import fingerprint, project_document

    raw = project_document(project)
    key = f"leadtools:pair-agreement:{project.pk}:{fingerprint(raw)}"
    rows = cache.get(key)
    if rows is None:
        rows = pair_agreement(raw)
        cache.set(key, rows, timeout=3600)
    return rows
