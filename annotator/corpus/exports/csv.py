"""Phenomena as CSV: one row per phenomenon, every annotator (or one, or the gold layer).

Columns: pair, annotator, gold, type_code, type, class, scope1, scope2, projection, key1, key2,
sense_preserving, comment, scope1_text, scope2_text. Token indices are space-separated 0-based indices;
the *_text columns repeat the tokens they name. UTF-8, comma-separated, standard CSV quoting; a text
cell that a spreadsheet would run as a formula starts with an apostrophe (`annotator.core.spreadsheet`).
"""

from __future__ import annotations

import io

from annotator.core.spreadsheet import SafeWriter
from annotator.corpus.exports.etpc import phenomena_of
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


def phenomena_csv(project: Project, *, annotator: str | None = None, gold: bool | None = None) -> bytes:
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(COLUMNS)
    rows = phenomena_of(project, annotator=annotator, gold=bool(gold))
    if gold is None:
        rows = Phenomenon.objects.filter(pair__project=project).select_related("pair", "ptype", "annotator")
        if annotator:
            rows = rows.filter(annotator__username=annotator)
        rows = rows.order_by("pair__position", "pair_id", "annotator__username", "is_gold", "pk")
    for p in rows:
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
    return out.getvalue().encode("utf-8")
