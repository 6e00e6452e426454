"""The phenomena measures as sums over pairs: pairs' parts summed → report = the whole document's report."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.document import parse_document
from metrics.phenomena_sums import LIMB_BITS, _limbs, pair_part, report_from_sums, summed
from metrics.report import phenomena_report
from metrics.types import Document, Phenomenon, Tagset, TypeDef


def _report_of_parts(doc: Document, done: dict[str, set[str]] | None = None, order: list[str] | None = None):
    """The report of the totals of every pair's part; annotator pairs keyed in `order` (default: the
    document's) in the parts."""
    assert doc.phenomena is not None
    tagset = doc.tagset if doc.tagset is not None else Tagset(())
    done = done or {}
    order = order or list(doc.annotators)
    parts = []
    for pair in doc.pairs:
        phenomena = {
            a: [x for x in doc.phenomena[a] if x.pair == pair.id] for a in order if a in doc.phenomena
        }
        finished = {a for a in order if pair.id in done.get(a, set())}
        parts.append(pair_part(phenomena, tagset=tagset, done=finished))
    types = [(t.name, t.name) for t in tagset.types]
    return report_from_sums(summed(parts), annotators=list(doc.annotators), types=types)


def _started(doc: Document, done: dict[str, set[str]]) -> Document:
    """The document as the database builds it: an annotator takes part once they have a phenomenon or
    a finished pair."""
    assert doc.phenomena is not None
    phenomena = {a: xs for a, xs in doc.phenomena.items() if xs or done.get(a)}
    return dataclasses.replace(doc, phenomena=phenomena)


def test_the_spec_cases_with_phenomena_give_their_report(shared_specs: Path):
    seen = 0
    for path in sorted((shared_specs / "cases").glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        doc = parse_document(json.loads(path.read_text(encoding="utf-8")))
        if doc.phenomena is None:
            continue
        seen += 1
        expected = {k: v for k, v in phenomena_report(doc).items() if not k.startswith("iapta.sense.")}
        assert _report_of_parts(doc) == expected, path.name
        assert _report_of_parts(doc, order=list(reversed(doc.annotators))) == expected, path.name
    assert seen >= 2


TYPES = (TypeDef("A"), TypeDef("B"), TypeDef("C", one_sided=True), *(TypeDef(f"T{n}") for n in range(9)))
TAGSET = Tagset(TYPES)
PAIRS = ("p1", "p2", "p3", "p4")
N = 7


@st.composite
def phenomenon(draw: st.DrawFn) -> Phenomenon:
    t = draw(st.sampled_from(TYPES))
    s1 = draw(st.frozensets(st.integers(0, N - 1), max_size=4))
    s2 = draw(st.frozensets(st.integers(0, N - 1), max_size=4))
    if t.one_sided:
        s2 = frozenset()
    if not s1 and not s2:
        s1 = frozenset({draw(st.integers(0, N - 1))})
    key1 = draw(st.frozensets(st.integers(0, N - 1), max_size=2))
    key2 = draw(st.frozensets(st.integers(0, N - 1), max_size=2))
    projection = draw(st.sampled_from((None, "local", "global")))
    return Phenomenon(draw(st.sampled_from(PAIRS)), t.name, s1, s2, projection, key1, key2)


@st.composite
def documents(draw: st.DrawFn) -> tuple[Document, dict[str, set[str]]]:
    names = draw(
        st.lists(st.sampled_from(["ann", "bob", "cy", "dee", "eve"]), min_size=1, max_size=5, unique=True)
    )
    phenomena = {a: draw(st.lists(phenomenon(), max_size=10)) for a in names}
    done = {a: draw(st.sets(st.sampled_from(PAIRS), max_size=2)) for a in names}
    doc = parse_document(
        {
            "format": "paraphrase-agreement/1",
            "annotators": sorted(names),
            "tagset": {"types": [{"name": t.name, "one_sided": t.one_sided} for t in TYPES]},
            "pairs": [{"id": p, "tokens1": ["w"] * N, "tokens2": ["v"] * N} for p in PAIRS],
            "phenomena": {
                a: [
                    {
                        "pair": x.pair,
                        "type": x.type,
                        "s1": sorted(x.s1),
                        "s2": sorted(x.s2),
                        "projection": x.projection,
                        "key1": sorted(x.key1),
                        "key2": sorted(x.key2),
                    }
                    for x in xs
                ]
                for a, xs in phenomena.items()
            },
        }
    )
    return _started(doc, done), done


@settings(max_examples=150, deadline=None)
@given(documents(), st.randoms(use_true_random=False))
def test_parts_summed_over_pairs_give_the_report_of_the_whole_document(case, rnd: random.Random):
    doc, done = case
    order = list(doc.annotators)
    rnd.shuffle(order)  # the parts key annotator pairs in any order (the database: by user id)
    assert _report_of_parts(doc, done, order) == phenomena_report(doc)


def test_a_float_is_kept_exactly_in_at_most_three_limbs():
    rnd = random.Random(3)
    for x in [0.0, 1.0, 0.75, 1 / 3, 5e-324, 1.7976931348623157e308, *(rnd.random() for _ in range(200))]:
        limbs = _limbs(x)
        assert len(limbs) <= 3
        total = sum(limb << (k * LIMB_BITS) for k, limb in limbs)
        assert total / (1 << 1074) == x
