"""Fujita's Fig. 3 chart: a curve per lexicon, dashed after re-evaluation, undefined points left out."""

from annotator.evaluation.lexicon_chart import threshold_svg
from annotator.evaluation.lexicons import ThresholdPoint


def point(t: float, g: float | None, n: int = 4) -> ThresholdPoint:
    return ThresholdPoint(t, n, g, g, g, n, n, n)


def test_one_curve_per_lexicon_and_run_with_a_tooltip_per_defined_point():
    before = {"A": [point(0.1, 0.5), point(0.5, 0.75), point(0.9, None)], "B<x>": [point(0.1, 1.0)]}
    after = {"A": [point(0.1, 0.6), point(0.9, 0.8)]}
    svg = str(threshold_svg(before, after, measure="g"))
    assert svg.count("<polyline") == 2  # A before, A after; B has one point only
    assert svg.count('stroke-dasharray="5 3"') == 1
    assert svg.count("<circle") == 5
    assert "A, before: score ≥ 0.5: precision 0.750 over 4 items" in svg
    assert "A, after re-evaluation: score ≥ 0.9: precision 0.800" in svg
    assert "B&lt;x&gt;" in svg and "B<x>" not in svg
    assert "solid: before, dashed: after re-evaluation" in svg


def test_no_defined_point_says_so():
    svg = str(threshold_svg({"A": [point(0.1, None)]}, measure="m"))
    assert "<polyline" not in svg and "No scored item has a" in svg
