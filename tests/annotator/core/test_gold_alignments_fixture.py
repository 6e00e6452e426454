"""The hand-aligned MRPC gold set (tests/fixtures/mrpc_gold_alignments.json) is well formed and its
tokens are the ones the workbench's MRPC import gives those pairs."""

import json
from pathlib import Path

from annotator.core.aligner import identical_token_alignment
from annotator.core.statistical_aligner import alignment_quality
from annotator.corpus.imports.mrpc import parse_mrpc

GOLD = Path(__file__).resolve().parents[2] / "fixtures" / "mrpc_gold_alignments.json"


def _gold():
    return json.loads(GOLD.read_text())["pairs"]


def test_at_least_40_pairs_with_links_inside_the_tokens_and_no_link_both_sure_and_possible():
    pairs = _gold()
    assert len(pairs) >= 40 and len({p["id"] for p in pairs}) == len(pairs)
    for p in pairs:
        sure, possible = {tuple(x) for x in p["sure"]}, {tuple(x) for x in p["possible"]}
        assert sure and not sure & possible, p["id"]
        for i, j in sure | possible:
            assert 0 <= i < len(p["tokens1"]) and 0 <= j < len(p["tokens2"]), p["id"]


def _different_word_sure_links(pairs):
    return sum(
        1 for p in pairs for i, j in p["sure"] if p["tokens1"][i].casefold() != p["tokens2"][j].casefold()
    )


def test_at_least_60_sure_links_between_different_words_and_a_held_aside_part():
    pairs = _gold()
    assert _different_word_sure_links(pairs) >= 60
    parts = {p["part"] for p in pairs}
    assert parts == {"tune", "held-aside"}
    held = [p for p in pairs if p["part"] == "held-aside"]
    assert len(held) >= 40 and _different_word_sure_links(held) >= 20


def test_tokens_are_the_mrpc_importers(corpora_dir):
    records = {}
    for name in ("msr_paraphrase_train.txt", "msr_paraphrase_test.txt"):
        for r in parse_mrpc((corpora_dir / "mrpc" / name).read_bytes(), name).records:
            records[r.source_id] = r
    for p in _gold():
        assert (records[p["id"]].tokens1, records[p["id"]].tokens2) == (p["tokens1"], p["tokens2"]), p["id"]


def test_the_identical_token_matcher_is_mostly_but_not_entirely_right_on_gold():
    pairs = _gold()
    predicted = [identical_token_alignment(p["tokens1"], p["tokens2"]) for p in pairs]
    q = alignment_quality(predicted, [p["sure"] for p in pairs], [p["possible"] for p in pairs])
    assert 0.9 < q.precision < 1 and 0.85 < q.recall < 1 and 0 < q.aer < 0.1
