"""Agreement pair by pair, for the disagreement explorer and the re-annotation rules.

`pair_agreement(doc)` takes the interchange document of a project (`annotator.agreement.document.project_document`)
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

An annotator "worked on" a pair when they have a phenomenon, a label or a word alignment entry on it,
or their assignment for it is done (as in the pairs' stored agreement entries,
`annotator.agreement.current.pair_entries`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from django.core.cache import cache

from annotator.agreement.document import project_document
from annotator.agreement.results import fingerprint
from annotator.models import Assignment, Membership
from metrics.alignment import word_alignment_scores
from metrics.document import parse_document
from metrics.iapta import (
    CELL_FIELDS,
    PairTables,
    index_phenomena,
    overlapping,
    pair_tables,
    partial_overlap,
    total_overlap,
)
from metrics.types import Document, Phenomenon

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


def _workers(raw: Mapping[str, Any], done: Mapping[str, Iterable[str]] | None) -> dict[str, set[str]]:
    """Pair id → annotators who worked on it."""
    out: dict[str, set[str]] = {}
    for name, xs in (raw.get("phenomena") or {}).items():
        for x in xs:
            out.setdefault(x["pair"], set()).add(name)
    for section in (raw.get("pair_labels") or {}, raw.get("word_alignments") or {}, done or {}):
        for name, pair_ids in section.items():
            for pid in pair_ids:
                out.setdefault(pid, set()).add(name)
    return out


def pair_agreement(
    raw: Mapping[str, Any],
    doc: Document | None = None,
    *,
    done: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per pair id (document order): who worked on it and the agreement of every two of them.

    `done` (annotator → pair ids whose assignment is done) counts as having worked on a pair too.
    """
    doc = doc or parse_document(dict(raw))
    order = list(doc.annotators)
    workers = _workers(raw, done)
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
            _store_pair_values(f"{a}|{b}", a, b, tables, type_names, rows)


def _store_pair_values(
    key: str,
    a: str,
    b: str,
    tables: PairTables,
    type_names: list[str],
    rows: dict[str, dict[str, Any]],
) -> None:
    """DO F1 of the annotator pair on each pair both worked on, and by type (a pair neither has
    phenomena on has no row in `tables`: its DO F1 is undefined)."""
    cells, per_pair = tables.cells, tables.per_pair
    f1 = _do_f1(per_pair[:, _N_X], per_pair[:, _N_Y], per_pair[:, _D_XY], per_pair[:, _D_YX])
    cell_f1 = _do_f1(cells[:, :, _N_X], cells[:, :, _N_Y], cells[:, :, _D_XY], cells[:, :, _D_YX])
    present = (cells[:, :, _N_X] + cells[:, :, _N_Y]) > 0
    row_of = {int(p): r for r, p in enumerate(tables.positions)}
    for p, pid in enumerate(tables.pairs):
        row = rows[pid]
        if a not in row["annotators"] or b not in row["annotators"]:
            continue
        r = row_of.get(p)
        row["do_f1"][key] = None if r is None else _opt(f1[r])
        row["do_f1_by_type"][key] = (
            {} if r is None else {type_names[t]: _opt(cell_f1[r, t]) for t in np.flatnonzero(present[r])}
        )


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


def default_measure(project: Any) -> str:
    """The measure the explorer orders by unless told: phenomena, else word alignment, else labels."""
    if project.layer_phenomena:
        return "do_f1"
    return "alignment_f1" if project.layer_word_alignment else "labels"


def per_annotator_pair(
    row: Mapping[str, Any], measure: str, *, annotator_pair: str = "", ptype: str = ""
) -> list[tuple[str, float | None]]:
    """("a|b", value) for every two annotators of the pair who have `measure` (or the one chosen)."""
    keys = [annotator_pair] if annotator_pair else annotator_pairs([row])
    return [
        (key, row_value(row, measure, annotator_pair=key, ptype=ptype))
        for key in keys
        if measure == "labels" or key in row[measure]
    ]


def choose_annotators(
    row: Mapping[str, Any], workers: list[str], a: str = "", b: str = ""
) -> tuple[str, str]:
    """The two annotators to compare on a pair: `a` and `b` when both worked on it, else the two who
    agree least (lowest DO F1), else the first two; ("", "") / (a, "") with fewer than two workers."""
    if a in workers and b in workers and a != b:
        return a, b
    if len(workers) < 2:
        return (workers[0] if workers else ""), ""
    values = {key: value for key, value in row["do_f1"].items() if value is not None}
    if values:
        key = min(values, key=values.__getitem__)
        first, _, second = key.partition("|")
        if first in workers and second in workers:
            return first, second
    return workers[0], workers[1]


def comparison_key(row: Mapping[str, Any], a: str, b: str) -> str:
    """The "a|b" key under which the row holds the values of a and b (either order)."""
    return f"{a}|{b}" if f"{a}|{b}" in row["do_f1"] or f"{a}|{b}" in row["alignment_f1"] else f"{b}|{a}"


def empty_row() -> dict[str, Any]:
    """The row of a pair nobody has worked on yet (the shape `pair_agreement` gives every pair)."""
    return {
        "annotators": [],
        "labels": {},
        "do_f1": {},
        "do_f1_by_type": {},
        "alignment_f1": {},
        "types": [],
        "label_disagreement": False,
        "score": None,
    }


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


def done_pairs(project: Any) -> dict[str, set[str]]:
    """Annotator username → source ids of the pairs whose assignment (any round) is done."""

    annotators = Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR).values("user_id")
    rows = Assignment.objects.filter(
        project=project, pair__isnull=False, status=Assignment.Status.DONE, annotator_id__in=annotators
    ).values_list("annotator__username", "pair__source_id")
    out: dict[str, set[str]] = {}
    for name, source_id in rows:
        out.setdefault(name, set()).add(source_id)
    return out


def project_rows(project: Any) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(document, `pair_agreement` rows) of the project's current annotations.

    The document is rebuilt on every call (a few queries); the computation is cached under the
    fingerprint of the document and the done assignments, so it runs only after a change and paging
    or filtering the explorer stays cheap.
    """

    raw = project_document(project)
    done = done_pairs(project)
    digest = fingerprint([raw, {name: sorted(ids) for name, ids in done.items()}])
    key = f"leadtools:pair-agreement:{project.pk}:{digest}"
    rows = cache.get(key)
    if rows is None:
        rows = pair_agreement(raw, done=done)
        cache.set(key, rows, timeout=3600)
    return raw, rows


# ---- side by side: two annotators' versions of one pair, differences marked ---------------------------


def _metric_phenomenon(x: Any) -> Phenomenon:
    return Phenomenon(
        str(x.pair_id),
        x.ptype.name,
        frozenset(x.scope1),
        frozenset(x.scope2),
        x.projection or None,
        frozenset(x.key1),
        frozenset(x.key2),
    )


def _token_marks(
    tokens: list[str], scope: list[int], key: list[int], other_cover: set[int]
) -> list[dict[str, Any]]:
    scope_set, key_set = set(scope), set(key)
    return [
        {
            "n": n,
            "text": text,
            "scope": n in scope_set,
            "key": n in key_set,
            "only": n in scope_set and n not in other_cover,
        }
        for n, text in enumerate(tokens)
    ]


def _phenomenon_view(pair: Any, x: Any, others: list[Any]) -> dict[str, Any]:
    """One phenomenon with its tokens marked; `status` says how the other annotator's version matches it:
    "same" (a same-type phenomenon with identical scopes), "overlap" (same type, scopes overlap, TPO
    partial), "only" (no same-type phenomenon overlaps it). `best` is the DO overlapping value."""
    mx = _metric_phenomenon(x)
    same_type = [y for y in others if y.ptype_id == x.ptype_id]
    metric_others = [_metric_phenomenon(y) for y in same_type]
    if any(total_overlap(mx, my) for my in metric_others):
        status = "same"
    elif any(partial_overlap(mx, my) for my in metric_others):
        status = "overlap"
    else:
        status = "only"
    best = max((overlapping(mx, my, one_sided=x.ptype.one_sided) for my in metric_others), default=0.0)
    cover1 = {n for y in same_type for n in y.scope1}
    cover2 = {n for y in same_type for n in y.scope2}
    return {
        "obj": x,
        "status": status,
        "best": best,
        "tokens1": _token_marks(pair.tokens1, x.scope1, x.key1, cover1),
        "tokens2": _token_marks(pair.tokens2, x.scope2, x.key2, cover2),
    }


def compare_phenomena(pair: Any, a: list[Any], b: list[Any]) -> list[dict[str, Any]]:
    """Rows by type (tagset order): each annotator's phenomena of the type, marked against the other's."""
    types = {x.ptype_id: x.ptype for x in [*a, *b]}
    rows = []
    for ptype in sorted(types.values(), key=lambda t: (t.position, t.pk)):
        mine_a = [x for x in a if x.ptype_id == ptype.pk]
        mine_b = [x for x in b if x.ptype_id == ptype.pk]
        views_a = [_phenomenon_view(pair, x, b) for x in mine_a]
        views_b = [_phenomenon_view(pair, x, a) for x in mine_b]
        agree = bool(views_a and views_b) and all(v["status"] == "same" for v in [*views_a, *views_b])
        rows.append({"ptype": ptype, "a": views_a, "b": views_b, "agree": agree})
    rows.sort(key=lambda row: row["agree"])  # differences first
    return rows


def compare_links(pair: Any, a: list[Any], b: list[Any]) -> dict[str, Any]:
    """The alignment matrix of two annotators: per cell "both" / "a" / "b" and sure or possible."""
    la = {(link.i, link.j): link.sure for link in a}
    lb = {(link.i, link.j): link.sure for link in b}
    grid = []
    for i, t1 in enumerate(pair.tokens1):
        cells = []
        for j in range(len(pair.tokens2)):
            in_a, in_b = (i, j) in la, (i, j) in lb
            state = "both" if in_a and in_b else "a" if in_a else "b" if in_b else ""
            sure = (la.get((i, j)) if in_a else False) or (lb.get((i, j)) if in_b else False)
            mixed = in_a and in_b and la[i, j] != lb[i, j]
            cells.append({"state": state, "sure": sure, "mixed": mixed, "i": i, "j": j})
        grid.append({"i": i, "token": t1, "cells": cells})
    only_a = sorted(la.keys() - lb.keys())
    only_b = sorted(lb.keys() - la.keys())
    return {
        "grid": grid,
        "tokens2": list(enumerate(pair.tokens2)),
        "both": len(la.keys() & lb.keys()),
        "only_a": [(i, j, pair.tokens1[i], pair.tokens2[j], la[i, j]) for i, j in only_a],
        "only_b": [(i, j, pair.tokens1[i], pair.tokens2[j], lb[i, j]) for i, j in only_b],
        "mixed": sum(1 for key in la.keys() & lb.keys() if la[key] != lb[key]),
    }


def _span_text(tokens: list[str], nodes: list[dict[str, Any]], index: int | None) -> str:
    if index is None:
        return "∅"
    node = nodes[index]
    return f"{node['label']}: " + " ".join(tokens[node["start"] : node["end"]])


def compare_phrases(pair: Any, a: list[Any], b: list[Any]) -> list[dict[str, Any]]:
    """Phrase alignments of both annotators: each node pair with "both" / "a" / "b"."""
    ka = {(x.node1, x.node2): x.sure for x in a}
    kb = {(x.node1, x.node2): x.sure for x in b}
    rows = []
    for key in sorted(
        ka.keys() | kb.keys(), key=lambda k: (k[0] is None, k[0] or 0, k[1] is None, k[1] or 0)
    ):
        state = "both" if key in ka and key in kb else "a" if key in ka else "b"
        rows.append(
            {
                "state": state,
                "span1": _span_text(pair.tokens1, pair.nodes1, key[0]),
                "span2": _span_text(pair.tokens2, pair.nodes2, key[1]),
                "sure": ka.get(key, kb.get(key)),
            }
        )
    rows.sort(key=lambda row: row["state"] == "both")
    return rows
