"""Agreement on the pair-level decision (paraphrase / non-paraphrase).

An extension of the interchange document (docs/measures.md#document): the section ``pair_labels`` maps each annotator
to ``{pair id: label}``. The report keys are

- ``pair_labels.cohen``: Cohen's κ per annotator pair over the pairs both labelled (``by_pair``,
  ``n_items``), ``value`` = mean over annotator pairs (docs/measures.md#cohen, applied to pair labels);
- ``pair_labels.fleiss``: Fleiss' κ over the pairs with ≥ 2 labels (docs/measures.md#fleiss, varying n_i);
  docs/measures.md#pair-labels describes all three;
- ``pair_labels.disagreeing``: ``value`` = number of pairs labelled in more than one way.
"""

from __future__ import annotations

from typing import Any

from metrics.kappa import cohen_kappa, fleiss_kappa_from_ratings
from metrics.types import Document

__all__ = ["pair_label_report"]


def pair_label_report(doc: Document) -> dict[str, dict[str, Any]]:
    """The ``pair_labels.*`` keys of the report; empty when the document has no ``pair_labels``.

    Cohen's κ: ``κ = (p_o − p_e)/(1 − p_e)`` with each annotator's own marginals (Cohen 1960), null with
    no common pair or ``1 − p_e ≤ 1e-12``. Fleiss' κ: docs/measures.md#fleiss (spec §7) with ``n_i`` labels on pair i (Fleiss 1971).

    >>> from metrics.document import parse_document
    >>> doc = parse_document({"format": "paraphrase-agreement/1", "annotators": ["A", "B"],
    ...     "pairs": [{"id": str(n), "tokens1": ["x"], "tokens2": ["y"]} for n in range(4)],
    ...     "pair_labels": {"A": {"0": "p", "1": "p", "2": "n", "3": "n"},
    ...                     "B": {"0": "p", "1": "n", "2": "n", "3": "n"}}})
    >>> pair_label_report(doc)["pair_labels.cohen"]["by_pair"]["A|B"]
    0.5
    """
    labels = doc.pair_labels
    if labels is None:
        return {}
    names = [a for a in doc.annotators if a in labels]
    by_pair: dict[str, float | None] = {}
    n_items: dict[str, int] = {}
    for n, a in enumerate(names):
        for b in names[n + 1 :]:
            common = [pair_id for pair_id in labels[a] if pair_id in labels[b]]
            by_pair[f"{a}|{b}"] = cohen_kappa([labels[a][p] for p in common], [labels[b][p] for p in common])
            n_items[f"{a}|{b}"] = len(common)
    given: dict[str, list[str]] = {}
    for a in names:
        for pair_id, label in labels[a].items():
            given.setdefault(pair_id, []).append(label)
    rated = [(pair_id, label) for pair_id, ls in given.items() if len(ls) >= 2 for label in ls]
    fleiss = fleiss_kappa_from_ratings([p for p, _ in rated], [lab for _, lab in rated]) if rated else None
    defined = [v for v in by_pair.values() if v is not None]
    cohen: dict[str, Any] = {"value": sum(defined) / len(defined) if defined else None}
    if len(names) >= 2:
        cohen.update(by_pair=by_pair, n_items=n_items)
    return {
        "pair_labels.cohen": cohen,
        "pair_labels.fleiss": {
            "value": fleiss.kappa if fleiss else None,
            "n_items": fleiss.n_items if fleiss else 0,
        },
        "pair_labels.disagreeing": {"value": sum(1 for ls in given.values() if len(set(ls)) > 1)},
    }
