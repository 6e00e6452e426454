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

from collections.abc import Mapping
from typing import Any

from metrics.kappa import cohen_kappa_from_confusion, fleiss_kappa
from metrics.types import Document

__all__ = ["PairLabelCounts", "pair_label_report", "pair_label_report_from_counts"]


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
    counts = PairLabelCounts(names)
    given: dict[str, dict[str, str]] = {}
    for a in names:
        for pair_id, label in labels[a].items():
            given.setdefault(pair_id, {})[a] = label
    for by_annotator in given.values():
        counts.add(by_annotator)
    return pair_label_report_from_counts(counts)


class PairLabelCounts:
    """Sufficient statistics of :func:`pair_label_report`, summed pair by pair (``add`` / ``remove``).

    - ``confusion["a|b"]["x|y"]``: pairs labelled ``x`` by ``a`` and ``y`` by ``b`` (Cohen's κ needs no
      more: ``p_o`` is its diagonal's share, ``p_e`` the product of its margins);
    - ``patterns["x=2,y=1"]``: pairs with ≥ 2 labels whose labels are counted so (Fleiss' κ needs only
      the multiset of its table's rows);
    - ``disagreeing``: pairs labelled in more than one way.

    All are integer counts, so a total kept up to date by adding and removing pairs equals one summed
    afresh. ``names``: the annotators of the section, in document order.
    """

    def __init__(self, names: list[str] | tuple[str, ...]) -> None:
        self.names = tuple(names)
        self.confusion: dict[str, dict[str, int]] = {}
        self.patterns: dict[str, int] = {}
        self.disagreeing = 0

    def add(self, labels: Mapping[str, str], sign: int = 1) -> None:
        """Count one pair's labels (annotator → label); ``sign=-1`` takes them out again."""
        present = [a for a in self.names if a in labels]
        for n, a in enumerate(present):
            for b in present[n + 1 :]:
                cell = self.confusion.setdefault(f"{a}|{b}", {})
                key = f"{labels[a]}|{labels[b]}"
                cell[key] = cell.get(key, 0) + sign
                if not cell[key]:
                    del cell[key]
                if not cell:  # no pair left for these two annotators: as if never counted
                    del self.confusion[f"{a}|{b}"]
        if len(present) >= 2:
            values = [labels[a] for a in present]
            key = ",".join(f"{x}={values.count(x)}" for x in sorted(set(values)))
            self.patterns[key] = self.patterns.get(key, 0) + sign
            if not self.patterns[key]:
                del self.patterns[key]
            if len(set(values)) > 1:
                self.disagreeing += sign

    def as_json(self) -> dict[str, Any]:
        return {"confusion": self.confusion, "patterns": self.patterns, "disagreeing": self.disagreeing}

    @classmethod
    def from_json(cls, names: list[str] | tuple[str, ...], value: Mapping[str, Any]) -> PairLabelCounts:
        counts = cls(names)
        counts.confusion = {k: dict(v) for k, v in value.get("confusion", {}).items()}
        counts.patterns = dict(value.get("patterns", {}))
        counts.disagreeing = int(value.get("disagreeing", 0))
        return counts


def _split_label_key(key: str) -> tuple[str, str]:
    x, _, y = key.partition("|")
    return x, y


def _pattern_row(key: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in key.split(","):
        label, _, n = part.rpartition("=")
        out[label] = int(n)
    return out


def pair_label_report_from_counts(counts: PairLabelCounts) -> dict[str, dict[str, Any]]:
    """The ``pair_labels.*`` keys from the summed statistics (see :class:`PairLabelCounts`)."""
    names = counts.names
    by_pair: dict[str, float | None] = {}
    n_items: dict[str, int] = {}
    for n, a in enumerate(names):
        for b in names[n + 1 :]:
            cell = counts.confusion.get(f"{a}|{b}", {})
            by_pair[f"{a}|{b}"] = cohen_kappa_from_confusion(
                {_split_label_key(k): v for k, v in cell.items()}
            )
            n_items[f"{a}|{b}"] = sum(cell.values())
    fleiss = None
    if counts.patterns:
        rows = {key: _pattern_row(key) for key in sorted(counts.patterns)}
        categories = sorted({label for row in rows.values() for label in row})
        table = [
            [row.get(c, 0) for c in categories]
            for key, row in rows.items()
            for _ in range(counts.patterns[key])
        ]
        fleiss = fleiss_kappa(table)
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
        "pair_labels.disagreeing": {"value": counts.disagreeing},
    }
