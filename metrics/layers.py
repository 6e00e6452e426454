"""Per-layer IAPTA agreement on ETPC's sense-preserving layer (Kovatchev et al., ETPC Table 5.4).

Every ETPC relation is marked sense-preserving (+) or not (−), and ETPC reports agreement per layer.
A phenomenon carries the mark as ``sense_preserving`` (``True``/``False``; ``None`` = not marked).
When at least one phenomenon of the document is marked, the report gains, for each layer, every
``iapta.*`` key (N-, TPO-, DO-measures with all variants and the multi-annotator TPO) under the
prefix ``iapta.sense.<layer>.`` (docs/measures.md#sense-layers):

- ``plus``: only the phenomena marked + of every annotator;
- ``minus``: only the phenomena marked −;
- ``both``: the phenomena marked + or −, compared with the mark as part of the type (type ``T``
  becomes ``T (+)`` or ``T (-)``), so a phenomenon marked + by one annotator and − by another
  never matches (TPO, DO) and falls into different types (typewise variants, ``.by_type``).

Unmarked phenomena take part in no layer; ``iapta.sense.unmarked.count`` counts them per
annotator. A document in which nothing is marked gets none of these keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from metrics.phenomena import PhenomenaAgreement
from metrics.types import Document, Phenomenon, Tagset, TypeDef

__all__ = ["LAYERS", "has_sense_marks", "layer_phenomena", "layer_tagset", "sense_layer_report"]

Layer = Literal["plus", "minus", "both"]
#: The layers, in report order.
LAYERS: tuple[Layer, ...] = ("plus", "minus", "both")
_MARK = {True: "+", False: "-"}


def has_sense_marks(phenomena: Mapping[str, Sequence[Phenomenon]]) -> bool:
    """True iff some phenomenon is marked sense-preserving (+) or not (−)."""
    return any(x.sense_preserving is not None for xs in phenomena.values() for x in xs)


def layer_phenomena(
    phenomena: Mapping[str, Sequence[Phenomenon]], layer: Layer
) -> dict[str, tuple[Phenomenon, ...]]:
    """Each annotator's phenomena of ``layer`` ("plus", "minus" or "both"; see the module doc).

    >>> plus = Phenomenon("p1", "Negation", frozenset({1}), frozenset(), sense_preserving=True)
    >>> minus = replace(plus, sense_preserving=False)
    >>> [len(layer_phenomena({"A": [plus, minus]}, layer)["A"]) for layer in LAYERS]
    [1, 1, 2]
    >>> [x.type for x in layer_phenomena({"A": [plus, minus]}, "both")["A"]]
    ['Negation (+)', 'Negation (-)']
    """
    if layer not in LAYERS:
        raise ValueError(f'layer must be "plus", "minus" or "both", got {layer!r}')
    out: dict[str, tuple[Phenomenon, ...]] = {}
    for a, xs in phenomena.items():
        if layer == "both":
            out[a] = tuple(
                replace(x, type=_marked(x.type, x.sense_preserving))
                for x in xs
                if x.sense_preserving is not None
            )
        else:
            out[a] = tuple(x for x in xs if x.sense_preserving is (layer == "plus"))
    return out


def layer_tagset(tagset: Tagset | None, layer: Layer) -> Tagset | None:
    """The tagset of ``layer``: unchanged for "plus"/"minus"; each type split into ``T (+)``, ``T (-)``
    for "both" (``one_sided`` kept)."""
    if tagset is None or layer != "both":
        return tagset
    return Tagset(
        tuple(TypeDef(_marked(t.name, mark), t.one_sided) for t in tagset.types for mark in (True, False))
    )


def _marked(name: str, sense: bool | None) -> str:
    assert sense is not None
    return f"{name} ({_MARK[sense]})"


def sense_layer_report(doc: Document) -> dict[str, dict[str, Any]]:
    """The ``iapta.sense.*`` keys of ``doc`` (none when no phenomenon is marked; module doc).

    Example: A and B mark the same Negation, A as + and B as −. Overall (``iapta.do.f1``) they
    agree; in the + and − layers one of them has nothing (F1 = 0), and in "both" the marks differ:

    >>> from metrics.document import parse_document
    >>> neg = {"pair": "p1", "type": "Negation", "s1": [1], "s2": []}
    >>> doc = parse_document({
    ...     "format": "paraphrase-agreement/1", "annotators": ["A", "B"],
    ...     "tagset": {"types": [{"name": "Negation"}]},
    ...     "pairs": [{"id": "p1", "tokens1": ["not", "bad"], "tokens2": ["good"]}],
    ...     "phenomena": {"A": [dict(neg, sense_preserving=True)],
    ...                   "B": [dict(neg, sense_preserving=False)]}})
    >>> report = sense_layer_report(doc)
    >>> [report[f"iapta.sense.{layer}.do.f1"]["value"] for layer in LAYERS]
    [0.0, 0.0, 0.0]
    >>> report["iapta.sense.both.n.ph"]["value"]  # the N-measures only count
    1.0
    """
    if doc.phenomena is None or not has_sense_marks(doc.phenomena):
        return {}
    entries: dict[str, dict[str, Any]] = {}
    pairs = [p.id for p in doc.pairs]
    for layer in LAYERS:
        state = PhenomenaAgreement(
            layer_phenomena(doc.phenomena, layer),
            annotators=doc.annotators,
            tagset=layer_tagset(doc.tagset, layer),
            pairs=pairs,
        )
        for key, entry in state.report().items():
            entries[f"iapta.sense.{layer}.{key.removeprefix('iapta.')}"] = entry
    annotators = [a for a in doc.annotators if a in doc.phenomena]
    entries["iapta.sense.unmarked.count"] = {
        "by_annotator": {
            a: sum(1 for x in doc.phenomena[a] if x.sense_preserving is None) for a in annotators
        }
    }
    return entries
