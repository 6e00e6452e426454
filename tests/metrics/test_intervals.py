"""95 % intervals for every measure of the report (docs/measures.md#intervals): every measure key
gets one, seeded and reproducible, the fast bootstrap where it exists, resampled units elsewhere, and
κ_C by the delta method with its Monte Carlo error."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest

from metrics.chance import item_concordances
from metrics.document import parse_document
from metrics.intervals import Z_95, report_intervals
from metrics.report import build_report, report_confidence_intervals, report_sections
from metrics.synthetic import synthetic_document
from metrics.types import Document


def mixed_document(evaluation_ratings: Any) -> Document:
    doc = synthetic_document(n_pairs=8, n_annotators=3, phenomena_per_pair=3, words=6, seed=2)
    first = doc.pairs[0].id
    extra = parse_document(
        {
            "format": "paraphrase-agreement/1",
            "annotators": list(doc.annotators),
            "pairs": [
                {"id": p.id, "tokens1": list(p.tokens1), "tokens2": list(p.tokens2)} for p in doc.pairs
            ],
            "phrase_alignments": {
                a: [
                    {"pair": first, "s1": [0], "s2": [0]},
                    {"pair": doc.pairs[1].id, "s1": [1], "s2": [n % 2]},
                ]
                for n, a in enumerate(doc.annotators)
            },
            "pair_labels": {
                a: {
                    p.id: ("paraphrase" if (k + n) % 3 else "non-paraphrase") for k, p in enumerate(doc.pairs)
                }
                for n, a in enumerate(doc.annotators)
            },
            "evaluations": evaluation_ratings(),
        }
    )
    return dataclasses.replace(
        doc,
        phrase_alignments=extra.phrase_alignments,
        pair_labels=extra.pair_labels,
        evaluations=extra.evaluations,
    )


def numbers(entry: dict[str, Any]) -> bool:
    return isinstance(entry.get("value"), float) or any(
        isinstance(v, float)
        for part in ("by_pair", "by_annotator", "by_ordered_pair")
        for v in (entry.get(part) or {}).values()
    )


@pytest.fixture(scope="module")
def mixed(request):
    ratings = request.getfixturevalue("evaluation_ratings")
    doc = mixed_document(ratings)
    return doc, build_report(doc, ci=True, ci_resamples=60, ci_seed=5)["measures"]


def test_every_measure_with_a_number_has_an_interval_naming_its_method(mixed):
    _, m = mixed
    measured = [k for k, e in m.items() if not k.endswith(".ci95") and numbers(e)]
    skipped = {".n_items", ".pi0_se", ".count", ".by_type"}
    wanted = [k for k in measured if not any(k.endswith(s) for s in skipped)]
    assert {"iapta.n.ph", "kappa_c", "spade.alir", "pair_labels.cohen", "cohen.G5", "krippendorff.M2"} <= set(
        wanted
    )
    missing = [k for k in wanted if f"{k}.ci95" not in m]
    assert missing == []
    methods = {m[f"{k}.ci95"]["method"] for k in wanted}
    assert methods == {"bootstrap", "bootstrap-units", "delta-mc"}
    assert m["iapta.do.f1.ci95"]["method"] == "bootstrap" and m["kappa_c.ci95"]["method"] == "delta-mc"


def test_intervals_have_the_entries_shape_and_are_ordered(mixed):
    _, m = mixed
    for key, entry in m.items():
        if not key.endswith(".ci95"):
            continue
        measure = m[key[: -len(".ci95")]]
        if "by_pair" in measure and isinstance(measure.get("by_pair"), dict) and "value" in measure:
            assert set(entry.get("by_pair", {})) <= set(measure["by_pair"]), key
        for interval in [entry.get("value"), *(entry.get("by_pair") or {}).values()]:
            if interval is not None:
                assert interval[0] <= interval[1], key


def test_the_same_seed_gives_the_same_intervals_and_another_seed_other_ones(evaluation_ratings):
    doc = mixed_document(evaluation_ratings)
    base = build_report(doc)["measures"]
    sections = report_sections(doc)
    first = report_intervals(doc, base, sections, n_resamples=40, seed=1)
    assert first == report_intervals(doc, base, sections, n_resamples=40, seed=1)
    other = report_intervals(doc, base, sections, n_resamples=40, seed=2)
    assert first["iapta.n.ph.ci95"] != other["iapta.n.ph.ci95"]
    assert first["kappa_c.ci95"] == other["kappa_c.ci95"]  # analytic: no resampling


def test_kappa_c_interval_is_the_delta_method_with_the_monte_carlo_error(mixed):
    doc, m = mixed
    key = "a1|a2" if "a1|a2" in m["kappa_c"]["by_pair"] else next(iter(m["kappa_c"]["by_pair"]))
    a, b = key.split("|")
    items = item_concordances(doc, a, b)
    n = len(items.pi_hat)
    pi_hat, pi_0 = sum(items.pi_hat) / n, sum(items.pi_0) / n
    kappa = (pi_hat - pi_0) / (1 - pi_0)
    assert kappa == pytest.approx(m["kappa_c"]["by_pair"][key])
    d_hat, d_0 = 1 / (1 - pi_0), (pi_hat - 1) / (1 - pi_0) ** 2
    var_items = sum(
        ((d_hat * (x - pi_hat) + d_0 * (y - pi_0)) / n) ** 2
        for x, y in zip(items.pi_hat, items.pi_0, strict=True)
    )
    var_mc = (d_0 * m["kappa_c.pi0_se"]["by_pair"][key]) ** 2
    half = Z_95 * math.sqrt(var_items + var_mc)
    lo, hi = m["kappa_c.ci95"]["by_pair"][key]
    assert lo == pytest.approx(kappa - half) and hi == pytest.approx(min(1.0, kappa + half))


def test_identical_annotators_give_a_point_interval_at_one(vila_document_data):
    data = vila_document_data()
    data["phenomena"]["C"] = data["phenomena"]["B"]
    m = build_report(parse_document(data), ci=True, ci_resamples=30)["measures"]
    assert m["iapta.n.ph.ci95"]["value"] == [1.0, 1.0]
    assert m["iapta.tpo.total.f1.ci95"]["by_pair"]["B|C"] == [1.0, 1.0]


def test_report_with_intervals_stays_json_safe(mixed):
    _, m = mixed
    json.dumps(m, allow_nan=False)


def test_the_intervals_of_an_assembled_report_equal_build_reports(evaluation_ratings):
    doc = mixed_document(evaluation_ratings)
    whole = build_report(doc, ci=True, ci_resamples=20, ci_seed=9)["measures"]
    plain = build_report(doc)["measures"]
    assert report_confidence_intervals(doc, plain, seed=9, n_resamples=20) == {
        k: v for k, v in whole.items() if k.endswith(".ci95")
    }


def test_kept_statistics_resample_the_phenomena_and_alignments_as_a_recomputation_would():
    """The phenomena and word-alignment sections are resampled from their kept per-pair statistics;
    every resample equals the section recomputed on the resampled document, the sense layers and the
    multi-annotator TPO included, also with a pair drawn several times and pairs nobody marked."""
    import numpy as np

    from metrics.alignment import alignment_report
    from metrics.intervals import _recomputed, alignment_resampler, phenomena_resampler
    from metrics.report import phenomena_report

    doc = synthetic_document(n_pairs=12, n_annotators=3, phenomena_per_pair=3, words=7, seed=5)
    marked = {
        a: tuple(
            dataclasses.replace(x, sense_preserving=(None if n % 5 == 0 else n % 2 == 0))
            for n, x in enumerate(xs)
            if not x.pair.endswith(("3", "7"))
        )
        for a, xs in (doc.phenomena or {}).items()
    }
    doc = dataclasses.replace(doc, phenomena=marked)
    rng = np.random.default_rng(0)
    for section, kept in ((phenomena_report, phenomena_resampler), (alignment_report, alignment_resampler)):
        fast, slow = kept(doc), _recomputed(doc, section, "pairs")
        for _ in range(5):
            drawn = rng.integers(0, len(doc.pairs), size=len(doc.pairs))
            expected = {k: v for k, v in slow(drawn).items() if k != "iapta.sense.unmarked.count"}
            assert fast(drawn) == expected
            assert any(k.startswith("iapta.sense.") for k in expected) or section is alignment_report


def test_drawing_every_pair_once_gives_the_sections_own_report():
    import numpy as np

    from metrics.alignment import alignment_report
    from metrics.intervals import alignment_resampler, phenomena_resampler
    from metrics.report import phenomena_report

    doc = synthetic_document(n_pairs=6, n_annotators=3, phenomena_per_pair=2, words=5, seed=9)
    every = np.arange(len(doc.pairs), dtype=np.int64)
    assert phenomena_resampler(doc)(every) == phenomena_report(doc)
    assert alignment_resampler(doc)(every) == alignment_report(doc)
