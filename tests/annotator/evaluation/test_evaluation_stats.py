"""Precision per candidate source (Fujita's Table 4) and the lead summary context, without the database."""

import pytest

from annotator.evaluation.stats import (
    ALL_SOURCES,
    kappa_band,
    lead_summary_context,
    majority_ok,
    precision_by_source,
    snapshot_measures,
)
from metrics.types import G2_OK


def test_majority_needs_strictly_more_than_half():
    assert majority_ok(["Perfect", "Awkward", "Irredeemable"], G2_OK) is True
    assert majority_ok(["Perfect", "Irredeemable"], G2_OK) is False  # a tie is not OK
    assert majority_ok([None, None], G2_OK) is None


def test_precision_per_source_for_g_m_and_both():
    sources = {"i1": "lex", "i2": "lex", "i3": "sys", "i4": "sys"}
    labels = {
        "i1": [("Perfect", "Equivalent"), ("Awkward", "Missing Info."), ("Minor Problem", "Equivalent")],
        "i2": [
            ("Perfect", "Completely Different"),
            ("Perfect", "Significantly Different"),
            ("Perfect", "Equivalent"),
        ],
        "i3": [("Irredeemable", "Equivalent"), ("Major Problem", "Equivalent"), ("Perfect", "Equivalent")],
        "i4": [
            ("Awkward", "Ignorable Change"),
            ("Awkward", "Additional Info."),
            ("Irredeemable", "Equivalent"),
        ],
    }
    rows = {row.source: row for row in precision_by_source(sources, labels)}
    assert (rows["lex"].g, rows["lex"].m, rows["lex"].both) == (1.0, 0.5, 0.5)
    assert (rows["sys"].g, rows["sys"].m, rows["sys"].both) == (0.5, 1.0, 0.5)
    assert (rows[ALL_SOURCES].n_items, rows[ALL_SOURCES].g, rows[ALL_SOURCES].both) == (4, 0.75, 0.5)
    assert list(rows) == ["lex", "sys", ALL_SOURCES]


def test_unjudged_items_count_as_items_but_in_no_share():
    rows = precision_by_source({"a": "lex", "b": "lex"}, {"a": [("Perfect", None)]})
    (row,) = rows
    assert (row.n_items, row.n_g, row.g, row.m, row.both) == (2, 1, 1.0, None, None)


def test_labels_of_unknown_items_are_rejected():
    with pytest.raises(ValueError, match="without a candidate source: zz"):
        precision_by_source({"a": "lex"}, {"zz": [("Perfect", "Equivalent")]})


def test_kappa_bands_follow_landis_and_koch():
    """Landis & Koch 1977, p. 165: < 0.00 poor, 0.00–0.20 slight, 0.21–0.40 fair, 0.41–0.60 moderate,
    0.61–0.80 substantial, 0.81–1.00 almost perfect; each band's upper bound belongs to it."""
    values = (None, -0.1, 0.0, 0.1, 0.2, 0.21, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.804, 0.806, 0.81, 0.9, 1.0)
    assert [kappa_band(v) for v in values] == [
        "k-none",
        "k-poor",
        "k-slight",
        "k-slight",
        "k-slight",
        "k-fair",
        "k-fair",
        "k-fair",
        "k-moderate",
        "k-moderate",
        "k-substantial",
        "k-substantial",
        "k-substantial",
        "k-almost",
        "k-almost",
        "k-almost",
        "k-almost",
    ]


def test_lead_summary_reads_spec_keys_before_and_after():
    measures = {
        "fleiss.G5": {"value": 0.31, "n_items": 30},
        "fleiss.after.G5": {"value": 0.52, "n_items": 30},
        "fleiss.M2": {"value": None, "n_items": 0},
        "cohen.G2": {"value": 0.4, "by_pair": {"a|b": 0.4, "a|c": None}, "n_items": {"a|b": 10, "a|c": 0}},
        "cohen.after.G2": {
            "value": 0.6,
            "by_pair": {"a|b": 0.6, "a|c": 0.2},
            "n_items": {"a|b": 10, "a|c": 3},
        },
    }
    context = lead_summary_context(snapshot_measures({"report": {"measures": measures}}))
    g5 = context["fleiss_rows"][0]
    assert (g5["scale"], g5["before"], g5["after"], g5["band_after"]) == ("G5", 0.31, 0.52, "k-moderate")
    assert [row["scale"] for row in context["fleiss_rows"]] == ["G5", "M6", "G2", "M2"]
    pairs = {row["pair"]: row for row in context["cohen_rows"]}
    g2 = [c for c in pairs["a|b"]["cells"] if c["scale"] == "G2"]
    assert [(c["when"], c["value"], c["n"]) for c in g2] == [("before", 0.4, 10), ("after", 0.6, 10)]
    assert context["has_measures"]
    assert not lead_summary_context(None)["has_measures"]
