"""From an interchange document to the results stored in an AgreementSnapshot (pure; no database).

`snapshot_results(doc, previous)` returns::

    {"report": the metrics report — exactly what `python -m metrics report` prints for `doc`,
     "sections": {section: fingerprint of its inputs},   # which parts can be reused next time
     "section_keys": {section: [report keys it produced]},
     "pending": [],                                      # ["kappa_c"] in a provisional snapshot
     "pairs": {pair id: {"do_f1", "label_disagreement", "annotators"}},   # for the explorer
     "pair_labels": {"cohen": …, "fleiss": …, "counts": …}}

The report is assembled section by section: a section (phenomena, word alignments, κ_C, phrase
alignments, evaluations, pair labels — every top-level section of the document) whose inputs — the section itself plus annotators, options, tagset and
pairs — have the fingerprint stored in the previous snapshot is copied from it; the others are computed
with `metrics.report.build_report` on a document holding only that section. The sections of the
report are independent of each other (each reads only its own section and the shared parts), so the
assembly equals `build_report` of the whole document; a test holds this against the CLI.

κ_C (spec §5.4) is a Monte Carlo estimate whose cost grows with pairs × samples; with
`defer_kappa_c=True` the word-alignment P/R/F1 is computed now and κ_C is carried over from the
previous snapshot and listed in `pending`, so the caller can store a provisional snapshot at once and
the exact one when κ_C is done.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from metrics.alignment import alignment_report
from metrics.document import parse_document
from metrics.iapta import CELL_FIELDS, harmonic_mean, index_phenomena, pair_tables
from metrics.kappa import cohen_kappa, fleiss_kappa_from_ratings
from metrics.report import build_report
from metrics.types import Phenomenon


def canonical_json(value: Any) -> str:
    """The one serialisation used for fingerprints: sorted keys, no spaces, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def fingerprint(value: Any) -> str:
    """sha256 of the canonical JSON of `value`."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


SHARED = ("format", "annotators", "options", "tagset", "pairs")
#: κ_C is split from the rest of the word-alignment section because only it is expensive (spec §5.4).
KAPPA_C = "kappa_c"


def report_section_names(doc: Mapping[str, Any]) -> list[str]:
    """The report's sections: every document section (also extensions such as `pair_labels`), with κ_C
    split from the word-alignment section."""
    names = [key for key in doc if key not in SHARED]
    if "word_alignments" in names:
        names.append(KAPPA_C)
    return names


def _source(name: str) -> str:
    return "word_alignments" if name == KAPPA_C else name


def section_fingerprints(doc: Mapping[str, Any]) -> dict[str, str]:
    """Fingerprint of each report section's inputs (its document section plus the shared parts)."""
    shared = fingerprint({key: doc.get(key) for key in SHARED})
    return {name: fingerprint([shared, name, doc[_source(name)]]) for name in report_section_names(doc)}


def _split(name: str, measures: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of report section `name` among the measures computed from its document section."""
    if name == "word_alignments":
        return {k: v for k, v in measures.items() if not k.startswith(KAPPA_C)}
    if name == KAPPA_C:
        return {k: v for k, v in measures.items() if k.startswith(KAPPA_C)}
    return dict(measures)


def _section_document(doc: Mapping[str, Any], source: str) -> dict[str, Any]:
    return {**{key: doc[key] for key in SHARED if key in doc}, source: doc[source]}


def report_sections(
    doc: Mapping[str, Any], previous: Mapping[str, Any] | None = None, *, defer_kappa_c: bool = False
) -> tuple[dict[str, Any], dict[str, str], dict[str, list[str]], list[str]]:
    """(report, section fingerprints, keys of each section, pending sections) of `doc`.

    Sections whose fingerprint equals the one in `previous` (an earlier snapshot's results) are copied
    from it. Raises `metrics.types.DocumentError` for an invalid document (a bug in the document
    builder: the services validate every annotation).
    """
    sections = section_fingerprints(doc)
    previous = previous or {}
    old_sections = previous.get("sections", {})
    old_keys = previous.get("section_keys", {})
    old_pending = set(previous.get("pending", []))
    old_measures = previous.get("report", {}).get("measures", {})
    measures: dict[str, Any] = {}
    keys: dict[str, list[str]] = {}
    pending: list[str] = []
    computed: dict[str, dict[str, Any]] = {}
    for name, digest in sections.items():
        source = _source(name)
        if old_sections.get(name) == digest and name not in old_pending and name in old_keys:
            part = {k: old_measures[k] for k in old_keys[name] if k in old_measures}
        elif name == KAPPA_C and defer_kappa_c:
            part = {k: old_measures[k] for k in old_keys.get(name, []) if k in old_measures}
            pending.append(name)
        elif name == "word_alignments" and defer_kappa_c:
            part = json_safe(alignment_report(parse_document(_section_document(doc, source))))
        else:
            if source not in computed:
                computed[source] = build_report(parse_document(_section_document(doc, source)))["measures"]
            part = _split(name, computed[source])
        measures.update(part)
        keys[name] = sorted(part)
    report = {"format": "paraphrase-agreement-report/1", "measures": dict(sorted(measures.items()))}
    return report, sections, keys, pending


def json_safe(value: Any) -> Any:
    """Plain-Python, JSON-safe copy (numpy scalars converted; NaN/±inf → None), as `build_report` does."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    raise ValueError(f"value of type {type(value).__name__} is not JSON-serialisable")


# ---- per pair, for the disagreement explorer -------------------------------------------------------


def _phenomenon(x: Mapping[str, Any]) -> Phenomenon:
    return Phenomenon(
        x["pair"],
        x["type"],
        frozenset(x["s1"]),
        frozenset(x["s2"]),
        x.get("projection"),
        frozenset(x.get("key1", ())),
        frozenset(x.get("key2", ())),
    )


def _do_f1_by_pair(doc: Mapping[str, Any]) -> dict[tuple[str, str], list[float | None]]:
    """Per annotator pair (a, b): DO F1 of every document pair, from `metrics.iapta.pair_tables`.

    Per pair p: `F1 = HM(K(a→b), K(b→a))` with `K(x→y) = do_xy / n_x` over p's phenomena (spec §4), 0 when
    exactly one annotator has phenomena on p and None when neither has — `metrics.iapta.do_f1` of the
    pair's phenomena, computed for all pairs in one table per annotator pair.
    """
    types = doc["tagset"]["types"]
    type_index = {t["name"]: n for n, t in enumerate(types)}
    a_by_type = [1.0 if t.get("one_sided") else 0.5 for t in types]
    pair_ids = [p["id"] for p in doc["pairs"]]
    phenomena = doc.get("phenomena") or {}
    names = [a for a in doc["annotators"] if a in phenomena]
    index = {a: index_phenomena([_phenomenon(x) for x in phenomena[a]], type_index) for a in names}
    col = {f: n for n, f in enumerate(CELL_FIELDS)}
    out: dict[tuple[str, str], list[float | None]] = {}
    for n, a in enumerate(names):
        for b in names[n + 1 :]:
            tables = pair_tables(
                index[a], index[b], pairs=pair_ids, types=[t["name"] for t in types], a_by_type=a_by_type
            )
            per_pair = tables.cells.sum(axis=1)
            n_x, n_y = per_pair[:, col["n_x"]], per_pair[:, col["n_y"]]
            values: list[float | None] = []
            for nx, ny, dxy, dyx in zip(
                n_x, n_y, per_pair[:, col["do_xy"]], per_pair[:, col["do_yx"]], strict=True
            ):
                if nx == 0 and ny == 0:
                    values.append(None)
                elif nx == 0 or ny == 0:
                    values.append(0.0)
                else:
                    values.append(harmonic_mean(float(dxy / nx), float(dyx / ny)))
            out[a, b] = values
    return out


def pair_results(
    doc: Mapping[str, Any],
    done: Mapping[str, set[str]] | None = None,
    previous: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Per pair: mean DO F1 over the pairs of annotators who worked on it, label disagreement, who.

    An annotator "worked on" a pair when they have a phenomenon, a label or a word alignment on it, or
    their assignment is done (`done`: annotator → pair ids). `do_f1` averages the pair's DO F1 of each
    two of them (defined values only; null when fewer than two worked on it or the layer is off);
    `label_disagreement` is true when their pair labels differ. `previous` (an earlier snapshot's
    `pairs`) is reused for `do_f1` by the caller when the phenomena section did not change.
    """
    order = doc["annotators"]
    labels = doc.get("pair_labels") or {}
    workers: dict[str, set[str]] = {}
    for name, xs in (doc.get("phenomena") or {}).items():
        for x in xs:
            workers.setdefault(x["pair"], set()).add(name)
    for source in (labels, doc.get("word_alignments") or {}, done or {}):
        for name, pair_ids in source.items():
            for pid in pair_ids:
                workers.setdefault(pid, set()).add(name)
    by_annotators = _do_f1_by_pair(doc) if previous is None and "phenomena" in doc else {}
    out: dict[str, Any] = {}
    for p, pair in enumerate(doc["pairs"]):
        pid = pair["id"]
        who = [name for name in order if name in workers.get(pid, ())]
        given = {labels[name][pid] for name in who if pid in labels.get(name, {})}
        if previous is not None:
            do_f1 = (previous.get(pid) or {}).get("do_f1")
        else:
            values = [
                by_annotators[a, b][p]
                for n, a in enumerate(who)
                for b in who[n + 1 :]
                if (a, b) in by_annotators and by_annotators[a, b][p] is not None
            ]
            do_f1 = sum(values) / len(values) if values else None
        out[pid] = {"do_f1": do_f1, "label_disagreement": len(given) > 1, "annotators": who}
    return out


# ---- pair labels (paraphrase / non-paraphrase) -----------------------------------------------------


def pair_label_agreement(doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """Cohen's κ per annotator pair (pairs both labelled) and Fleiss' κ over pairs with ≥ 2 labels.

    Uses `metrics.kappa`; None when the document has no `pair_labels` section. `counts` gives each
    annotator's number of paraphrase / non-paraphrase labels, `disagreeing_pairs` the pairs labelled
    both ways.
    """
    labels: dict[str, dict[str, str]] = doc.get("pair_labels")  # type: ignore[assignment]
    if labels is None:
        return None
    names = [a for a in doc["annotators"] if a in labels]
    by_pair: dict[str, float | None] = {}
    n_items: dict[str, int] = {}
    for n, a in enumerate(names):
        for b in names[n + 1 :]:
            common = [pid for pid in labels[a] if pid in labels[b]]
            key = f"{a}|{b}"
            by_pair[key] = cohen_kappa([labels[a][p] for p in common], [labels[b][p] for p in common])
            n_items[key] = len(common)
    per_item: dict[str, list[str]] = {}
    for a in names:
        for pid, label in labels[a].items():
            per_item.setdefault(pid, []).append(label)
    rated = [(pid, label) for pid, given in per_item.items() if len(given) >= 2 for label in given]
    disagreeing = sum(1 for given in per_item.values() if len(set(given)) > 1)
    fleiss = fleiss_kappa_from_ratings([p for p, _ in rated], [lab for _, lab in rated]) if rated else None
    defined = [v for v in by_pair.values() if v is not None]
    return {
        "cohen": {
            "value": sum(defined) / len(defined) if defined else None,
            "by_pair": by_pair,
            "n_items": n_items,
        },
        "fleiss": {
            "value": fleiss.kappa if fleiss else None,
            "n_items": fleiss.n_items if fleiss else 0,
        },
        "disagreeing_pairs": disagreeing,
        "counts": {
            a: {
                "paraphrase": sum(1 for v in labels[a].values() if v == "paraphrase"),
                "non_paraphrase": sum(1 for v in labels[a].values() if v == "non_paraphrase"),
            }
            for a in names
        },
    }
