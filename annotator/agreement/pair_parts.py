"""Agreement sums computed from the pairs' word alignments, kept by the database with each pair's part.

Word alignment P/R/F1 (docs/measures.md#word-alignment, #phrase-alignment) per annotator pair is a
ratio of counts summed over the pairs both annotators aligned (`metrics.alignment.AlignmentCounts` of
each measure, `alignment_pair_counts`), and the humans against the automatic alignment are each
annotator's counts summed over the pairs they aligned (`annotator.agreement.machine_agreement.
pair_machine_counts`). The `AgreementSum` rows, per project (annotators by user id):

- ``word_alignments.counts``, annotators ``"a|b"`` (smaller id first, ``a`` the test, ``b`` the
  reference), key ``"<measure>:<count>"`` (e.g. ``"alignment.words:precision_hits"``);
- ``word_alignments.aligned``, annotators ``"a"``: pairs a aligned (who takes part in the section);
- ``machine.aligner``, annotators ``"a"``, key the index of `pair_machine_counts`' list.

What one pair adds (`pair_cells`, pure) is kept on the pair's `AgreementPairPart` row. A save that may
change an annotator's word alignment of the pair (links, a pair marked done; the save holds the pair's
row lock) reads the pair with the part it had (one statement) and the pair's current alignments
(another), computes afresh only the cells that annotator's alignment enters — the counts of the
annotator pairs they are in and their own counts against the automatic alignment, in one preparation
of the pair's alignments (`_saver_cells`); the other cells are the part's, since no other alignment
changed — keeps the part and moves the totals by the difference (`sums.add`, one INSERT … ON CONFLICT
DO UPDATE each), all in the save's transaction (`pair_changed`). A report
reads the totals (`alignment_figures`, `aligner_figures`); the counts of an annotator pair oriented by
user id are turned round when the report's order (by name) is the other one: every count of the
measures is symmetric under that swap (test ↔ reference).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import connection

import annotator.agreement.parts as parts
from annotator.agreement.document import word_alignment_inputs
from annotator.agreement.machine_agreement import aligner_from_totals, pair_machine_counts
from annotator.agreement.parts import Cell, cells_of, stored
from annotator.core import sql
from annotator.core.aligner import baseline_alignment
from annotator.models import AgreementPairPart, Pair, Project
from metrics.alignment import (
    AlignmentCounts,
    alignment_counts_by_pair,
    alignment_pair_counts,
    alignment_report_from_counts,
)
from metrics.types import Document, Options, WordAlignment
from metrics.types import Pair as MetricsPair

WORDS = "word_alignments.counts"
ALIGNED = "word_alignments.aligned"
MACHINE = "machine.aligner"
#: The measures kept on the pairs' parts.
MEASURES = (WORDS, ALIGNED, MACHINE)
COUNTS = ("precision_hits", "n_test", "recall_hits", "n_reference")


def _word_alignment(entry: Mapping[str, Any]) -> WordAlignment:
    return WordAlignment(
        frozenset((i, j) for i, j in entry.get("sure", ())),
        frozenset((i, j) for i, j in entry.get("possible", ())),
    )


def _metrics_pair(pair: Mapping[str, Any]) -> MetricsPair:
    return MetricsPair(pair["id"], tuple(pair["tokens1"]), tuple(pair["tokens2"]))


def _count_cells(
    counts: Mapping[tuple[str, str], Mapping[str, AlignmentCounts]], out: dict[Cell, int]
) -> None:
    for (a, b), by_measure in counts.items():
        for name, c in by_measure.items():
            for field in COUNTS:
                n = getattr(c, field)
                if n:
                    out[(WORDS, f"{a}|{b}", f"{name}:{field}")] = n


def _own_cells(
    pair: Mapping[str, Any], sheets: Mapping[str, Mapping[str, Any]], out: dict[Cell, int]
) -> None:
    """Who aligned the pair and, with an automatic alignment, each one's counts against it."""
    automatic = pair.get("initial_alignment")
    for a, entry in sheets.items():
        out[(ALIGNED, a, "")] = 1
        if automatic is None:
            continue
        for k, n in enumerate(pair_machine_counts(automatic, entry, pair["tokens1"], pair["tokens2"])):
            if n:
                out[(MACHINE, a, str(k))] = n


def pair_cells(
    pair: Mapping[str, Any], sheets: Mapping[str, Mapping[str, Any]], *, identical_match: str
) -> dict[Cell, int]:
    """What one pair adds to the totals (non-zero cells): `pair` its document fields, `sheets` annotator
    (user id as text, in id order) → their alignment `{sure, possible}` of it."""
    out: dict[Cell, int] = {}
    if len(sheets) >= 2:
        alignments = {a: _word_alignment(e) for a, e in sheets.items()}
        _count_cells(
            alignment_pair_counts(_metrics_pair(pair), alignments, identical_match=identical_match), out
        )
    _own_cells(pair, sheets, out)
    return out


def _identical_match() -> str:
    return Options().identical_match


#: The name the automatic alignment takes beside the annotators (user ids) in `_saver_cells`, and the
#: identical-link convention of `pair_machine_counts` (its `word_alignment_counts`' default).
AUTOMATIC = "automatic"
MACHINE_MATCH = "exact"


def _saver_cells(
    pair: Mapping[str, Any], sheets: Mapping[str, Mapping[str, Any]], annotator: str
) -> dict[Cell, int]:
    """The cells of the part that involve `annotator` (their own, and every annotator pair they are in),
    computed in one preparation of the pair's alignments; with the identical-link convention of
    `pair_machine_counts`, the automatic alignment is prepared with them (as the test side of
    (automatic, annotator), `metrics.alignment`'s generous words and phrase pairs are its counts)."""
    out: dict[Cell, int] = {(ALIGNED, annotator, ""): 1}
    automatic = pair.get("initial_alignment")
    match = _identical_match()
    alignments: dict[str, WordAlignment] = {}
    if automatic is not None and match == MACHINE_MATCH:
        alignments[AUTOMATIC] = WordAlignment(frozenset((i, j) for i, j in automatic))
    alignments.update({a: _word_alignment(e) for a, e in sheets.items()})
    counts = alignment_pair_counts(_metrics_pair(pair), alignments, identical_match=match, only=annotator)
    against = counts.pop((AUTOMATIC, annotator), None)
    _count_cells(counts, out)
    if automatic is None:
        return out
    if against is not None:
        machine = [*_ints(against["alignment.words"]), *_ints(against["alignment.phrases"]), 1]
    else:
        machine = pair_machine_counts(automatic, sheets[annotator], pair["tokens1"], pair["tokens2"])
    out.update({(MACHINE, annotator, str(k)): n for k, n in enumerate(machine) if n})
    return out


def _ints(c: AlignmentCounts) -> list[int]:
    return [c.precision_hits, c.n_test, c.recall_hits, c.n_reference]


def _changed_part(
    pair: Mapping[str, Any],
    sheets: Mapping[str, Mapping[str, Any]],
    annotator: str,
    before: Mapping[Cell, int] | None,
) -> dict[Cell, int]:
    """The pair's part after `annotator`'s alignment of it changed: the cells that involve `annotator`
    afresh (`_saver_cells`), the others as `before` has them (no other alignment changed; all afresh
    when the pair had no part)."""
    if before is None:
        return pair_cells(pair, sheets, identical_match=_identical_match())
    out = {c: n for c, n in before.items() if annotator not in c[1].split("|")}
    if annotator in sheets:
        out.update(_saver_cells(pair, sheets, annotator))
    return out


#: The word alignments of one pair by the project's annotators, as `annotator.agreement.document` reads
#: them: (annotator, i, j, sure) of their non-gold links, and (annotator, NULL, NULL, NULL) for a pair
#: whose assignment they finished (an empty alignment when they made no link).
PAIR_ALIGNMENTS = """
SELECT l.annotator_id, l.i, l.j, l.sure FROM annotator_alignmentlink l
WHERE l.pair_id = %(pair)s AND l.is_gold = %(false)s AND EXISTS (
  SELECT 1 FROM annotator_membership m
  WHERE m.project_id = %(project)s AND m.user_id = l.annotator_id AND m.role = 'annotator')
UNION ALL
SELECT a.annotator_id, NULL, NULL, NULL FROM annotator_assignment a
WHERE a.pair_id = %(pair)s AND a.status = 'done' AND EXISTS (
  SELECT 1 FROM annotator_membership m
  WHERE m.project_id = %(project)s AND m.user_id = a.annotator_id AND m.role = 'annotator')
"""

PAIR_FIELDS = ("source_id", "tokens1", "tokens2", "initial_alignment")
PART_FIELDS = ("id", "cells")


@sql.statement
def pair_and_part_sql() -> str:
    """The pair's document fields and its part (NULLs without one), when its project has the word
    alignment layer: `Pair.objects.filter(pk=…, project__layer_word_alignment=True)` with
    `AgreementPairPart.objects.filter(pair_id=…)` in one statement."""
    pair, part = sql.table(Pair), sql.table(AgreementPairPart)
    return (
        f"SELECT {sql.columns(Pair, 'p', PAIR_FIELDS)}, {sql.columns(AgreementPairPart, 'pp', PART_FIELDS)} "
        f"FROM {pair} p INNER JOIN {sql.table(Project)} pr ON pr.{sql.column(Project, 'id')} = "
        f"p.{sql.column(Pair, 'project')} LEFT OUTER JOIN {part} pp ON "
        f"pp.{sql.column(AgreementPairPart, 'pair')} = p.{sql.column(Pair, 'id')} "
        f"WHERE p.{sql.column(Pair, 'id')} = %s AND pr.{sql.column(Project, 'layer_word_alignment')} = %s"
    )


@sql.statement
def keep_part_sql() -> str:
    """Write the pair's part, whether or not it had one (`update_or_create` in one statement)."""
    part = sql.table(AgreementPairPart)
    project, pair, cells = (sql.column(AgreementPairPart, f) for f in ("project", "pair", "cells"))
    return (
        f"INSERT INTO {part} ({project}, {pair}, {cells}) VALUES (%s, %s, %s) "
        f"ON CONFLICT ({pair}) DO UPDATE SET {cells} = EXCLUDED.{cells}"
    )


def _pair_inputs(
    project_id: int, pair_id: int
) -> tuple[dict[str, Any] | None, dict[str, dict[str, Any]], dict[Cell, int] | None]:
    """(the pair's document fields, annotator → their alignment of it, annotators in id order, the part
    it had), the pair None when the project has no word-alignment layer (two queries)."""
    row = sql.fetch_one(pair_and_part_sql(), [pair_id, True])
    if row is None:
        return None, {}, None
    width = sql.width(Pair, PAIR_FIELDS)
    stored = sql.instance(Pair, row[:width], PAIR_FIELDS)
    before = cells_of(sql.instance(AgreementPairPart, row[width:], PART_FIELDS).cells) if row[width] else None
    pair = {
        "id": stored.source_id,
        "tokens1": stored.tokens1,
        "tokens2": stored.tokens2,
        "initial_alignment": baseline_alignment(stored.initial_alignment, stored.tokens1, stored.tokens2),
    }
    found: dict[int, dict[str, list[list[int]]]] = {}
    with connection.cursor() as cursor:
        cursor.execute(PAIR_ALIGNMENTS, {"pair": pair_id, "project": project_id, "false": False})
        for annotator_id, i, j, sure in cursor.fetchall():
            sheet = found.setdefault(annotator_id, {"sure": [], "possible": []})
            if i is not None:
                sheet["sure" if sure else "possible"].append([i, j])
    sheets = {str(a): {k: sorted(v) for k, v in found[a].items()} for a in sorted(found)}
    return pair, sheets, before


def pair_changed(project_id: int, pair_id: int, annotator_id: int) -> dict[Cell, int]:
    """The annotator's word alignment of the pair may have changed: compute what the pair's part owes to
    that annotator afresh, keep the part, and return the difference from the part it had (the caller
    adds it to the totals, in the same transaction; four statements with the caller's). The caller
    holds the pair's row lock on PostgreSQL (every save takes it, `annotator.annotation.services`), so
    two saves of one pair compute their parts in turn."""
    pair, mine, before = _pair_inputs(project_id, pair_id)
    if pair is None:
        return {}
    after = _changed_part(pair, mine, str(annotator_id), before)
    old = before or {}
    if after == old:
        return {}
    cells = AgreementPairPart._meta.get_field("cells").get_db_prep_save(stored(after), connection)
    sql.execute(keep_part_sql(), [project_id, pair_id, cells])
    out = dict(after)
    for cell, n in old.items():
        out[cell] = out.get(cell, 0) - n
    return {cell: n for cell, n in out.items() if n}


def project_parts(project_id: int) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part, computed afresh from the project's word alignments (the counts of all pairs
    prepared in one batch); pairs adding nothing are left out."""
    from annotator.agreement.results import trusted_document

    project = Project.objects.get(pk=project_id)
    if not project.layer_word_alignment:
        return {}
    pairs, sheets = word_alignment_inputs(project)
    match = _identical_match()
    doc = {
        "format": "paraphrase-agreement/1",
        "annotators": list(sheets),
        "options": {"identical_match": match},
        "pairs": list(pairs.values()),
        "word_alignments": sheets,
    }
    document: Document = trusted_document(doc, sections=("word_alignments",))
    counts = alignment_counts_by_pair(document) if sheets else {}
    out: dict[int, dict[Cell, int]] = {}
    for pk, pair in pairs.items():
        cells: dict[Cell, int] = {}
        _count_cells(counts.get(pair["id"], {}), cells)
        _own_cells(pair, {a: by[pair["id"]] for a, by in sheets.items() if pair["id"] in by}, cells)
        if cells:
            out[pk] = cells
    return out


def store_parts(project_id: int, project_parts: Mapping[int, Mapping[Cell, int]]) -> None:
    """Replace the project's pair parts by `project_parts`."""
    parts.replace_parts(AgreementPairPart, project_id, project_parts)


def kept_parts(project_id: int) -> dict[int, dict[Cell, int]]:
    """Pair pk → its part as kept (pairs adding nothing left out)."""
    return parts.kept_parts(AgreementPairPart, project_id)


# ---- reading the totals ------------------------------------------------------------------------------


def _turned(c: AlignmentCounts) -> AlignmentCounts:
    """The counts of (b, a) from those of (a, b): test and reference change places."""
    return AlignmentCounts(c.recall_hits, c.n_reference, c.precision_hits, c.n_test)


def alignment_figures(
    rows: Iterable[tuple[str, str, str, int]], names: Mapping[str, str]
) -> dict[str, dict[str, Any]]:
    """The ``alignment.*`` report keys from the kept totals (`rows`: measure, annotators, key, value;
    `names`: user id as text → username of the project's annotators). Annotators take part when they
    aligned ≥ 1 pair, in the document's order (by name)."""
    aligned = {a for m, a, _, n in rows if m == ALIGNED and n and a in names}
    order = tuple(sorted(names[a] for a in aligned))
    position = {name: k for k, name in enumerate(order)}
    raw: dict[tuple[str, str], dict[str, list[int]]] = {}
    for measure, annotators, key, n in rows:
        if measure != WORDS:
            continue
        ids = annotators.split("|")
        if not all(i in aligned for i in ids):
            continue
        name, field = key.split(":")
        cell = raw.setdefault((names[ids[0]], names[ids[1]]), {}).setdefault(name, [0, 0, 0, 0])
        cell[COUNTS.index(field)] = n
    totals: dict[tuple[str, str], dict[str, AlignmentCounts]] = {}
    for (a, b), by_measure in raw.items():
        counts = {name: AlignmentCounts(*c) for name, c in by_measure.items()}
        if position[a] > position[b]:
            a, b, counts = b, a, {name: _turned(c) for name, c in counts.items()}
        totals[(a, b)] = counts
    return alignment_report_from_counts(totals, order)


def aligner_figures(
    rows: Iterable[tuple[str, str, str, int]], names: Mapping[str, str], extra: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """The humans against the automatic word alignment (`machine_agreement(...)["aligner"]`'s rows
    without `tree_phrase`) from the kept totals, for the annotators who aligned ≥ 1 pair and `extra`."""
    aligned = {names[a] for m, a, _, n in rows if m == ALIGNED and n and a in names}
    totals: dict[str, list[int]] = {}
    for measure, annotator, key, n in rows:
        if measure == MACHINE and annotator in names:
            totals.setdefault(names[annotator], [0] * 9)[int(key)] = n
    return aligner_from_totals(totals, sorted(aligned | set(extra)))
