"""annotator.dashboard.charts: heatmap cells and the inline SVG trend chart."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from xml.etree import ElementTree

from annotator.dashboard import charts


def test_colour_scale_runs_from_light_to_accent_and_undefined_is_grey():
    assert charts.colour_for(0.0) == ("#f3f6fb", "#000000")
    assert charts.colour_for(1.0) == ("#2f5fd0", "#ffffff")
    assert charts.colour_for(None)[0] == "#eceef2"
    assert charts.colour_for(7.0) == charts.colour_for(1.0)  # clipped


def test_cell_text_reaches_wcag_contrast_on_every_value():
    for step in range(101):
        background, text = charts.colour_for(step / 100)
        assert charts.contrast_ratio(background, text) >= 4.5, (step, background, text)
    assert round(charts.contrast_ratio("#ffffff", "#000000"), 1) == 21.0


def test_heatmap_is_symmetric_with_empty_diagonal_and_tooltips():
    rows = charts.heatmap(["a", "b", "c"], {"a|b": 0.5, "a|c": None}, label="DO F1")
    assert [name for name, _ in rows] == ["a", "b", "c"]
    (_, row_a), (_, row_b), (_, row_c) = rows
    assert row_a[0] is None and row_b[1] is None
    assert row_a[1].value == row_b[0].value == 0.5
    assert row_a[1].title == "DO F1 a–b: 0.500" and row_a[1].text == "0.50"
    assert row_a[2].value is None and row_a[2].text == "—" and "undefined" in row_a[2].title
    assert row_b[2].value is None  # b|c missing: undefined


def series(values):
    start = datetime(2026, 1, 1, 12, tzinfo=UTC)
    return [(start + timedelta(minutes=n), v) for n, v in enumerate(values)]


def test_trend_svg_is_wellformed_with_axes_labels_and_tooltips():
    svg = charts.trend_svg(
        [
            charts.Series("DO F1", series([0.5, 0.6, None, 0.7])),
            charts.Series("κ <C>", series([0.1, 0.2, 0.3, 0.4])),
        ]
    )
    root = ElementTree.fromstring(str(svg))
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag in ("svg", f"{ns}svg")
    titles = [t.text for t in root.iter() if t.tag.endswith("title")]
    assert titles[0] == "Agreement over time"
    assert "DO F1: 0.700 at 2026-01-01 12:03:00" in titles
    assert "κ <C>: 0.100 at 2026-01-01 12:00:00" in titles  # escaped in the markup, intact as text
    assert len([e for e in root.iter() if e.tag.endswith("circle")]) == 7  # None draws no point
    # the undefined value breaks the DO F1 line into two pieces: one of two points, one single point
    polylines = [e.get("points") for e in root.iter() if e.tag.endswith("polyline")]
    assert len(polylines) == 2
    ticks = [t.text for t in root.iter() if t.tag.endswith("text") and t.get("class") == "tick"]
    assert "0.00" in ticks and "1.00" in ticks and "12:00:00" in ticks and "12:03:00" in ticks


def test_trend_y_axis_extends_below_zero_for_negative_kappa():
    svg = str(charts.trend_svg([charts.Series("κ", series([-0.5, 0.5]))]))
    assert ">-0.50<" in svg


def test_trend_without_values_says_so():
    svg = str(charts.trend_svg([charts.Series("DO F1", series([None, None]))]))
    assert "No snapshots with values yet." in svg and "<polyline" not in svg


def test_single_snapshot_is_centred_point():
    svg = str(charts.trend_svg([charts.Series("DO F1", series([0.8]))]))
    assert len(re.findall("<circle", svg)) == 1
