"""Agreement measures that are sums over pairs, kept by the database (`AgreementSum` rows).

Pair labels (spec: docs/measures.md#pair-labels) are kept this way: Cohen's κ per annotator pair needs
only its contingency counts, Fleiss' κ the multiset of its table's rows, and both the pairs labelled in
more than one way and each annotator's label counts are counts (`metrics.pair_labels.PairLabelCounts`).
The rows, per project:

- ``pair_labels.confusion``, annotators ``"a|b"`` (user ids, smaller first), key ``"x|y"``: pairs
  labelled x by a and y by b;
- ``pair_labels.pattern``, key e.g. ``"non_paraphrase=1,paraphrase=2"``: pairs with ≥ 2 labels counted so;
- ``pair_labels.disagreeing``: pairs labelled in more than one way;
- ``pair_labels.labelled``, annotators ``"a"``, key the label: pairs a labelled so.

Only the non-gold labels of the project's annotators count (as in the metrics document,
`annotator.agreement.document`). A label save adds, in its own transaction, the difference between
the pair's labels before and after it (`label_changed`): one read of the pair's labels and one
INSERT … ON CONFLICT DO UPDATE that moves the totals by the difference. On PostgreSQL the pair's row
is locked first, so two annotators saving the same pair at once each see the other's label. A change
that may touch any pair (an import, a membership change) rebuilds the project's rows (`rebuild`).
The figures are read with one indexed query (`pair_label_figures`), so a read right after a save's
response includes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import connection

from annotator.models import AgreementSum, Membership, Pair, PairLabel
from metrics.pair_labels import PairLabelCounts, pair_label_report_from_counts

CONFUSION = "pair_labels.confusion"
PATTERN = "pair_labels.pattern"
DISAGREEING = "pair_labels.disagreeing"
LABELLED = "pair_labels.labelled"

Cell = tuple[str, str, str]  # measure, annotators, key


def _annotator_ids(project_id: int) -> set[int]:
    return set(
        Membership.objects.filter(project_id=project_id, role=Membership.Role.ANNOTATOR).values_list(
            "user_id", flat=True
        )
    )


def pair_cells(labels: Mapping[int, str]) -> dict[Cell, int]:
    """What one pair adds to the totals, given its labels (annotator id → label, no empty labels)."""
    ids = sorted(labels)
    counts = PairLabelCounts([str(a) for a in ids])
    counts.add({str(a): labels[a] for a in ids})
    out: dict[Cell, int] = {}
    for annotators, cell in counts.confusion.items():
        for key, n in cell.items():
            out[(CONFUSION, annotators, key)] = n
    for key, n in counts.patterns.items():
        out[(PATTERN, "", key)] = n
    if counts.disagreeing:
        out[(DISAGREEING, "", "")] = counts.disagreeing
    for a in ids:
        out[(LABELLED, str(a), labels[a])] = 1
    return out


def difference(before: Mapping[int, str], after: Mapping[int, str]) -> dict[Cell, int]:
    """The change of the totals when a pair's labels go from `before` to `after` (non-zero cells)."""
    out = pair_cells(after)
    for cell, n in pair_cells(before).items():
        out[cell] = out.get(cell, 0) - n
    return {cell: n for cell, n in out.items() if n}


def _add(project_id: int, cells: Mapping[Cell, int]) -> None:
    """Move the project's totals by `cells` in one statement (rows in a fixed order: concurrent saves
    lock the rows they share in the same order)."""
    if not cells:
        return
    table = connection.ops.quote_name(AgreementSum._meta.db_table)
    value = connection.ops.quote_name("value")
    rows = sorted(cells.items())
    placeholders = ", ".join(["(%s, %s, %s, %s, %s)"] * len(rows))
    params: list[Any] = []
    for (measure, annotators, key), n in rows:
        params += [project_id, measure, annotators, key, n]
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO {table} ("project_id", "measure", "annotators", "key", {value}) '
            f"VALUES {placeholders} "
            f'ON CONFLICT ("project_id", "measure", "annotators", "key") '
            f"DO UPDATE SET {value} = {table}.{value} + EXCLUDED.{value}",
            params,
        )


def label_changed(project_id: int, pair_id: int, annotator_id: int, old: str) -> None:
    """The annotator's label of the pair was `old` and is now what the database holds: add the
    difference to the totals. Called in the save's transaction, after the label is written."""
    if connection.vendor == "postgresql":
        list(Pair.objects.select_for_update().filter(pk=pair_id).values_list("pk"))
    rows = PairLabel.objects.filter(
        pair_id=pair_id,
        is_gold=False,
        annotator__memberships__project_id=project_id,
        annotator__memberships__role=Membership.Role.ANNOTATOR,
    ).values_list("annotator_id", "label")
    after = {a: label for a, label in rows}
    if annotator_id not in after:  # not one of the project's annotators: not in the agreement
        return
    before = dict(after)
    before[annotator_id] = old
    _add(
        project_id,
        difference({a: x for a, x in before.items() if x}, {a: x for a, x in after.items() if x}),
    )


def project_cells(project_id: int) -> dict[Cell, int]:
    """The totals summed afresh from the project's labels."""
    annotators = _annotator_ids(project_id)
    by_pair: dict[int, dict[int, str]] = {}
    rows = (
        PairLabel.objects.filter(pair__project_id=project_id, is_gold=False, annotator_id__in=annotators)
        .exclude(label="")
        .values_list("pair_id", "annotator_id", "label")
    )
    for pair_id, annotator_id, label in rows:
        by_pair.setdefault(pair_id, {})[annotator_id] = label
    return summed(pair_cells(labels) for labels in by_pair.values())


def summed(parts: Iterable[Mapping[Cell, int]]) -> dict[Cell, int]:
    out: dict[Cell, int] = {}
    for part in parts:
        for cell, n in part.items():
            out[cell] = out.get(cell, 0) + n
    return out


def rebuild(project_id: int) -> None:
    """Replace the project's totals by ones summed afresh from its annotations."""
    AgreementSum.objects.filter(project_id=project_id).delete()
    AgreementSum.objects.bulk_create(
        [
            AgreementSum(project_id=project_id, measure=m, annotators=a, key=k, value=n)
            for (m, a, k), n in sorted(project_cells(project_id).items())
        ],
        batch_size=1000,
    )


def kept_cells(project_id: int) -> dict[Cell, int]:
    """The project's totals as kept (cells at zero left out)."""
    rows = AgreementSum.objects.filter(project_id=project_id).exclude(value=0)
    return {(m, a, k): n for m, a, k, n in rows.values_list("measure", "annotators", "key", "value")}


def pair_label_figures(project_id: int, names: Mapping[int, str], order: list[str]) -> dict[str, Any]:
    """The ``pair_labels.*`` report keys and each annotator's label counts, from the kept totals.

    `names`: user id → name of the project's annotators; `order`: the names in document order."""
    cells = kept_cells(project_id)
    labelled: dict[str, dict[str, int]] = {}
    for (measure, annotators, key), n in cells.items():
        if measure == LABELLED and int(annotators) in names:
            labelled.setdefault(names[int(annotators)], {})[key] = n
    position = {name: k for k, name in enumerate(order)}
    counts = PairLabelCounts([a for a in order if a in labelled])
    for (measure, annotators, key), n in cells.items():
        if measure == CONFUSION:
            ids = [int(x) for x in annotators.split("|")]
            if not all(i in names for i in ids):
                continue
            a, b = (names[i] for i in ids)
            x, y = key.split("|", 1)
            if position[a] > position[b]:
                a, b, x, y = b, a, y, x
            counts.confusion.setdefault(f"{a}|{b}", {})[f"{x}|{y}"] = n
        elif measure == PATTERN:
            counts.patterns[key] = n
        elif measure == DISAGREEING:
            counts.disagreeing = n
    measures = pair_label_report_from_counts(counts)
    label_counts = {
        a: {"paraphrase": mine.get("paraphrase", 0), "non_paraphrase": mine.get("non_paraphrase", 0)}
        for a, mine in ((a, labelled[a]) for a in counts.names)
    }
    return {"measures": measures, "counts": label_counts}
