"""The validated records importers produce and `annotator.corpus.services` writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PairRecord:
    """A sentence pair as read from a corpus file (file and line say where, for messages)."""

    source_id: str
    position: int
    text1: str
    text2: str
    tokens1: list[str]
    tokens2: list[str]
    corpus_labels: dict[str, Any] = field(default_factory=dict)
    file: str = ""
    line: int | None = None
    tree1: str = ""
    tree2: str = ""
    initial_alignment: list[list[int]] | None = None
    initial_alignment_source: str = ""
    initial_alignment_version: int | None = None  # the project's aligner run that wrote it (native only)
    tree_source: str = ""  # the parser that made the trees; empty for imported ones (native only)


@dataclass
class PhenomenonRecord:
    """A phenomenon of one annotator on the pair with `pair` as source id; `type_code` = ParaphraseType.code."""

    pair: str
    type_code: str
    scope1: list[int]
    scope2: list[int]
    projection: str = ""
    key1: list[int] = field(default_factory=list)
    key2: list[int] = field(default_factory=list)
    sense_preserving: bool | None = None
    comment: str = ""
    file: str = ""
    line: int | None = None
