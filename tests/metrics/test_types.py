"""Data types and document validation (spec §1, §9): every rejection names the field."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from metrics.document import load_document, parse_document
from metrics.types import (
    Document,
    DocumentError,
    Judgement,
    Options,
    Pair,
    PhraseAlignment,
    Tagset,
    TypeDef,
    WordAlignment,
    scale_label,
)


def test_spec_example_document_parses_into_types(full_document):
    doc = parse_document(full_document())
    assert isinstance(doc, Document)
    assert doc.annotators == ("B", "C")
    assert doc.pair_by_id["p1"].initial_alignment == frozenset({(1, 0), (2, 1)})
    assert doc.tagset is not None and doc.tagset["ADDITION/DELETION"].one_sided
    assert doc.phenomena is not None and doc.phenomena["C"] == ()
    x = doc.phenomena["B"][0]
    assert (x.s1, x.s2, x.projection, x.key1) == (frozenset({0, 1}), frozenset({0}), "local", frozenset())
    wa = doc.word_alignments
    assert wa is not None and wa["B"]["p1"].P == frozenset({(1, 0), (2, 1)}) and wa["B"]["p1"].S == {(1, 0)}
    assert doc.phrase_alignments is not None and doc.phrase_alignments["B"][1].s2 is None
    assert doc.evaluations is not None and doc.evaluations.revisions[0] == Judgement(
        "u01e1", "E1", "Awkward", None
    )


def test_absent_sections_are_none_and_options_default():
    doc = parse_document({"format": "paraphrase-agreement/1"})
    assert doc.phenomena is None and doc.word_alignments is None and doc.evaluations is None
    assert doc.options == Options()
    assert doc.options.mc_samples == 1000 and doc.options.reeval_fraction == 0.1


def test_phrase_alignment_identity_ignores_the_label():
    a = PhraseAlignment("p", frozenset({1}), None, "sure")
    b = PhraseAlignment("p", frozenset({1}), None, "possible")
    assert a == b and hash(a) == hash(b)


def test_word_alignment_p_contains_s():
    w = WordAlignment(frozenset({(0, 0)}), frozenset({(1, 1)}))
    assert w.S <= w.P == {(0, 0), (1, 1)}


def test_tagset_lookup():
    t = Tagset((TypeDef("A"), TypeDef("B", one_sided=True)))
    assert "B" in t and t.get("C") is None and t.is_one_sided("B") and t.names == ("A", "B")


def test_scale_labels_map_to_binary():
    j = Judgement("i", "r", "Awkward", "Significantly Different")
    assert [scale_label(j, s) for s in ("G5", "M6", "G2", "M2")] == [
        "Awkward",
        "Significantly Different",
        "OK",
        "NG",
    ]
    assert scale_label(Judgement("i", "r", None, "Equivalent"), "G2") is None


def test_frozen_types_are_immutable():
    with pytest.raises(AttributeError):
        Pair("p", (), (), None).id = "q"  # type: ignore[misc]


def _mutate(base: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(base)
    target = data
    for step in path[:-1]:
        target = target[step]
    if value is _DELETE:
        del target[path[-1]]
    elif isinstance(target, list) and path[-1] == len(target):
        target.append(value)
    else:
        target[path[-1]] = value
    return data


_DELETE = object()

INVALID = [
    ("format missing", ["format"], _DELETE, "format", "missing"),
    ("format wrong", ["format"], "other/1", "format", "unsupported"),
    ("index out of range", ["phenomena", "B", 3, "s1"], [0, 99], "phenomena.B[3].s1[1]", "out of range"),
    ("duplicate index", ["phenomena", "B", 3, "s1"], [0, 4, 0], "phenomena.B[3].s1[2]", "duplicate index 0"),
    ("unknown type", ["phenomena", "C", 2, "type"], "NOPE", "phenomena.C[2].type", "not in the tagset"),
    ("one-sided both sides", ["phenomena", "C", 6, "s2"], [3], "phenomena.C[6].s2", "one-sided"),
    ("bad projection", ["phenomena", "B", 0, "projection"], "sideways", "phenomena.B[0].projection", "local"),
    ("unknown pair", ["phenomena", "B", 1, "pair"], "zz", "phenomena.B[1].pair", "unknown pair"),
    ("undeclared annotator", ["phenomena", "Z"], [], "phenomena.Z", "not declared"),
    (
        "duplicate pair id",
        ["pairs", 1],
        {"id": "p1", "tokens1": [], "tokens2": []},
        "pairs[1].id",
        "duplicate",
    ),
    ("token not a string", ["pairs", 0, "tokens1", 2], 7, "pairs[0].tokens1[2]", "string"),
    ("bad option", ["options"], {"identical_match": "fuzzy"}, "options.identical_match", "exact"),
    ("mc_samples < 2", ["options"], {"mc_samples": 1}, "options.mc_samples", ">= 2"),
    ("negative seed", ["options"], {"reeval_seed": -1}, "options.reeval_seed", ">= 0"),
]


@pytest.mark.parametrize(("name", "path", "value", "field", "message"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_document_is_rejected_naming_the_field(vila_document_data, name, path, value, field, message):
    data = _mutate(vila_document_data(), path, value)
    with pytest.raises(DocumentError) as info:
        parse_document(data)
    assert info.value.field == field
    assert message in info.value.message
    assert isinstance(info.value, ValueError)


def test_both_scopes_empty_is_rejected(vila_document_data):
    data = _mutate(vila_document_data(), ["phenomena", "C", 0, "s1"], [])
    data["phenomena"]["C"][0]["s2"] = []
    with pytest.raises(DocumentError) as info:
        parse_document(data)
    assert info.value.field == "phenomena.C[0].s1" and "s1 = s2 = ∅" in info.value.message


def test_word_alignment_link_out_of_range_is_rejected(full_document):
    data = full_document()
    data["word_alignments"]["C"]["p1"]["sure"].append([0, 5])
    with pytest.raises(DocumentError) as info:
        parse_document(data)
    assert info.value.field == "word_alignments.C.p1.sure[2][1]"


def test_phrase_alignment_with_both_sides_null_is_rejected(full_document):
    data = full_document()
    data["phrase_alignments"]["B"].append({"pair": "p1", "s1": None, "s2": None})
    with pytest.raises(DocumentError) as info:
        parse_document(data)
    assert info.value.field == "phrase_alignments.B[2].s1"


def test_unknown_judgement_label_and_second_judgement_are_rejected(full_document):
    data = full_document()
    data["evaluations"]["ratings"].append({"item": "u01e1", "rater": "E2", "G": "Great", "M": "Equivalent"})
    with pytest.raises(DocumentError, match="unknown label") as info:
        parse_document(data)
    assert info.value.field == "evaluations.ratings[1].G"
    data["evaluations"]["ratings"][1] = {"item": "u01e1", "rater": "E1", "G": "Perfect", "M": "Equivalent"}
    with pytest.raises(DocumentError, match="second judgement"):
        parse_document(data)


def test_revision_of_a_missing_judgement_is_rejected(full_document):
    data = full_document()
    data["evaluations"]["revisions"].append({"item": "nope", "rater": "E2", "M": "Equivalent"})
    with pytest.raises(DocumentError) as info:
        parse_document(data)
    assert info.value.field == "evaluations.revisions[1]"


def test_load_document_reports_bad_json_and_missing_files(full_document, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DocumentError, match="invalid JSON"):
        load_document(bad)
    with pytest.raises(DocumentError, match="cannot read"):
        load_document(tmp_path / "missing.json")
    nan = tmp_path / "nan.json"
    nan.write_text('{"format": "paraphrase-agreement/1", "options": {"reeval_fraction": NaN}}')
    with pytest.raises(DocumentError):
        load_document(nan)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(full_document()))
    assert load_document(good).annotators == ("B", "C")
