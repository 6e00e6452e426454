"""Phenomena as CSV: one row per phenomenon, every annotator (or one, or the gold layer).

Columns: pair, annotator, gold, type_code, type, class, scope1, scope2, projection, key1, key2,
sense_preserving, comment, scope1_text, scope2_text. Token indices are space-separated 0-based indices;
the *_text columns repeat the tokens they name. UTF-8, comma-separated, standard CSV quoting; a text
cell that a spreadsheet would run as a formula starts with an apostrophe (`annotator.corpus.spreadsheet`).
Written as the rows are read (`write_csv`, `ROWS_PER_CHUNK` at a time): memory does not grow with the
project.
"""

from __future__ import annotations

import io
from typing import BinaryIO

from annotator.corpus.exports.etpc import phenomena_of
from annotator.corpus.spreadsheet import SafeWriter
from annotator.models import Phenomenon, Project

COLUMNS = [
    "pair",
    "annotator",
    "gold",
    "type_code",
    "type",
    "class",
    "scope1",
    "scope2",
    "projection",
    "key1",
    "key2",
    "sense_preserving",
    "comment",
    "scope1_text",
    "scope2_text",
]


ROWS_PER_CHUNK = 2000


def phenomena_csv(project: Project, *, annotator: str | None = None, gold: bool | None = None) -> bytes:
    out = io.BytesIO()
    write_csv(project, out, annotator=annotator, gold=gold)
    return out.getvalue()


def write_csv(
    project: Project, out: BinaryIO, *, annotator: str | None = None, gold: bool | None = None
) -> None:
    """Write the phenomena to `out` (UTF-8) as they are read; `gold=None`: every annotator and the gold
    layer."""
    text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
    writer = SafeWriter(text)
    writer.writerow(COLUMNS)
    rows = phenomena_of(project, annotator=annotator, gold=bool(gold))
    if gold is None:
        rows = Phenomenon.objects.filter(pair__project=project).select_related("pair", "ptype", "annotator")
        if annotator:
            rows = rows.filter(annotator__username=annotator)
        rows = rows.order_by("pair__position", "pair_id", "annotator__username", "is_gold", "pk")
    for p in rows.iterator(ROWS_PER_CHUNK):
        t1, t2 = p.pair.tokens1, p.pair.tokens2
        writer.writerow(
            [
                p.pair.source_id,
                p.annotator.username,
                int(p.is_gold),
                p.ptype.code,
                p.ptype.name,
                p.ptype.type_class,
                " ".join(map(str, p.scope1)),
                " ".join(map(str, p.scope2)),
                p.projection,
                " ".join(map(str, p.key1)),
                " ".join(map(str, p.key2)),
                "" if p.sense_preserving is None else ("yes" if p.sense_preserving else "no"),
                p.comment,
                " ".join(t1[i] for i in p.scope1),
                " ".join(t2[i] for i in p.scope2),
            ]
        )
    text.flush()
    text.detach()  # `out` stays open for the caller
