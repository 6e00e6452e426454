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

import json
from collections import defaultdict
from typing import Any

from django.contrib.auth import get_user_model

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


def records(project: Project, *, annotator: str | None = None, gold: bool = False) -> list[dict[str, Any]]:
    """The records, in pair order then annotator name."""
    owner = _owner_filter(annotator, gold)
    pairs = {p.pk: p for p in Pair.objects.filter(project=project)}
    base = {"pair__project": project, **owner}
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
        assigned = Assignment.objects.filter(project=project, pair__isnull=False).select_related("annotator")
        if annotator:
            assigned = assigned.filter(annotator=owner["annotator"])
        keys |= {(a.pair_id, a.annotator.username) for a in assigned if a.pair_id is not None}
    out = []
    for pair_id, who in sorted(keys, key=lambda k: (pairs[k[0]].position, k[0], k[1])):
        pair = pairs[pair_id]
        out.append(
            {
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
        )
    return out


def jsonl_bytes(project: Project, *, annotator: str | None = None, gold: bool = False) -> bytes:
    lines = [json.dumps(r, ensure_ascii=False) for r in records(project, annotator=annotator, gold=gold)]
    return ("\n".join(lines) + "\n" if lines else "").encode("utf-8")
