"""Phenomena of one annotator (or the gold layer) as an ETPC relation file (`textual_np_pos.xml` style).

One `<relation>` per phenomenon with pair_id (the pair's source id), type_id (ParaphraseType.code),
type_name, sense_preserving (yes / no / empty), projection (local / global / empty: not in ETPC's own
files, read back by our importer), s1_scope, s2_scope, key_s1, key_s2 as comma-separated
token indices, and s1_text, s2_text, k1_text, k2_text as the tokens they name, joined by spaces — so
the file imports back with `import_corpus --format etpc` unchanged.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

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


def etpc_xml(project: Project, *, annotator: str | None = None, gold: bool = False) -> bytes:
    root = ET.Element("xml")
    for p in phenomena_of(project, annotator=annotator, gold=gold):
        relation = ET.SubElement(root, "relation")
        t1, t2 = p.pair.tokens1, p.pair.tokens2
        sense = {True: "yes", False: "no"}.get(p.sense_preserving, "")
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
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
