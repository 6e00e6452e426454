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
the pair's labels before and after it, in one statement that reads the other annotators' labels of the
pair and moves the totals by INSERT … ON CONFLICT DO UPDATE (`label_changed`). On PostgreSQL the save
locks the pair's row with its sheet, so two annotators saving the same pair at once each see the
other's label. A change that may touch any pair (an import, a change of who is an annotator) rebuilds
the project's rows (`rebuild`); `project_cells` and `pair_cells` sum them afresh in Python, which the
property test holds equal to what the statement keeps.
The figures are read with one indexed query (`pair_label_figures`; `kept_figures` with the word
alignment and phenomena measures kept the same way, `annotator.agreement.pair_parts` and
`annotator.agreement.phenomena_parts`), so a read right after a save's response includes it. A rebuild
also recomputes every pair's word-alignment and phenomena parts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

import annotator.agreement.pair_parts as pair_parts
import annotator.agreement.phenomena_parts as phenomena_parts
import annotator.agreement.phrase_parts as phrase_parts
from annotator.agreement.pair_parts import project_parts, store_parts
from annotator.core import sql
from annotator.models import AgreementSum, Membership, PairLabel, ParaphraseType, Project
from metrics.pair_labels import PairLabelCounts, pair_label_report_from_counts
from metrics.phenomena_sums import MEASURES as PHENOMENA_MEASURES
from metrics.phenomena_sums import STARTED
from metrics.spade_sums import MEASURES as PHRASE_MEASURES
from metrics.spade_sums import SIZE as PHRASE_SIZE

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


def add(project_id: int, cells: Mapping[Cell, int]) -> None:
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


#: The difference one label save makes, read and added in one statement. `o`: the pair's labels by the
#: project's other annotators; `states`: the pair's label counts before (sign −1) and after (+1) the
#: save; the rows are `pair_cells` of before, taken out, and of after, added (pair labels are
#: "paraphrase" or "non_paraphrase", `annotator.models.PairLabel.Label`); nothing when the saver is not
#: one of the project's annotators.
LABEL_DIFFERENCE = """
WITH o AS (
  SELECT pl.annotator_id AS a, pl.label AS l FROM annotator_pairlabel pl
  WHERE pl.pair_id = %(pair)s AND pl.is_gold = %(false)s AND pl.label <> '' AND pl.annotator_id <> %(saver)s
    AND EXISTS (SELECT 1 FROM annotator_membership m
                WHERE m.project_id = %(project)s AND m.user_id = pl.annotator_id AND m.role = 'annotator')
), c AS (
  SELECT COALESCE(SUM(CASE WHEN l = 'paraphrase' THEN 1 ELSE 0 END), 0) AS np,
         COALESCE(SUM(CASE WHEN l = 'non_paraphrase' THEN 1 ELSE 0 END), 0) AS nn FROM o
), states AS (
  SELECT np + CASE WHEN %(old)s = 'paraphrase' THEN 1 ELSE 0 END AS p,
         nn + CASE WHEN %(old)s = 'non_paraphrase' THEN 1 ELSE 0 END AS n, -1 AS sign FROM c
  UNION ALL
  SELECT np + CASE WHEN %(new)s = 'paraphrase' THEN 1 ELSE 0 END,
         nn + CASE WHEN %(new)s = 'non_paraphrase' THEN 1 ELSE 0 END, 1 FROM c
), labels AS (
  SELECT %(old)s AS label, -1 AS sign WHERE %(old)s <> ''
  UNION ALL SELECT %(new)s, 1 WHERE %(new)s <> ''
), d (measure, annotators, cell, value) AS (
  SELECT 'pair_labels.confusion',
         CASE WHEN %(saver)s < o.a THEN %(saver_text)s || '|' || CAST(o.a AS TEXT)
              ELSE CAST(o.a AS TEXT) || '|' || %(saver_text)s END,
         CASE WHEN %(saver)s < o.a THEN labels.label || '|' || o.l ELSE o.l || '|' || labels.label END,
         labels.sign
  FROM o CROSS JOIN labels
  UNION ALL
  SELECT 'pair_labels.labelled', %(saver_text)s, labels.label, labels.sign FROM labels
  UNION ALL
  SELECT 'pair_labels.pattern', '',
         CASE WHEN n > 0 THEN 'non_paraphrase=' || CAST(n AS TEXT) ELSE '' END
         || CASE WHEN n > 0 AND p > 0 THEN ',' ELSE '' END
         || CASE WHEN p > 0 THEN 'paraphrase=' || CAST(p AS TEXT) ELSE '' END,
         sign
  FROM states WHERE p + n >= 2
  UNION ALL
  SELECT 'pair_labels.disagreeing', '', '', sign FROM states WHERE p > 0 AND n > 0
)
INSERT INTO annotator_agreementsum (project_id, measure, annotators, key, value)
SELECT %(project)s, d.measure, d.annotators, d.cell, SUM(d.value) FROM d
WHERE EXISTS (SELECT 1 FROM annotator_membership m
              WHERE m.project_id = %(project)s AND m.user_id = %(saver)s AND m.role = 'annotator')
GROUP BY d.measure, d.annotators, d.cell
HAVING SUM(d.value) <> 0
ORDER BY d.measure, d.annotators, d.cell
ON CONFLICT (project_id, measure, annotators, key) DO UPDATE SET value = annotator_agreementsum.value + excluded.value
"""


def label_changed(project_id: int, pair_id: int, annotator_id: int, old: str, new: str) -> None:
    """The annotator's label of the pair went from `old` to `new` ("" for none): add the difference to
    the totals, in the save's transaction (`LABEL_DIFFERENCE`, one statement). The caller holds the
    pair's row lock on PostgreSQL (`annotation.services.set_pair_label` takes it with the sheet's), so a
    concurrent save of the same pair waits for this one's commit and its statement sees this label."""
    if old == new:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            LABEL_DIFFERENCE,
            {
                "project": project_id,
                "pair": pair_id,
                "saver": annotator_id,
                "saver_text": str(annotator_id),
                "old": old,
                "new": new,
                "false": False,
            },
        )


def project_cells(project_id: int) -> dict[Cell, int]:
    """The totals summed afresh from the project's annotations."""
    return summed(
        (
            *_label_cells(project_id),
            *project_parts(project_id).values(),
            *phenomena_parts.project_parts(project_id).values(),
            *phrase_parts.project_parts(project_id).values(),
        )
    )


def _label_cells(project_id: int) -> list[dict[Cell, int]]:
    """What each pair's labels add to the totals."""
    annotators = _annotator_ids(project_id)
    by_pair: dict[int, dict[int, str]] = {}
    rows = (
        PairLabel.objects.filter(pair__project_id=project_id, is_gold=False, annotator_id__in=annotators)
        .exclude(label="")
        .values_list("pair_id", "annotator_id", "label")
    )
    for pair_id, annotator_id, label in rows:
        by_pair.setdefault(pair_id, {})[annotator_id] = label
    return [pair_cells(labels) for labels in by_pair.values()]


def summed(parts: Iterable[Mapping[Cell, int]]) -> dict[Cell, int]:
    out: dict[Cell, int] = {}
    for part in parts:
        for cell, n in part.items():
            out[cell] = out.get(cell, 0) + n
    return out


def rebuild(project_id: int) -> int:
    """Replace the project's totals by ones summed afresh from its annotations; returns how many cells
    the kept totals had wrong (0 when they had not drifted)."""
    parts = project_parts(project_id)
    phenomena = phenomena_parts.project_parts(project_id)
    phrases = phrase_parts.project_parts(project_id)
    every = (*_label_cells(project_id), *parts.values(), *phenomena.values(), *phrases.values())
    fresh = {cell: n for cell, n in summed(every).items() if n}
    kept = kept_cells(project_id)
    store_parts(project_id, parts)
    phenomena_parts.store_parts(project_id, phenomena)
    phrase_parts.store_parts(project_id, phrases)
    AgreementSum.objects.filter(project_id=project_id).delete()
    AgreementSum.objects.bulk_create(
        [
            AgreementSum(project_id=project_id, measure=m, annotators=a, key=k, value=n)
            for (m, a, k), n in sorted(fresh.items())
        ],
        batch_size=1000,
    )
    return len(set(fresh.items()) ^ set(kept.items()))


def kept_cells(project_id: int) -> dict[Cell, int]:
    """The project's totals as kept (cells at zero left out)."""
    return {(m, a, k): n for m, a, k, n, _ in _kept_rows(project_id) if m != TYPE}


#: The rows `_kept_rows` adds for the project tagset's types: (TYPE, type id, name, position, None).
TYPE = "tagset.type"


def _kept_rows(project_id: int) -> list[tuple[str, str, str, int, str | None]]:
    """The project's non-zero cells, each cell of one annotator with their name (every annotator of a
    cell of two has one: they labelled, aligned or annotated phenomena on that pair), and the types of
    its tagset (`TYPE` rows, for the phenomena figures), in one query."""
    user = get_user_model()
    sums_table = connection.ops.quote_name(AgreementSum._meta.db_table)
    users = connection.ops.quote_name(user._meta.db_table)
    name = connection.ops.quote_name(user.USERNAME_FIELD)
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT s."measure", s."annotators", s."key", s."value", u.{name} FROM {sums_table} s '
            f'LEFT JOIN {users} u ON s."measure" IN (%s, %s, %s, %s, %s) AND CAST(u."id" AS TEXT) = s."annotators" '
            f'WHERE s."project_id" = %s AND s."value" <> 0 '
            f"UNION ALL SELECT %s, CAST(t.{sql.column(ParaphraseType, 'id')} AS TEXT), "
            f"t.{sql.column(ParaphraseType, 'name')}, t.{sql.column(ParaphraseType, 'position')}, NULL "
            f"FROM {sql.table(ParaphraseType)} t INNER JOIN {sql.table(Project)} pr "
            f"ON pr.{sql.column(Project, 'tagset')} = t.{sql.column(ParaphraseType, 'tagset')} "
            f"WHERE pr.{sql.column(Project, 'id')} = %s",
            [
                LABELLED,
                pair_parts.ALIGNED,
                pair_parts.MACHINE,
                STARTED,
                PHRASE_SIZE,
                project_id,
                TYPE,
                project_id,
            ],
        )
        return [tuple(row) for row in cursor.fetchall()]  # type: ignore[misc]


def kept_figures(project_id: int) -> dict[str, Any]:
    """The figures of the kept totals, read in one query: `pair_labels` (`pair_label_figures`),
    `alignment` (the ``alignment.*`` report keys, `pair_parts.alignment_figures`), `aligner`
    (`pair_parts.aligner_figures`, a function of the annotators to add: those with a tree phrase row)
    `phenomena` (a function giving the ``iapta.*`` report keys, `phenomena_parts.report_figures`),
    `phrases` (the ``spade.alir`` / ``spade.alip`` keys, `phrase_parts.report_figures`) and `digest`
    (`kept_digest`)."""
    rows = _kept_rows(project_id)
    names = {a: name for m, a, _, _, name in rows if name is not None and m in pair_parts.MEASURES}
    cells = [row[:4] for row in rows if row[0] in pair_parts.MEASURES]
    return {
        "pair_labels": _pair_label_figures(rows),
        "alignment": pair_parts.alignment_figures(cells, names),
        "aligner": lambda extra=(): pair_parts.aligner_figures(cells, names, extra),
        "phenomena": lambda: _phenomena_figures(rows),
        "phrases": phrase_parts.report_figures(
            [row[:4] for row in rows if row[0] in PHRASE_MEASURES],
            {a: name for m, a, _, _, name in rows if name is not None and m == PHRASE_SIZE},
        ),
        "digest": _digest(rows),
    }


def kept_digest(project_id: int) -> str:
    """A digest of the project's kept totals as they are now (`kept_figures`' "digest"): it changes
    whenever a committed save moves a figure read from them."""
    return _digest(_kept_rows(project_id))


def _digest(rows: list[tuple[str, str, str, int, str | None]]) -> str:
    cells = sorted(f"{m}\t{a}\t{k}\t{n}" for m, a, k, n, _ in rows)
    return hashlib.sha256("\n".join(cells).encode()).hexdigest()


def _phenomena_figures(rows: list[tuple[str, str, str, int, str | None]]) -> dict[str, Any]:
    """The ``iapta.*`` report keys of the kept phenomena totals (the tagset's types: the `TYPE` rows)."""
    names = {a: name for m, a, _, _, name in rows if name is not None and m == STARTED}
    types = [(i, k) for _, i, k in sorted((n, int(a), k) for m, a, k, n, _ in rows if m == TYPE)]
    cells = [row[:4] for row in rows if row[0] in PHENOMENA_MEASURES]
    return phenomena_parts.report_figures(cells, names, types)


def pair_label_figures(project_id: int) -> dict[str, Any]:
    """The ``pair_labels.*`` report keys and each annotator's label counts, from the kept totals (the
    annotators in document order: by name)."""
    return _pair_label_figures(_kept_rows(project_id))


def _pair_label_figures(rows: list[tuple[str, str, str, int, str | None]]) -> dict[str, Any]:
    names: dict[str, str] = {}
    labelled: dict[str, dict[str, int]] = {}
    for measure, annotators, key, n, username in rows:
        if measure == LABELLED and username is not None:
            names[annotators] = username
            labelled.setdefault(username, {})[key] = n
    order = sorted(labelled)
    position = {name: k for k, name in enumerate(order)}
    counts = PairLabelCounts(order)
    for measure, annotators, key, n, _ in rows:
        if measure == CONFUSION:
            ids = annotators.split("|")
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
        a: {
            "paraphrase": labelled[a].get("paraphrase", 0),
            "non_paraphrase": labelled[a].get("non_paraphrase", 0),
        }
        for a in order
    }
    return {"measures": measures, "counts": label_counts}
