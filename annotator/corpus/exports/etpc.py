"""Phenomena of one annotator (or the gold layer) as an ETPC relation file (`textual_np_pos.xml` style).

One `<relation>` per phenomenon with pair_id (the pair's source id), type_id (ParaphraseType.code),
type_name, sense_preserving (yes / no / empty), projection (local / global / empty: not in ETPC's own
files, read back by our importer), s1_scope, s2_scope, key_s1, key_s2 as comma-separated
token indices, and s1_text, s2_text, k1_text, k2_text as the tokens they name, joined by spaces — so
the file imports back with `import_corpus --format etpc` unchanged. Written relation by relation as the
phenomena are read (`write_etpc`): memory does not grow with the project.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from typing import Any, BinaryIO

from annotator.models import Phenomenon, Project


def phenomena_of(project: Project, *, annotator: str | None = None, gold: bool = False) -> Any:
    rows = Phenomenon.objects.filter(pair__project=project, is_gold=gold)
    if annotator:
        rows = rows.filter(annotator__username=annotator)
    return rows.select_related("pair", "ptype", "annotator").order_by("pair__position", "pair_id", "pk")


def _indices(values: list[int]) -> str:
    return ", ".join(map(str, values))


def _words(tokens: list[str], values: list[int]) -> str:
    return " ".join(tokens[i] for i in values)


ROWS_PER_CHUNK = 2000


def _relation(p: Phenomenon) -> ET.Element:
    relation = ET.Element("relation")
    t1, t2 = p.pair.tokens1, p.pair.tokens2
    sense = "" if p.sense_preserving is None else ("yes" if p.sense_preserving else "no")
    for name, value in (
        ("pair_id", p.pair.source_id),
        ("type_id", p.ptype.code),
        ("type_name", p.ptype.name),
        ("sense_preserving", sense),
        ("projection", p.projection),
        ("s1_scope", _indices(p.scope1)),
        ("s2_scope", _indices(p.scope2)),
        ("s1_text", _words(t1, p.scope1)),
        ("s2_text", _words(t2, p.scope2)),
        ("key_s1", _indices(p.key1)),
        ("key_s2", _indices(p.key2)),
        ("k1_text", _words(t1, p.key1)),
        ("k2_text", _words(t2, p.key2)),
    ):
        ET.SubElement(relation, name).text = value or None
    ET.indent(relation, space="  ", level=1)
    return relation


def write_etpc(project: Project, out: BinaryIO, *, annotator: str | None = None, gold: bool = False) -> None:
    """Write the relation file to `out`, indented by two spaces, one relation at a time."""
    out.write(b"<?xml version='1.0' encoding='utf-8'?>\n")
    empty = True
    for p in phenomena_of(project, annotator=annotator, gold=gold).iterator(ROWS_PER_CHUNK):
        out.write(b"<xml>\n  " if empty else b"\n  ")
        out.write(ET.tostring(_relation(p), encoding="utf-8"))
        empty = False
    out.write(b"<xml />\n" if empty else b"\n</xml>\n")


def etpc_xml(project: Project, *, annotator: str | None = None, gold: bool = False) -> bytes:
    out = io.BytesIO()
    write_etpc(project, out, annotator=annotator, gold=gold)
    return out.getvalue()
