"""The SPADE measures from per-pair sums (`metrics.spade_sums`) equal `spade_report` of the whole
document, exactly, on random documents (spec §6)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.spade import spade_report
from metrics.spade_sums import pair_part, report_from_sums
from metrics.types import Document, Pair, PhraseAlignment

PAIRS = ("p1", "p2", "p3")
NAMES = ("ann", "bob", "cem", "dee", "eve")
SPANS = (None, frozenset({0}), frozenset({1}), frozenset({0, 1}), frozenset({2}))


def alignment(pair: str) -> st.SearchStrategy[PhraseAlignment]:
    return st.builds(PhraseAlignment, st.just(pair), st.sampled_from(SPANS), st.sampled_from(SPANS[1:]))


def alignments() -> st.SearchStrategy[tuple[PhraseAlignment, ...]]:
    return st.lists(st.sampled_from(PAIRS).flatmap(alignment), max_size=8).map(tuple)


@st.composite
def documents(draw: st.DrawFn) -> Document:
    annotators = tuple(sorted(draw(st.sets(st.sampled_from(NAMES), max_size=5))))
    present = draw(st.sets(st.sampled_from(annotators), max_size=len(annotators))) if annotators else set()
    humans = {name: draw(alignments()) for name in annotators if name in present}
    return Document(
        annotators,
        pairs=tuple(Pair(p, ("a", "b", "c"), ("d", "e", "f")) for p in PAIRS),
        phrase_alignments=humans,
    )


def summed(doc: Document) -> Counter[tuple[str, str, str]]:
    totals: Counter[tuple[str, str, str]] = Counter()
    for pair in doc.pairs:
        # only the annotators with an alignment of this pair, as the database reads them
        humans = {
            n: s
            for n, xs in (doc.phrase_alignments or {}).items()
            if (s := {x for x in xs if x.pair == pair.id})
        }
        totals.update(pair_part(humans))
    return totals


def from_sums(doc: Document) -> dict:
    totals = summed(doc)
    # who takes part, as the database knows it: a size that is not 0 (an empty list is no alignment)
    annotators = [a for a in doc.annotators if totals.get(("spade.size", a, ""), 0)]
    return report_from_sums(annotators, totals)


@settings(max_examples=300, deadline=None)
@given(documents())
def test_the_report_from_sums_is_the_report_of_the_whole_document(doc: Document) -> None:
    # an annotator listed in the section with no alignment takes part in `spade_report` but cannot in
    # sums kept from rows: the database lists only annotators with rows, so drop such entries
    assert doc.phrase_alignments is not None
    doc = Document(
        doc.annotators,
        pairs=doc.pairs,
        phrase_alignments={n: xs for n, xs in doc.phrase_alignments.items() if xs},
    )
    assert from_sums(doc) == spade_report(doc)


def test_a_hand_example_with_three_annotators() -> None:
    x, y, z = (PhraseAlignment("p1", frozenset({0}), frozenset({0})), PhraseAlignment("p2", frozenset({1}), None),
               PhraseAlignment("p3", None, frozenset({2})))  # fmt: skip
    doc = Document(
        ("A", "B", "C"),
        pairs=tuple(Pair(p, ("a", "b", "c"), ("d", "e", "f")) for p in PAIRS),
        phrase_alignments={"A": (x, y), "B": (x, y, z), "C": (x, z)},
    )
    report = from_sums(doc)
    assert report == spade_report(doc)
    # A against {B, C}: agreed {x, z}, A has x → ALIR 1/2; A ∩ (B ∪ C) = {x, y} → ALIP 1
    assert report["spade.alir"]["by_annotator"]["A"] == 0.5
    assert report["spade.alip"]["by_annotator"]["A"] == 1.0
