"""Flat JSON Lines: the whole corpus, one record per pair, then one per pair and annotator (or gold).

Every line has the same keys, so `pandas.read_json(path, lines=True, dtype=False)` and
`datasets.load_dataset("json", data_files=path)` read it as it is (``dtype=False`` keeps pandas from
turning ids such as ``"0012"`` into numbers; `datasets` keeps JSON strings as strings by itself):

    {"record": "pair" | "annotation" | "gold", "project": str, "pair_id": int, "source_id": str,
     "position": int, "annotator": str | null,
     "text1": str, "text2": str, "tokens1": [str], "tokens2": [str],
     "imported_label": "paraphrase" | "non_paraphrase" | null, "corpus_labels": {str: str | int},
     "tree1": str, "tree2": str, "tree_source": str,
     "label": str | null,
     "phenomena": [{"type": str, "type_code": str, "type_class": str, "scope1": [int], "scope2": [int],
                    "key1": [int], "key2": [int], "projection": str, "sense_preserving": bool | null}],
     "links": [{"i": int, "j": int, "sure": bool}],
     "phrase_alignments": [{"node1": int | null, "node2": int | null, "span1": [int, int] | null,
                            "span2": [int, int] | null, "label1": str | null, "label2": str | null,
                            "sure": bool}]}

The ``pair`` record of every pair of the project comes first, whether or not anyone annotated it; it
carries the pair as imported (its texts, tokens, trees and the source's own labels: ``imported_label``
is the source's paraphrase judgement, e.g. MRPC's quality 1/0 or ETPC's label, null when the source has
none) and empty annotation fields. Each annotator's work is a further row, ``record`` ``annotation``
with their username (``gold`` for the gold layer), repeating the pair's fields so a row stands alone:
select ``df[df.record == "pair"]`` for the corpus and ``df[df.record == "annotation"]`` for the
annotations. Token indices are 0-based into tokens1/tokens2; ``links`` are word alignments (i in member
1, j in member 2); a phrase alignment names its tree nodes (index into the pair's nodes, null = aligned
to nothing) with their token spans ``[start, end)`` and labels.

With an annotator: that annotator's rows only (pairs assigned or annotated); with gold: the gold
layer's rows; otherwise the pair rows and every annotator's rows.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, Protocol

from django.contrib.auth import get_user_model
from django.db.models import Q

from annotator.models import AlignmentLink, Assignment, Pair, PairLabel, Phenomenon, PhraseAlignment, Project

# The sources' own paraphrase judgements in `Pair.corpus_labels`, first found wins (1 = paraphrase).
IMPORTED_LABEL_KEYS = ("etpc_label", "mrpc_quality", "label", "paraphrase")


def imported_label(corpus_labels: dict[str, Any]) -> str | None:
    """The source's paraphrase judgement as a pair label ("paraphrase"/"non_paraphrase"), or None."""
    for key in IMPORTED_LABEL_KEYS:
        value = corpus_labels.get(key)
        if value in (1, "1", True, "paraphrase"):
            return PairLabel.Label.PARAPHRASE.value
        if value in (0, "0", False, "non_paraphrase", "non-paraphrase"):
            return PairLabel.Label.NON_PARAPHRASE.value
    return None


def _owner_filter(annotator: str | None, gold: bool) -> dict[str, Any]:
    if gold:
        return {"is_gold": True}
    if annotator:
        user = get_user_model().objects.filter(username=annotator).first()
        if user is None:
            raise ValueError(f"no user named {annotator!r}")
        return {"is_gold": False, "annotator": user}
    return {}


Key = tuple[int, bool, str]  # (pair, is gold, annotator's username; "gold" for the gold layer)


def _key(row: Any) -> Key:
    return (row.pair_id, True, "gold") if row.is_gold else (row.pair_id, False, row.annotator.username)


def _node(nodes: list[dict[str, Any]], index: int | None) -> tuple[list[int] | None, str | None]:
    if index is None or index >= len(nodes):
        return None, None
    node = nodes[index]
    return [node["start"], node["end"]], node.get("label")


def _pair_fields(project: Project, pair: Pair) -> dict[str, Any]:
    return {
        "project": project.name,
        "pair_id": pair.pk,
        "source_id": pair.source_id,
        "position": pair.position,
        "text1": pair.text1,
        "text2": pair.text2,
        "tokens1": list(pair.tokens1),
        "tokens2": list(pair.tokens2),
        "imported_label": imported_label(pair.corpus_labels or {}),
        "corpus_labels": dict(pair.corpus_labels or {}),
        "tree1": pair.tree1,
        "tree2": pair.tree2,
        "tree_source": pair.tree_source,
    }


def _phenomenon(p: Phenomenon) -> dict[str, Any]:
    return {
        "type": p.ptype.name,
        "type_code": p.ptype.code,
        "type_class": p.ptype.type_class,
        "scope1": list(p.scope1),
        "scope2": list(p.scope2),
        "key1": list(p.key1),
        "key2": list(p.key2),
        "projection": p.projection,
        "sense_preserving": p.sense_preserving,
    }


#: Pairs whose records are read and written at a time: memory stays bounded whatever the project's size.
PAIRS_PER_CHUNK = 2000


def records(project: Project, *, annotator: str | None = None, gold: bool = False) -> list[dict[str, Any]]:
    """The records: every pair's ``pair`` record (whole-corpus export only), then per pair its
    annotators' records by name, in pair order."""
    return list(iter_records(project, annotator=annotator, gold=gold))


def iter_records(
    project: Project, *, annotator: str | None = None, gold: bool = False, chunk: int | None = None
) -> Iterator[dict[str, Any]]:
    """The records one at a time, in pair order (position, id), reading the pairs and their annotations
    `chunk` (PAIRS_PER_CHUNK) pairs at a time."""
    chunk = chunk or PAIRS_PER_CHUNK
    owner = _owner_filter(annotator, gold)
    ordered = Pair.objects.filter(project=project).order_by("position", "pk")
    after: tuple[int, int] | None = None
    while True:
        page = ordered
        if after is not None:
            page = page.filter(Q(position__gt=after[0]) | Q(position=after[0], pk__gt=after[1]))
        pairs = list(page[:chunk])
        if not pairs:
            return
        after = (pairs[-1].position, pairs[-1].pk)
        yield from _chunk_records(project, pairs, owner, annotator=annotator, gold=gold)


def _annotations(pairs: dict[int, Pair], base: dict[str, Any]) -> tuple[dict[Key, Any], ...]:
    """The chunk's labels, phenomena, links and phrase alignments by (pair, gold, annotator)."""
    labels = {_key(r): r.label or None for r in PairLabel.objects.filter(**base).select_related("annotator")}
    phenomena: dict[Key, list[dict[str, Any]]] = defaultdict(list)
    for p in Phenomenon.objects.filter(**base).select_related("annotator", "ptype").order_by("pk"):
        phenomena[_key(p)].append(_phenomenon(p))
    links: dict[Key, list[dict[str, Any]]] = defaultdict(list)
    for link in AlignmentLink.objects.filter(**base).select_related("annotator").order_by("i", "j"):
        links[_key(link)].append({"i": link.i, "j": link.j, "sure": link.sure})
    phrases: dict[Key, list[dict[str, Any]]] = defaultdict(list)
    for phrase in PhraseAlignment.objects.filter(**base).select_related("annotator").order_by("pk"):
        pair = pairs[phrase.pair_id]
        span1, label1 = _node(pair.nodes1, phrase.node1)
        span2, label2 = _node(pair.nodes2, phrase.node2)
        phrases[_key(phrase)].append(
            {
                "node1": phrase.node1,
                "node2": phrase.node2,
                "span1": span1,
                "span2": span2,
                "label1": label1,
                "label2": label2,
                "sure": phrase.sure,
            }
        )
    return labels, phenomena, links, phrases


def _chunk_records(
    project: Project, pairs: list[Pair], owner: dict[str, Any], *, annotator: str | None, gold: bool
) -> Iterator[dict[str, Any]]:
    by_id = {p.pk: p for p in pairs}
    labels, phenomena, links, phrases = _annotations(by_id, {"pair__in": list(by_id), **owner})
    keys = set(labels) | set(phenomena) | set(links) | set(phrases)
    if not gold:
        assigned = Assignment.objects.filter(project=project, pair__in=list(by_id))
        if annotator:
            assigned = assigned.filter(annotator=owner["annotator"])
        keys |= {
            (pair_id, False, name) for pair_id, name in assigned.values_list("pair_id", "annotator__username")
        }
    whole = annotator is None and not gold
    by_pair: dict[int, list[Key]] = defaultdict(list)
    for key in keys:
        by_pair[key[0]].append(key)
    for pair in pairs:
        fields = _pair_fields(project, pair)
        if whole:
            yield {"record": "pair", **fields, "annotator": None, "label": None} | {
                "phenomena": [],
                "links": [],
                "phrase_alignments": [],
            }
        for key in sorted(by_pair.get(pair.pk, ())):  # annotators by name, then gold
            yield {
                "record": "gold" if key[1] else "annotation",
                **fields,
                "annotator": key[2],
                "label": labels.get(key),
                "phenomena": phenomena.get(key, []),
                "links": links.get(key, []),
                "phrase_alignments": phrases.get(key, []),
            }


class Writer(Protocol):
    def write(self, data: bytes, /) -> Any: ...


def write_jsonl(project: Project, out: Writer, *, annotator: str | None = None, gold: bool = False) -> None:
    """Write the records to `out` as they are read (bounded memory)."""
    for record in iter_records(project, annotator=annotator, gold=gold):
        out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")


def jsonl_bytes(project: Project, *, annotator: str | None = None, gold: bool = False) -> bytes:
    out = io.BytesIO()
    write_jsonl(project, out, annotator=annotator, gold=gold)
    return out.getvalue()
