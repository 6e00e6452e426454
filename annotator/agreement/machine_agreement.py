"""Humans against the machine (Cohn, Callison-Burch & Lapata 2008, Table 5) and registered systems
against humans and gold: word and phrase precision / recall / F1 (no Django here).

The automatic alignment is the test side, the person (or the gold layer) the reference:

    Precision = |S'_auto ∩ P'_ref| / |S'_auto|     Recall = |P'_auto ∩ S'_ref| / |S'_ref|     F1 = HM(P, R)

with the primes meaning "minus identical links" (spec §5.1, `metrics.alignment.word_alignment_counts`),
so the many trivially right identical-word links do not flatter the aligner. Phrase scores compare the
phrase pairs extracted from the two word alignments (spec §5.2, `phrase_alignment_counts`). Counts are
summed over the pairs the reference aligned (micro-average); a pair the reference did not align is left
out. An automatic alignment has only sure links.

Tree phrase alignments (the editor's phrase layer) are scored against the automatic phrase alignment
of `annotator.core.phrase_suggestions` (the tree-node pairs consistent with the automatic word
alignment) with SPADE's measures (Arase & Tsujii 2018; spec §6, `metrics.spade`), the automatic
alignment H tested against the one annotator G taken as both references (G = G'):

    Precision = ALIP(H, G, G) = |H ∩ G| / |H|        Recall = ALIR(H, G, G) = |H ∩ G| / |G|        F1 = HM(P, R)

a phrase alignment being the triple (pair, s1, s2) of token sets, so two nodes with the same span are
the same alignment; over the pairs the annotator phrase-aligned that have an automatic phrase alignment
(both trees and a word alignment); the annotator's null alignments stay in G (the aligner makes none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metrics.alignment import AlignmentCounts, harmonic_mean, phrase_alignment_counts, word_alignment_counts
from metrics.spade import alip, alir
from metrics.types import PhraseAlignment, WordAlignment

Alignments = Mapping[str, Mapping[str, Any]]  # pair id → {"sure": [[i, j]…], "possible": [[i, j]…]}
PhraseRows = Sequence[Mapping[str, Any]]  # [{"pair", "s1", "s2"}…], s1/s2 token lists or None


def _word_alignment(entry: Mapping[str, Any]) -> WordAlignment:
    sure = frozenset((i, j) for i, j in entry.get("sure", ()))
    possible = frozenset((i, j) for i, j in entry.get("possible", ()))
    return WordAlignment(sure, possible | sure)


def _scores(counts: AlignmentCounts) -> dict[str, float | None]:
    p, r, f1 = counts.scores()
    return {"precision": p, "recall": r, "f1": f1}


def compare(
    test: Alignments, reference: Alignments, tokens: Mapping[str, tuple[list[str], list[str]]]
) -> dict[str, Any]:
    """Word and phrase P/R/F1 of `test` against `reference` over the pairs both aligned."""
    word, phrase = AlignmentCounts(), AlignmentCounts()
    n = 0
    for pid, ref in reference.items():
        if pid not in test or pid not in tokens:
            continue
        t1, t2 = tokens[pid]
        a, b = _word_alignment(test[pid]), _word_alignment(ref)
        word = word + word_alignment_counts(a, b, t1, t2)
        phrase = phrase + phrase_alignment_counts(a.P, b.P, t1, t2)
        n += 1
    return {"pairs": n, "word": _scores(word), "phrase": _scores(phrase)}


def _triple(pair: str, row: Mapping[str, Any]) -> PhraseAlignment:
    s1, s2 = row.get("s1"), row.get("s2")
    return PhraseAlignment(
        pair, frozenset(s1) if s1 is not None else None, frozenset(s2) if s2 is not None else None
    )


def compare_tree_phrases(automatic: Mapping[str, PhraseRows], human: PhraseRows) -> dict[str, Any]:
    """SPADE precision / recall / F1 of the automatic tree phrase alignment against one annotator's,
    over the pairs the annotator phrase-aligned that have an automatic one (module docstring)."""
    g = {_triple(str(row["pair"]), row) for row in human if str(row["pair"]) in automatic}
    pairs = {a.pair for a in g}
    h = {_triple(pid, row) for pid in pairs for row in automatic[pid]}
    p, r = (alip(h, g, g), alir(h, g, g)) if g else (None, None)
    return {"pairs": len(pairs), "precision": p, "recall": r, "f1": harmonic_mean(p, r)}


def pair_machine_counts(
    automatic: Any, entry: Mapping[str, Any], tokens1: list[str], tokens2: list[str]
) -> list[int]:
    """What one pair adds to `compare(automatic, human)`: the word counts, the phrase counts (four
    integers each, `AlignmentCounts` order) and 1 pair; summed over pairs by the sums the database keeps (`pair_parts`)."""
    a, b = _word_alignment({"sure": automatic, "possible": []}), _word_alignment(entry)
    word = word_alignment_counts(a, b, tokens1, tokens2)
    phrase = phrase_alignment_counts(a.P, b.P, tokens1, tokens2)
    return [*_ints(word), *_ints(phrase), 1]


def _ints(c: AlignmentCounts) -> list[int]:
    return [c.precision_hits, c.n_test, c.recall_hits, c.n_reference]


def aligner_from_totals(totals: Mapping[str, list[int]], humans: list[str]) -> list[dict[str, Any]]:
    """`machine_agreement(...)["aligner"]` from the summed `pair_machine_counts` of each annotator."""
    out = []
    for name in sorted(humans):
        counts = totals.get(name) or [0] * 9
        out.append(
            {
                "annotator": name,
                "pairs": counts[8],
                "word": _scores(AlignmentCounts(*counts[0:4])),
                "phrase": _scores(AlignmentCounts(*counts[4:8])),
            }
        )
    return out


def aligner_alignments(doc: Mapping[str, Any]) -> dict[str, dict[str, list[list[int]]]]:
    """The document's initial (automatic) alignment of each pair, as sure links."""
    return {
        p["id"]: {"sure": p["initial_alignment"], "possible": []}
        for p in doc.get("pairs", ())
        if p.get("initial_alignment") is not None
    }


def machine_agreement(
    doc: Mapping[str, Any],
    systems: Mapping[str, Alignments] | None = None,
    gold: Alignments | None = None,
    automatic_phrases: Mapping[str, PhraseRows] | None = None,
    *,
    aligner: bool = True,
) -> dict[str, Any]:
    """`{"aligner": [{annotator, pairs, word, phrase[, tree_phrase]}], "systems": [{system, against}]}`.

    `automatic_phrases` (pair id → the automatic tree phrase alignment) adds each phrase annotator's
    `tree_phrase` scores (`compare_tree_phrases`); annotators with only phrase alignments get a row too.
    `aligner=False` leaves out the word and phrase-pair scores against the automatic word alignment
    (the caller sums them from per-pair counts, `aligner_from_totals`).
    """
    tokens = {p["id"]: (p["tokens1"], p["tokens2"]) for p in doc.get("pairs", ())}
    humans: Mapping[str, Alignments] = doc.get("word_alignments") or {}
    phrase_humans: Mapping[str, PhraseRows] = doc.get("phrase_alignments") or {}
    automatic = aligner_alignments(doc)
    rows = []
    for name in sorted(set(humans) | (set(phrase_humans) if automatic_phrases is not None else set())):
        row: dict[str, Any] = {"annotator": name}
        if aligner:
            row.update(compare(automatic, humans.get(name, {}), tokens))
        if automatic_phrases is not None:
            row["tree_phrase"] = compare_tree_phrases(automatic_phrases, phrase_humans.get(name, ()))
        rows.append(row)
    out: dict[str, Any] = {"aligner": rows if aligner or automatic_phrases is not None else [], "systems": []}
    for system in sorted(systems or {}):
        alignments = (systems or {})[system]
        against = [
            {"reference": name, **compare(alignments, humans[name], tokens)} for name in sorted(humans)
        ]
        if gold:
            against.append({"reference": "gold", **compare(alignments, gold, tokens)})
        out["systems"].append({"system": system, "against": against})
    return out
