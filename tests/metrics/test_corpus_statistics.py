"""The report's statistics section: the papers' corpus tables on hand-computed small documents."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from metrics.corpus_statistics import (
    corpus_statistics,
    corpus_type_frequencies,
    pearson_between_corpora,
    pearson_r,
)
from metrics.document import parse_document
from metrics.report import build_report
from metrics.synthetic import synthetic_document
from metrics.types import Document, Options, WordAlignment

REPO = Path(__file__).resolve().parents[2]


def x(pair: str, type_: str, s1: list[int], s2: list[int], sense: bool | None = None) -> dict[str, Any]:
    return {"pair": pair, "type": type_, "s1": s1, "s2": s2, "sense_preserving": sense}


def phenomena_doc() -> dict[str, Any]:
    return {
        "format": "paraphrase-agreement/1",
        "annotators": ["A", "B", "C"],
        "tagset": {"types": [{"name": "X"}, {"name": "Y"}, {"name": "Z"}]},
        "pairs": [
            {"id": "p1", "tokens1": ["a", "b", "c"], "tokens2": ["d", "e"]},
            {"id": "p2", "tokens1": ["f", "g", "h", "i"], "tokens2": ["j", "k", "l", "m"]},
        ],
        "phenomena": {
            # A: X of scope length 2 and 4 (average 3), Y of length 1
            "A": [x("p1", "X", [0], [0], True), x("p2", "X", [0, 1], [0, 1], False), x("p1", "Y", [2], [])],
            # B: X of length 2, Z of length 3
            "B": [x("p2", "X", [0], [0], True), x("p2", "Z", [1, 2], [3], True)],
            "C": [x("p1", "X", [0], [0]), x("p2", "X", [0, 1], [0, 1]), x("p1", "Y", [2], [])],
        },
    }


def stats(data: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return build_report(parse_document(data), statistics=True, **kw)["statistics"]


def test_vila_table3_counts_pairs_phenomena_and_words_by_annotator():
    t3 = stats(phenomena_doc())["vila_table3"]
    assert t3["mirrors"] == "Vila et al. 2015, Table 3"
    # 2 pairs, 3+2 + 4+4 = 13 words
    assert t3["by_annotator"]["A"] == {
        "pairs": 2,
        "pairs_with_phenomena": 2,
        "phenomena": 3,
        "phenomena_per_pair": 1.5,
        "words": 13,
        "phenomena_per_word": 3 / 13,
    }
    # B marks only p2 (8 words): per pair and per word over the pairs that carry phenomena
    assert t3["by_annotator"]["B"]["pairs_with_phenomena"] == 1
    assert t3["by_annotator"]["B"]["phenomena_per_pair"] == 2.0
    assert t3["by_annotator"]["B"]["phenomena_per_word"] == 2 / 8


def test_vila_table3_corpus_row_is_over_the_pairs_carrying_phenomena_with_the_mean_per_annotator():
    data = phenomena_doc()
    data["pairs"].append({"id": "p3", "tokens1": ["n"] * 10, "tokens2": ["o"] * 10})  # nobody marks p3
    corpus = stats(data)["vila_table3"]["corpus"]
    # (3 + 2 + 3) / 3 annotators over p1 and p2 (13 words); p3 is left out
    assert corpus == {
        "pairs": 3,
        "pairs_with_phenomena": 2,
        "phenomena": 8 / 3,
        "phenomena_per_pair": 4 / 3,
        "words": 13,
        "phenomena_per_word": 8 / 39,
    }


def test_between_corpora_pearson_pools_annotators_and_counts_unused_types_as_zero():
    t4 = stats(phenomena_doc())["vila_table4"]
    f = corpus_type_frequencies(t4)  # X 5, Y 2, Z 1 of 8
    assert f == {"X": 5 / 8, "Y": 2 / 8, "Z": 1 / 8}
    g = {"X": 0.5, "W": 0.5}
    result = pearson_between_corpora(f, g)
    assert result["types"] == 4
    assert result["r"] == pytest.approx(pearson_r([0.0, 5 / 8, 2 / 8, 1 / 8], [0.5, 0.5, 0.0, 0.0]))


def test_vila_table4_relative_frequency_scope_length_and_pearson():
    t4 = stats(phenomena_doc())["vila_table4"]
    assert t4["mirrors"] == "Vila et al. 2015, Table 4"
    assert t4["by_type"]["X"]["A"] == {"count": 2, "relative_frequency": 2 / 3, "avg_scope_length": 3.0}
    assert t4["by_type"]["Z"]["A"] == {"count": 0, "relative_frequency": 0.0, "avg_scope_length": None}
    assert t4["by_type"]["Z"]["B"] == {"count": 1, "relative_frequency": 0.5, "avg_scope_length": 3.0}
    # A (2/3, 1/3, 0) vs B (1/2, 0, 1/2): deviations (1/3, 0, −1/3)·(1/6, −1/3, 1/6) sum to 0
    assert t4["pearson_by_pair"]["A|B"]["relative_frequency"] == pytest.approx(0.0, abs=1e-15)
    # scope lengths over the types both used: only X, one point → undefined
    assert t4["pearson_by_pair"]["A|B"]["avg_scope_length"] is None
    # C annotates exactly as A
    assert t4["pearson_by_pair"]["A|C"] == {"relative_frequency": 1.0, "avg_scope_length": 1.0}


def test_pearson_r_against_numpy_and_its_undefined_cases():
    np = pytest.importorskip("numpy")
    xs, ys = [0.1, 0.5, 0.2, 0.9], [1.0, 3.0, 2.5, 2.0]
    assert pearson_r(xs, ys) == pytest.approx(float(np.corrcoef(xs, ys)[0, 1]), abs=1e-12)
    assert pearson_r([1.0], [2.0]) is None
    assert pearson_r([1.0, 2.0], [3.0, 3.0]) is None
    with pytest.raises(ValueError, match="differ in length"):
        pearson_r([1.0], [1.0, 2.0])


def test_etpc_counts_per_type_and_layer():
    t = stats(phenomena_doc())["etpc_types_by_sense"]
    assert t["by_type"]["X"]["A"] == {"plus": 1, "minus": 1, "unmarked": 0}
    assert t["by_type"]["Y"]["A"] == {"plus": 0, "minus": 0, "unmarked": 1}
    assert t["by_type"]["Z"]["B"] == {"plus": 1, "minus": 0, "unmarked": 0}
    assert t["total"] == {
        "A": {"plus": 1, "minus": 1, "unmarked": 1},
        "B": {"plus": 2, "minus": 0, "unmarked": 0},
        "C": {"plus": 0, "minus": 0, "unmarked": 3},
    }


def spade_doc() -> dict[str, Any]:
    a = {"pair": "p1", "s1": [0], "s2": [0]}
    b = {"pair": "p1", "s1": [1], "s2": [1, 2]}
    c = {"pair": "p1", "s1": [2], "s2": [2]}
    null = {"pair": "p1", "s1": [3], "s2": None}
    return {
        "format": "paraphrase-agreement/1",
        "annotators": ["G1", "G2", "G3"],
        "pairs": [{"id": "p1", "tokens1": list("abcd"), "tokens2": list("ABC")}],
        "phrase_alignments": {"G1": [a, b, null], "G2": [a, dict(b, label="possible")], "G3": [a, c, null]},
    }


def test_spade_table1_union_intersection_and_agreement_rate():
    t = stats(spade_doc())["spade_table1"]
    assert t["mirrors"] == "Arase & Tsujii 2018 (SPADE), Table 1"
    # union {a, b, c, null}, intersection {a}; the label is not part of an alignment's identity
    assert t["all"] == {
        "by_annotator": {"G1": 3, "G2": 2, "G3": 3},
        "union": 4,
        "intersection": 1,
        "agreement_rate": 0.25,
    }
    assert t["null"] == {
        "by_annotator": {"G1": 1, "G2": 0, "G3": 1},
        "union": 1,
        "intersection": 0,
        "agreement_rate": 0.0,
    }
    assert t["phrase"]["union"] == 3 and t["phrase"]["agreement_rate"] == 1 / 3
    column = t["columns"]["all"]  # no pair has a split: one column
    assert (column["pairs"], column["tokens"], column["types"]) == (1, 7, 7)
    assert column["phrases"] == 1  # s2 [1, 2] of b; every other span is one token
    assert column["all"] == t["all"]


def test_spade_table1_has_a_column_per_split_and_a_total():
    data = spade_doc()
    data["pairs"][0]["split"] = "dev"
    data["pairs"].append({"id": "p2", "tokens1": ["x", "y"], "tokens2": ["x", "z"], "split": "test"})
    data["phrase_alignments"]["G1"].append({"pair": "p2", "s1": [0, 1], "s2": [0, 1]})
    data["phrase_alignments"]["G2"].append({"pair": "p2", "s1": [0, 1], "s2": [0, 1]})
    columns = stats(data)["spade_table1"]["columns"]
    assert list(columns) == ["dev", "test", "total"]
    assert (columns["test"]["pairs"], columns["test"]["tokens"], columns["test"]["types"]) == (1, 4, 3)
    assert columns["test"]["phrases"] == 2 and columns["test"]["all"]["union"] == 1
    assert columns["test"]["all"]["intersection"] == 0  # G3 has no alignment in p2
    assert columns["dev"]["all"]["union"] == 4 and columns["total"]["all"]["union"] == 5
    assert columns["total"]["tokens"] == 11


def alignment_doc(*, initial: bool) -> dict[str, Any]:
    k1 = {"id": "k1", "tokens1": ["he", "bought", "a", "car"], "tokens2": ["he", "purchased", "an", "auto"]}
    k2 = {"id": "k2", "tokens1": list("abcdefg"), "tokens2": list("ABCDEFGH")}
    if initial:
        k1["initial_alignment"] = [[1, 1], [3, 3]]
        k2["initial_alignment"] = [[0, 0], [1, 1]]
    return {
        "format": "paraphrase-agreement/1",
        "annotators": ["A", "B"],
        "options": {"mc_samples": 20},
        "pairs": [k1, k2],
        "word_alignments": {
            "A": {"k1": {"sure": [[1, 1], [3, 3]]}, "k2": {"sure": [[0, 0], [1, 1]]}},
            "B": {
                "k1": {"sure": [[1, 1], [3, 3]]},
                "k2": {"sure": [[0, 1]]} if not initial else {"sure": [[0, 0], [1, 1]]},
            },
        },
    }


def test_cohn_fig4_bins_observed_agreement_by_the_shorter_member():
    t = stats(alignment_doc(initial=False))["cohn_fig4"]
    assert t["mirrors"] == "Cohn, Callison-Burch & Lapata 2008, Fig. 4"
    first, second = t["bins"]
    # k1: shorter member 4 tokens, identical alignments → conc 1; k2: 7 tokens, A's atomic pairs
    # (a,A), (b,B) and B's (a,B) share nothing → conc 0. Without initial alignments π̂0 is undefined.
    assert first["shorter_length"] == [1, 5] and first["n_items"] == {"A|B": 1}
    assert first["pi_hat"] == {"value": 1.0, "by_pair": {"A|B": 1.0}}
    assert second["shorter_length"] == [6, 10] and second["pi_hat"]["value"] == 0.0
    assert second["pi0"]["value"] is None and second["kappa_c"]["by_pair"] == {"A|B": None}


def test_cohn_fig4_nobody_edits_gives_pi0_one_and_undefined_kappa_in_every_bin():
    t = stats(alignment_doc(initial=True), bin_width=10)["cohn_fig4"]
    assert t["bin_width"] == 10
    (only,) = t["bins"]
    assert only["shorter_length"] == [1, 10] and only["n_items"] == {"A|B": 2}
    assert only["pi_hat"]["value"] == 1.0 and only["pi0"]["value"] == 1.0
    assert only["kappa_c"]["value"] is None


def mixed_lengths_document() -> Document:
    short = synthetic_document(n_pairs=5, n_annotators=3, phenomena_per_pair=0, words=4, seed=1)
    long = synthetic_document(n_pairs=5, n_annotators=3, phenomena_per_pair=0, words=11, seed=2)
    rename = {p.id: "q" + p.id for p in long.pairs}
    pairs = short.pairs + tuple(dataclasses.replace(p, id=rename[p.id]) for p in long.pairs)
    alignments: dict[str, dict[str, WordAlignment]] = {}
    for r in short.annotators:
        alignments[r] = {**(short.word_alignments or {})[r]}
        alignments[r].update({rename[k]: v for k, v in (long.word_alignments or {})[r].items()})
    return Document(
        annotators=short.annotators,
        options=Options(mc_samples=40, mc_seed=3),
        pairs=pairs,
        word_alignments=alignments,
    )


def test_cohn_fig4_bins_add_up_to_the_reports_kappa_c_parts():
    """Items weighted by bin size give back kappa_c.pi_hat and kappa_c.pi0 (same random stream)."""
    doc = mixed_lengths_document()
    report = build_report(doc, statistics=True)
    bins = report["statistics"]["cohn_fig4"]["bins"]
    assert [b["shorter_length"] for b in bins] == [[1, 5], [11, 15]]
    for key, pi0 in report["measures"]["kappa_c.pi0"]["by_pair"].items():
        n = sum(b["n_items"][key] for b in bins)
        assert n == report["measures"]["kappa_c.n_items"]["by_pair"][key]
        weighted = sum(b["n_items"][key] * b["pi0"]["by_pair"][key] for b in bins) / n
        assert weighted == pytest.approx(pi0, abs=1e-12)
        observed = sum(b["n_items"][key] * b["pi_hat"]["by_pair"][key] for b in bins) / n
        assert observed == pytest.approx(report["measures"]["kappa_c.pi_hat"]["by_pair"][key], abs=1e-12)


def test_statistics_are_opt_in_and_tables_of_absent_sections_are_omitted(vila_document_data):
    data = vila_document_data()
    assert "statistics" not in build_report(parse_document(data))
    assert set(stats(data)) == {"vila_table3", "vila_table4", "etpc_types_by_sense"}
    assert set(stats(spade_doc())) == {"spade_table1"}


def test_bin_width_must_be_positive():
    doc = parse_document(phenomena_doc())
    with pytest.raises(ValueError, match="bin_width must be a positive integer"):
        corpus_statistics(doc, bin_width=0)


def test_cli_prints_the_statistics_as_json_and_as_tables_naming_the_paper_table(tmp_path: Path):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(phenomena_doc()))
    run = [sys.executable, "-m", "metrics", "report", str(path), "--statistics"]
    out = subprocess.run(run, capture_output=True, text=True, cwd=REPO, timeout=120, check=True)
    assert json.loads(out.stdout)["statistics"]["vila_table3"]["by_annotator"]["A"]["words"] == 13
    table = subprocess.run(
        [*run, "--format", "table"], capture_output=True, text=True, cwd=REPO, timeout=120, check=True
    ).stdout
    heads = [line.split(None, 2) for line in table.splitlines() if " mirrors " in line]
    assert ["vila_table4", "mirrors", "Vila et al. 2015, Table 4"] in heads
    assert any(line.split()[:2] == ["vila_table3", "by_annotator"] for line in table.splitlines())
    bad = subprocess.run([*run, "--bin-width", "0"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert bad.returncode == 2 and "--bin-width must be >= 1" in bad.stderr
