"""Flat JSON Lines: one record per pair and annotator (or gold), loadable without custom code.

Every line is the same flat shape, so `pandas.read_json(path, lines=True)` and
`datasets.load_dataset("json", data_files=path)` read it as it is:

    {"project": str, "pair_id": int, "source_id": str, "annotator": str ("gold" for the gold layer),
     "text1": str, "text2": str, "tokens1": [str], "tokens2": [str], "label": str | null,
     "phenomena": [{"type": str, "type_code": str, "type_class": str, "scope1": [int], "scope2": [int],
                    "key1": [int], "key2": [int], "projection": str, "sense_preserving": bool | null}],
     "links": [{"i": int, "j": int, "sure": bool}]}

Token indices are 0-based into tokens1/tokens2; `links` are word alignments (i in member 1, j in
member 2). With an annotator: that annotator's pairs (assigned or annotated); with gold: the gold
layer's pairs; otherwise every annotator's records, one per pair they hold.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, Protocol

from django.contrib.auth import get_user_model
from django.db.models import Q

from annotator.models import AlignmentLink, Assignment, Pair, PairLabel, Phenomenon, Project


def _owner_filter(annotator: str | None, gold: bool) -> dict[str, Any]:
    if gold:
        return {"is_gold": True}
    if annotator:
        user = get_user_model().objects.filter(username=annotator).first()
        if user is None:
            raise ValueError(f"no user named {annotator!r}")
        return {"is_gold": False, "annotator": user}
    return {"is_gold": False}


def _key(row: Any) -> tuple[int, str]:
    return row.pair_id, "gold" if row.is_gold else row.annotator.username


#: Pairs whose records are read and written at a time: memory stays bounded whatever the project's size.
PAIRS_PER_CHUNK = 2000


def records(project: Project, *, annotator: str | None = None, gold: bool = False) -> list[dict[str, Any]]:
    """The records, in pair order then annotator name."""
    return list(iter_records(project, annotator=annotator, gold=gold))


def iter_records(
    project: Project, *, annotator: str | None = None, gold: bool = False, chunk: int | None = None
) -> Iterator[dict[str, Any]]:
    """The records one at a time, in pair order (position, id) then annotator name, reading the pairs and
    their annotations `chunk` (PAIRS_PER_CHUNK) pairs at a time."""
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


def _chunk_records(
    project: Project, pairs: list[Pair], owner: dict[str, Any], *, annotator: str | None, gold: bool
) -> Iterator[dict[str, Any]]:
    by_id = {p.pk: p for p in pairs}
    base = {"pair__in": list(by_id), **owner}
    labels = {_key(r): r.label or None for r in PairLabel.objects.filter(**base).select_related("annotator")}
    phenomena: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
    for p in Phenomenon.objects.filter(**base).select_related("annotator", "ptype").order_by("pk"):
        phenomena[_key(p)].append(
            {
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
        )
    links: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
    for link in AlignmentLink.objects.filter(**base).select_related("annotator").order_by("i", "j"):
        links[_key(link)].append({"i": link.i, "j": link.j, "sure": link.sure})
    keys = set(labels) | set(phenomena) | set(links)
    if not gold:
        assigned = Assignment.objects.filter(project=project, pair__in=list(by_id))
        if annotator:
            assigned = assigned.filter(annotator=owner["annotator"])
        keys |= {(pair_id, name) for pair_id, name in assigned.values_list("pair_id", "annotator__username")}
    for pair_id, who in sorted(keys, key=lambda k: (by_id[k[0]].position, k[0], k[1])):
        pair = by_id[pair_id]
        yield {
            "project": project.name,
            "pair_id": pair.pk,
            "source_id": pair.source_id,
            "annotator": who,
            "text1": pair.text1,
            "text2": pair.text2,
            "tokens1": list(pair.tokens1),
            "tokens2": list(pair.tokens2),
            "label": labels.get((pair_id, who)),
            "phenomena": phenomena.get((pair_id, who), []),
            "links": links.get((pair_id, who), []),
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
