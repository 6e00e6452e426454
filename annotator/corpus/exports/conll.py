"""A CoNLL-style token file of one annotator or the gold layer: one token per line, a blank line
after each member.

    # pair_id = 12
    # source_id = 3
    # member = 1
    # text = ¿Dónde está l'Ajuntament?
    # label = paraphrase
    1	¿	_	_	_
    2	Dónde	1:Same polarity	_	2
    …

Columns (tab-separated): ID (1-based), FORM, PHENOMENA (`n:type name` of every phenomenon whose
scope covers the token, `|`-separated; n numbers the pair's phenomena from 1, so both members'
tokens of one phenomenon carry the same n), KEYS (the n of phenomena naming the token a key), ALIGN
(1-based IDs of the tokens of the other member linked to this one, `?` after a possible link).
`_` marks an empty column. Written record by record as the records are read (`write_conll`): memory
does not grow with the project.
"""

from __future__ import annotations

import io
from collections import defaultdict
from typing import Any, BinaryIO

from annotator.corpus.exports.jsonl import iter_records
from annotator.models import Project


def _column(values: list[str]) -> str:
    return "|".join(values) if values else "_"


def _member(record: dict[str, Any], member: int) -> list[str]:
    tokens = record[f"tokens{member}"]
    tags: dict[int, list[str]] = defaultdict(list)
    keys: dict[int, list[str]] = defaultdict(list)
    for n, ph in enumerate(record["phenomena"], start=1):
        for i in ph[f"scope{member}"]:
            tags[i].append(f"{n}:{ph['type']}")
        for i in ph[f"key{member}"]:
            keys[i].append(str(n))
    align: dict[int, list[str]] = defaultdict(list)
    for link in record["links"]:
        here, there = (link["i"], link["j"]) if member == 1 else (link["j"], link["i"])
        align[here].append(f"{there + 1}{'' if link['sure'] else '?'}")
    lines = [
        f"# pair_id = {record['pair_id']}",
        f"# source_id = {record['source_id']}",
        f"# annotator = {record['annotator']}",
        f"# member = {member}",
        f"# text = {record[f'text{member}']}",
        f"# label = {record['label'] or '_'}",
    ]
    for i, token in enumerate(tokens):
        lines.append("\t".join([str(i + 1), token, _column(tags[i]), _column(keys[i]), _column(align[i])]))
    return lines


def write_conll(project: Project, out: BinaryIO, *, annotator: str | None = None, gold: bool = False) -> None:
    """Write the token file to `out` as the records are read."""
    if not annotator and not gold:
        raise ValueError("the CoNLL export holds one annotator's work: give an annotator or the gold layer")
    first = True
    for record in iter_records(project, annotator=annotator, gold=gold):
        for member in (1, 2):
            lines = _member(record, member)
            out.write((("" if first else "\n") + "\n".join(lines) + "\n").encode("utf-8"))
            first = False


def conll_text(project: Project, *, annotator: str | None = None, gold: bool = False) -> bytes:
    out = io.BytesIO()
    write_conll(project, out, annotator=annotator, gold=gold)
    return out.getvalue()


__all__ = ["conll_text", "write_conll"]
