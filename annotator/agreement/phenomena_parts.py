"""Agreement sums computed from the pairs' phenomena, kept by the database with each pair's part.

Every IAPTA measure (docs/measures.md#n, #tpo, #do, #tpo-multi: N, TPO with union and gold, DO, with
their typewise, per-type and pairwise variants) is a function of sums over pairs
(`metrics.phenomena_sums`): per annotator the phenomena and the distinct positions they cover (per
type and overall), the pairs they took part in; per annotator pair and type the TPO counts and DO's
Σ max overlapping; per annotator pair the sum of each per-pair value; per annotator the TPO (union,
gold) counts and per pair the gold set's size. The cells are those of `metrics.phenomena_sums.
pair_part` with annotators as user ids (an annotator pair ``"a|b"`` with the smaller id first) and a
type's key its `ParaphraseType` id, so renaming or reordering types moves nothing. Float values are
kept as integer limbs of their exact multiple of 2⁻¹⁰⁷⁴, so the totals are exact.

What one pair adds is kept on its `AgreementPhenomenaPart` row. A save that may change an annotator's
phenomena of a pair (a phenomenon created, edited or deleted; the assignment marked done, which makes
the annotator take part) calls `pair_changed` in its transaction, holding the pair's row lock
(`annotator.annotation.services`): it reads the pair's part, its phenomena, finished assignments, the
tagset's types and whether the project has the phenomena layer (one statement, `PAIR_INPUTS`),
computes the pair's part afresh (matching and the gold set are within the pair, so the part depends on
nothing else; the annotator pairs the saver is not in keep their cells), writes it (another) and
returns the difference, which `sums.add` moves the totals by (a third). `report_figures` turns the kept
totals into the report's ``iapta.*`` keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import connection

import annotator.agreement.parts as parts
from annotator.agreement.parts import Cell, stored
from annotator.core import sql
from annotator.models import AgreementPhenomenaPart, Project
from metrics.phenomena_sums import MEASURES, PAIR_MEASURES, STARTED, pair_part, report_from_sums
from metrics.types import Phenomenon, Tagset, TypeDef

#: One pair's inputs, or (`PROJECT_INPUTS`) every pair's of a project: (kind, pair, annotator, type,
#: projection, s1, s2, key1, key2, order) with kind 0 a non-gold phenomenon of one of the project's
#: annotators (order: its id), 1 a finished assignment of one of them, 2 a type of the project's tagset
#: (type id, name in `projection`; order: its position).
_INPUTS = """
SELECT 0, ph.pair_id, ph.annotator_id, ph.ptype_id, ph.projection, CAST(ph.scope1 AS TEXT),
       CAST(ph.scope2 AS TEXT), CAST(ph.key1 AS TEXT), CAST(ph.key2 AS TEXT), ph.id
FROM annotator_phenomenon ph {phenomena}
  AND ph.is_gold = %(false)s AND EXISTS (
  SELECT 1 FROM annotator_membership m
  WHERE m.project_id = %(project)s AND m.user_id = ph.annotator_id AND m.role = 'annotator')
UNION ALL
SELECT 1, a.pair_id, a.annotator_id, NULL, NULL, NULL, NULL, NULL, NULL, a.id FROM annotator_assignment a
WHERE {assignments} AND a.status = 'done' AND EXISTS (
  SELECT 1 FROM annotator_membership m
  WHERE m.project_id = %(project)s AND m.user_id = a.annotator_id AND m.role = 'annotator')
UNION ALL
SELECT 2, NULL, NULL, t.id, t.name, NULL, NULL, NULL, NULL, t.position FROM annotator_paraphrasetype t
INNER JOIN annotator_project pr ON pr.tagset_id = t.tagset_id WHERE pr.id = %(project)s
"""
#: `_INPUTS` of one pair, with (kind 3) the pair's kept part (its cells as text in `s1`) and (kind 4) a
#: row when the project has the phenomena layer.
PAIR_INPUTS = (
    _INPUTS.format(phenomena="WHERE ph.pair_id = %(pair)s", assignments="a.pair_id = %(pair)s")
    + """UNION ALL
SELECT 3, NULL, NULL, NULL, NULL, CAST(pp.cells AS TEXT), NULL, NULL, NULL, pp.id
FROM annotator_agreementphenomenapart pp WHERE pp.pair_id = %(pair)s
UNION ALL
SELECT 4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, pr.id FROM annotator_project pr
WHERE pr.id = %(project)s AND pr.layer_phenomena = %(true)s
"""
)
PROJECT_INPUTS = _INPUTS.format(
    phenomena="INNER JOIN annotator_pair p ON p.id = ph.pair_id WHERE p.project_id = %(project)s",
    assignments="a.project_id = %(project)s AND a.pair_id IS NOT NULL",
)

Row = Sequence[Any]


def _tagset(rows: Iterable[Row]) -> tuple[Tagset, dict[str, str]]:
    """The tagset of the type rows (kind 2) in position order, and type name → key (its id)."""
    types = sorted((order, type_id, name) for kind, _, _, type_id, name, *_, order in rows if kind == 2)
    return Tagset(tuple(TypeDef(name) for _, _, name in types)), {name: str(i) for _, i, name in types}


def _text(value: Any) -> list[int]:
    return json.loads(value) if isinstance(value, str) else list(value or ())


def parts_of_rows(rows: Iterable[Row], only: str | None = None) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part (`metrics.phenomena_sums.pair_part`, annotators by user id in id order), from
    input rows as `PAIR_INPUTS` / `PROJECT_INPUTS` give them (the migration builds the same rows from
    the historical models); pairs adding nothing are left out. `only`: the annotator pairs' cells only
    of those that annotator (user id as text) is in."""
    rows = list(rows)
    tagset, keys = _tagset(rows)
    names = {key: name for name, key in keys.items()}
    phenomena: dict[int, dict[int, list[tuple[int, Phenomenon]]]] = {}
    done: dict[int, set[str]] = {}
    for kind, pair_id, annotator_id, type_id, projection, s1, s2, key1, key2, order in rows:
        if kind == 0 and str(type_id) in names:  # a type of the project's tagset (always, normally)
            x = Phenomenon(
                str(pair_id),
                names[str(type_id)],
                frozenset(_text(s1)),
                frozenset(_text(s2)),
                projection or None,
                frozenset(_text(key1)),
                frozenset(_text(key2)),
            )
            phenomena.setdefault(pair_id, {}).setdefault(annotator_id, []).append((order, x))
        elif kind == 1:
            done.setdefault(pair_id, set()).add(str(annotator_id))
    out: dict[int, dict[Cell, int]] = {}
    for pk in phenomena.keys() | done.keys():
        by_annotator = phenomena.get(pk, {})
        given = {str(a): [x for _, x in sorted(by_annotator[a])] for a in sorted(by_annotator)}
        ordered = dict(sorted(given.items(), key=lambda item: int(item[0])))
        cells = pair_part(ordered, tagset=tagset, done=done.get(pk, set()), type_keys=keys, only=only)
        if cells:
            out[pk] = cells
    return out


@sql.statement
def keep_part_sql() -> str:
    """Write the pair's part, whether or not it had one (`update_or_create` in one statement)."""
    part = sql.table(AgreementPhenomenaPart)
    project, pair, cells = (sql.column(AgreementPhenomenaPart, f) for f in ("project", "pair", "cells"))
    return (
        f"INSERT INTO {part} ({project}, {pair}, {cells}) VALUES (%s, %s, %s) "
        f"ON CONFLICT ({pair}) DO UPDATE SET {cells} = EXCLUDED.{cells}"
    )


def _inputs(statement: str, params: Mapping[str, Any]) -> list[Row]:
    with connection.cursor() as cursor:
        cursor.execute(statement, {**params, "false": False, "true": True})
        return list(cursor.fetchall())


def pair_changed(project_id: int, pair_id: int, annotator_id: int) -> dict[Cell, int]:
    """The annotator's phenomena or finished assignment of the pair may have changed: compute the pair's
    part afresh — the cells of the annotator pairs the annotator is not in as the part has them (their
    phenomena did not change), every other cell anew (the TPO union and gold counts of every annotator
    of the pair may move) —, keep it, and return the difference from the part it had (the caller adds
    it to the totals in the same transaction). Nothing when the project has no phenomena layer. The
    caller holds the pair's row lock on PostgreSQL, so two saves of one pair compute their parts in
    turn."""
    inputs = _inputs(PAIR_INPUTS, {"pair": pair_id, "project": project_id})
    if not any(row[0] == 4 for row in inputs):
        return {}
    kept = [json.loads(row[5]) for row in inputs if row[0] == 3]
    had = bool(kept)
    before = parts.cells_of(kept[0]) if had else {}
    saver = str(annotator_id)
    after = parts_of_rows(inputs, only=saver if had else None).get(pair_id, {})
    if had:
        after.update(
            (cell, n)
            for cell, n in before.items()
            if cell[0] in PAIR_MEASURES and saver not in cell[1].split("|")
        )
    if after == before:
        return {}
    cells = AgreementPhenomenaPart._meta.get_field("cells").get_db_prep_save(stored(after), connection)
    sql.execute(keep_part_sql(), [project_id, pair_id, cells])
    return parts.difference(after, before)


def project_parts(project_id: int) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part, computed afresh from the project's phenomena (nothing without the layer)."""
    if not Project.objects.filter(pk=project_id, layer_phenomena=True).exists():
        return {}
    return parts_of_rows(_inputs(PROJECT_INPUTS, {"project": project_id}))


def store_parts(project_id: int, project_parts: Mapping[int, Mapping[Cell, int]]) -> None:
    """Replace the project's phenomena parts by `project_parts`."""
    parts.replace_parts(AgreementPhenomenaPart, project_id, project_parts)


def kept_parts(project_id: int) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part as kept (pairs adding nothing left out)."""
    return parts.kept_parts(AgreementPhenomenaPart, project_id)


def report_figures(
    rows: Iterable[tuple[str, str, str, int]], names: Mapping[str, str], types: Sequence[tuple[int, str]]
) -> dict[str, dict[str, Any]]:
    """The ``iapta.*`` report keys from the kept totals (`rows`: measure, annotators, key, value, of the
    measures of `metrics.phenomena_sums`; `names`: user id as text → username of the project's
    annotators who took part; `types`: (id, name) of the tagset's types in position order).
    Annotators are in the document's order (by name)."""
    cells: dict[Cell, int] = {}
    for measure, annotators, key, n in rows:
        ids = annotators.split("|") if annotators else []
        if measure not in MEASURES or not all(i in names for i in ids):
            continue
        cells[(measure, "|".join(names[i] for i in ids), key)] = n
    order = sorted(names[a] for m, a, _, n in rows if m == STARTED and n and a in names)
    return report_from_sums(cells, annotators=order, types=[(str(i), name) for i, name in types])
