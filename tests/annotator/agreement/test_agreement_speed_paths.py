"""The recompute's fast paths give exactly what the plain paths give.

- `trusted_document` (no re-validation) equals `metrics.document.parse_document` on the same document;
- `document_fingerprints` (one serialisation) equals hashing the document and each section's inputs;
- `report_sections` (sections of unchanged inputs copied) equals `build_report` of the whole document.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from annotator.agreement.document import project_document
from annotator.agreement.results import (
    SHARED,
    document_fingerprints,
    fingerprint,
    report_sections,
    trusted_document,
)
from annotator.annotation import services as annotation_services
from annotator.models import EvaluationItem, EvaluationUnit, Judgement, ParaphraseType
from metrics.document import parse_document
from metrics.report import build_report
from metrics.synthetic import synthetic_document
from metrics.types import Document
from tests import make


def ptype(name: str) -> ParaphraseType:
    return make.vila().types.get(name=name)


@pytest.fixture
def every_layer_document() -> dict[str, Any]:
    """A project document with every section: phenomena, links, phrase alignments, evaluations, labels."""
    lead = make.cast().lead
    cast = make.cast()
    anna, ben = cast.anna, cast.ben
    project = make.project_with_pairs(
        n_pairs=3, lead=lead, annotators=(anna, ben), layer_phrase_alignment=True, layer_evaluation=True
    )
    for pair in project.pairs.order_by("position"):
        for who, scope in ((anna, [0, 1]), (ben, [1])):
            annotation_services.add_phenomenon(
                pair,
                who,
                ptype("Synthetic/analytic"),
                scope1=scope,
                scope2=[0],
                projection="local",
                base_version=None,
            )
            annotation_services.add_phenomenon(
                pair,
                who,
                ptype("Addition/deletion"),
                scope1=[3],
                scope2=[],
                projection="global",
                base_version=None,
            )
            annotation_services.set_links(pair, who, [(1, 0), (2, 1)], sure=True, base_version=None)
            annotation_services.set_links(pair, who, [(4, 2)], sure=False, base_version=None)
            annotation_services.add_phrase_alignment(pair, who, 1, 1, base_version=None)
            annotation_services.set_pair_label(
                pair, who, "paraphrase" if who is anna else "non_paraphrase", base_version=None
            )
    unit = EvaluationUnit.objects.create(
        project=project, source_id="u1", source_sentence="a b c", phrase="b", phrase_start=2, phrase_end=3
    )
    item = EvaluationItem.objects.create(
        unit=unit,
        source_id="e0",
        position=0,
        paraphrase="x",
        sentence="a x c",
        substitution_start=2,
        substitution_end=3,
    )
    for who, label in ((anna, "Perfect"), (ben, "Awkward")):
        Judgement.objects.create(
            item=item,
            rater=who,
            step=Judgement.Step.GRAMMATICALITY,
            phase=Judgement.Phase.INITIAL,
            label=label,
        )
    return project_document(project)


@pytest.mark.django_db
def test_trusted_document_equals_parse_document(every_layer_document):
    doc = every_layer_document
    assert {"phenomena", "word_alignments", "phrase_alignments", "evaluations", "pair_labels"} <= doc.keys()
    assert doc["evaluations"]["ratings"] and doc["pairs"][0]["initial_alignment"]
    trusted, parsed = trusted_document(doc), parse_document(doc)
    assert trusted == parsed
    # Labels of phrase alignments are not part of their equality: compare them too.
    assert {a: [x.label for x in xs] for a, xs in trusted.phrase_alignments.items()} == {
        a: [x.label for x in xs] for a, xs in parsed.phrase_alignments.items()
    }


@pytest.mark.django_db
def test_trusted_document_of_some_sections_leaves_the_others_out(every_layer_document):
    doc = every_layer_document
    only = trusted_document(doc, sections=("word_alignments",))
    assert only == parse_document({**{k: doc[k] for k in SHARED}, "word_alignments": doc["word_alignments"]})
    assert only.phenomena is None and only.pair_labels is None


def test_unknown_keys_go_through_parse_document():
    doc = {"format": "paraphrase-agreement/1", "annotators": ["a"], "pairs": [], "future_section": {}}
    assert trusted_document(doc) == parse_document(doc)


@pytest.mark.django_db
def test_document_fingerprints_equal_hashing_each_part(every_layer_document):
    doc = every_layer_document
    prints = document_fingerprints(doc)
    shared = fingerprint({key: doc.get(key) for key in SHARED})
    assert prints.document == fingerprint(doc)
    assert prints.shared == shared
    sources = {"kappa_c": "word_alignments"}
    assert prints.sections == {
        name: fingerprint([shared, name, doc[sources.get(name, name)]])
        for name in [*(k for k in doc if k not in SHARED), "kappa_c"]
    }


# ---- the kept phenomena statistics, a few hundred pairs ---------------------------------------------


def as_dict(document: Document) -> dict[str, Any]:
    """The interchange document (spec §9) of a metrics Document with phenomena and word alignments."""
    return {
        "format": "paraphrase-agreement/1",
        "annotators": list(document.annotators),
        "options": dataclasses.asdict(document.options),
        "tagset": {"types": [{"name": t.name, "one_sided": t.one_sided} for t in document.tagset.types]},
        "pairs": [
            {
                "id": p.id,
                "tokens1": list(p.tokens1),
                "tokens2": list(p.tokens2),
                "initial_alignment": sorted(map(list, p.initial_alignment)) if p.initial_alignment else None,
            }
            for p in document.pairs
        ],
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
            for a, xs in document.phenomena.items()
        },
    }


@pytest.fixture
def scale_doc() -> dict[str, Any]:
    return as_dict(synthetic_document(n_pairs=300, n_annotators=3, phenomena_per_pair=8, seed=5))


def changed(doc: dict[str, Any]) -> dict[str, Any]:
    """A scope changed, a phenomenon removed, one moved to another pair, one annotator's pair emptied."""
    new = copy.deepcopy(doc)
    a, b, c = new["annotators"]
    xs = new["phenomena"]
    xs[a][0]["s1"] = sorted({*xs[a][0]["s1"], 0})
    xs[a][0]["s2"] = [] if xs[a][0]["s1"] else xs[a][0]["s2"]
    del xs[b][5]
    xs[c][7] = {**xs[c][7], "pair": new["pairs"][-1]["id"]}
    emptied = xs[c][40]["pair"]
    xs[c] = [x for x in xs[c] if x["pair"] != emptied]
    return new


def test_report_sections_equal_build_report_before_and_after_a_change(scale_doc):
    """Each section's computation, and the copy of the unchanged ones from the previous results, gives
    `build_report` of the whole document."""
    first = report_sections(scale_doc)
    assert first[0] == build_report(parse_document(scale_doc))
    doc = changed(scale_doc)
    previous = {"report": first[0], "sections": first[1], "section_keys": first[2], "pending": first[3]}
    again = report_sections(doc, previous)
    assert again[0] == build_report(parse_document(doc))


def test_json_safe_converts_numpy_and_non_finite_values_at_any_depth():
    import math

    import numpy as np

    from annotator.agreement.results import json_safe

    value = {
        "a": np.float64(0.5),
        "b": [np.int64(3), (1.5, math.nan)],
        "c": {"x": math.inf, "y": None, "z": True, 7: "seven"},
        "d": np.float32(-math.inf),
    }
    assert json_safe(value) == {
        "a": 0.5,
        "b": [3, [1.5, None]],
        "c": {"x": None, "y": None, "z": True, "7": "seven"},
        "d": None,
    }
    assert type(json_safe(value)["a"]) is float and type(json_safe(value)["b"][0]) is int
    with pytest.raises(ValueError, match="set"):
        json_safe({"bad": {1, 2}})
