"""Seeded synthetic documents for benchmarks and tests (not annotation data of any corpus).

:func:`synthetic_document` builds a :class:`metrics.types.Document` with realistic agreement: a
hidden "true" annotation per pair that every annotator reproduces with some noise (missed and extra
phenomena, shifted scope borders, a wrong type now and then; dropped, added and sure↔possible links).
"""

from __future__ import annotations

import numpy as np

from metrics.types import Document, Options, Pair, Phenomenon, Tagset, TypeDef, WordAlignment

__all__ = ["DEFAULT_TAGSET", "synthetic_document"]

DEFAULT_TAGSET = Tagset(
    tuple(
        TypeDef(name, one_sided=name in ("ADDITION/DELETION", "MODAL/TENSE-ADDITION"))
        for name in (
            "INFLECTIONAL",
            "MODAL-VERB",
            "DERIVATIONAL",
            "SPELLING",
            "SAME-POLARITY",
            "SYNTHETIC/ANALYTIC",
            "OPPOSITE-POLARITY",
            "INVERSE",
            "DIATHESIS",
            "NEGATION",
            "ELLIPSIS",
            "COORDINATION",
            "SUBORDINATION&NESTING",
            "PUNCTUATION",
            "DIRECT/INDIRECT",
            "SENTENCE-MODALITY",
            "ORDER",
            "SEMANTIC",
            "IDENTICAL",
            "ADDITION/DELETION",
            "MODAL/TENSE-ADDITION",
            "NON-PARAPHRASE",
        )
    )
)

_VOCAB = tuple(f"w{i}" for i in range(400))


def synthetic_document(
    n_pairs: int = 3900,
    n_annotators: int = 3,
    phenomena_per_pair: int = 8,
    words: int = 25,
    seed: int = 0,
    with_alignments: bool = True,
    tagset: Tagset | None = None,
) -> Document:
    """A seeded random document: ``n_pairs`` pairs of ``words`` tokens per member, annotated by
    ``n_annotators`` annotators with about ``phenomena_per_pair`` phenomena each (and word
    alignments with an initial alignment if ``with_alignments``). Same arguments → same document.
    """
    if n_pairs < 0 or n_annotators < 0 or phenomena_per_pair < 0 or words < 1:
        raise ValueError("sizes must be non-negative (words ≥ 1)")
    tagset = tagset if tagset is not None else DEFAULT_TAGSET
    if not tagset.types:
        raise ValueError("tagset must define at least one type")
    rng = np.random.default_rng(seed)
    annotators = tuple(f"A{i + 1}" for i in range(n_annotators))
    pairs: list[Pair] = []
    phenomena: dict[str, list[Phenomenon]] = {a: [] for a in annotators}
    alignments: dict[str, dict[str, WordAlignment]] = {a: {} for a in annotators}
    for n in range(n_pairs):
        pid = f"p{n:05d}"
        tokens1 = tuple(_VOCAB[int(i)] for i in rng.integers(0, len(_VOCAB), words))
        tokens2 = tuple(
            t if rng.random() < 0.4 else _VOCAB[int(rng.integers(0, len(_VOCAB)))] for t in tokens1
        )
        truth = [_random_phenomenon(rng, pid, tagset, words) for _ in range(phenomena_per_pair)]
        true_links = _true_links(rng, words)
        initial = None
        if with_alignments:
            initial = frozenset(link for link in true_links if rng.random() < 0.85)
        pairs.append(Pair(pid, tokens1, tokens2, initial))
        for a in annotators:
            phenomena[a].extend(_annotate(rng, truth, pid, tagset, words))
            if with_alignments:
                alignments[a][pid] = _align(rng, true_links, words)
    return Document(
        annotators=annotators,
        options=Options(),
        tagset=tagset,
        pairs=tuple(pairs),
        phenomena={a: tuple(xs) for a, xs in phenomena.items()},
        word_alignments=alignments if with_alignments else None,
    )


def _span(rng: np.random.Generator, words: int) -> frozenset[int]:
    length = int(rng.integers(1, min(5, words) + 1))
    start = int(rng.integers(0, words - length + 1))
    return frozenset(range(start, start + length))


def _random_phenomenon(rng: np.random.Generator, pid: str, tagset: Tagset, words: int) -> Phenomenon:
    t = tagset.types[int(rng.integers(0, len(tagset.types)))]
    s1, s2 = _span(rng, words), _span(rng, words)
    if t.one_sided:
        s1, s2 = (s1, frozenset()) if rng.random() < 0.5 else (frozenset(), s2)
    projection = (None, "local", "global")[int(rng.integers(0, 3))]
    key1 = frozenset(i for i in s1 if rng.random() < 0.2)
    return Phenomenon(pid, t.name, s1, s2, projection, key1, frozenset())


def _perturb(rng: np.random.Generator, x: Phenomenon, tagset: Tagset, words: int) -> Phenomenon:
    s1, s2, name = x.s1, x.s2, x.type
    if s1 and rng.random() < 0.25:  # shift the right border of s1 by one token
        edge = max(s1) + (1 if rng.random() < 0.5 else 0)
        s1 = frozenset(i for i in range(min(s1), min(edge + 1, words)))
    if rng.random() < 0.05:
        other = tagset.types[int(rng.integers(0, len(tagset.types)))]
        if not other.one_sided or not (s1 and s2):
            name = other.name
    projection = x.projection if rng.random() < 0.9 else "local"
    return Phenomenon(x.pair, name, s1, s2, projection, x.key1 & s1, x.key2)


def _annotate(
    rng: np.random.Generator, truth: list[Phenomenon], pid: str, tagset: Tagset, words: int
) -> list[Phenomenon]:
    out = [_perturb(rng, x, tagset, words) for x in truth if rng.random() < 0.85]
    while rng.random() < 0.15:
        out.append(_random_phenomenon(rng, pid, tagset, words))
    return out


def _true_links(rng: np.random.Generator, words: int) -> list[tuple[int, int]]:
    links = [(i, i) for i in range(words) if rng.random() < 0.8]
    links += [(i, i + 1) for i in range(words - 1) if rng.random() < 0.1]
    return links


def _align(rng: np.random.Generator, true_links: list[tuple[int, int]], words: int) -> WordAlignment:
    sure, possible = set(), set()
    for link in true_links:
        u = rng.random()
        if u < 0.8:
            sure.add(link)
        elif u < 0.92:
            possible.add(link)
    for _ in range(int(rng.integers(0, 3))):
        possible.add((int(rng.integers(0, words)), int(rng.integers(0, words))))
    return WordAlignment(frozenset(sure), frozenset(possible - sure))
