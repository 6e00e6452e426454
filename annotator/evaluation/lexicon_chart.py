"""Fujita's Fig. 3 as inline SVG: one chart per measure (grammaticality, meaning, both OK by majority),
each with one line per lexicon and per union: precision of the items whose score is at least a
threshold, against the threshold; solid before re-evaluation, dashed after. No JavaScript; one
tooltip per point."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape

from django.utils.safestring import SafeString, mark_safe

from annotator.evaluation.lexicons import ThresholdPoint

COLOURS = ("#2f5fd0", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#9c755f")
MEASURES = {"g": "grammaticality (G2 OK)", "m": "meaning (M2 OK)", "both": "G and M both OK"}


def threshold_charts(
    before: Mapping[str, Sequence[ThresholdPoint]], after: Mapping[str, Sequence[ThresholdPoint]] | None
) -> list[SafeString]:
    """Fig. 3 for G, M and both: one chart each."""
    return [threshold_svg(before, after, measure=measure) for measure in MEASURES]


def threshold_svg(
    before: Mapping[str, Sequence[ThresholdPoint]],
    after: Mapping[str, Sequence[ThresholdPoint]] | None = None,
    *,
    measure: str = "both",
    width: int = 640,
    height: int = 260,
) -> SafeString:
    """One line per lexicon or union: x = score threshold t, y = precision of `measure` over its judged
    items with score ≥ t; after re-evaluation dashed."""
    title = f"Precision of {MEASURES[measure]} against the score threshold (Fujita, Fig. 3)"
    runs = [("before", before, "")] + (
        [("after re-evaluation", after, ' stroke-dasharray="5 3"')] if after else []
    )
    points = [
        (p.threshold, value)
        for _, series, _ in runs
        for pts in series.values()
        for p in pts
        if (value := p.value(measure)) is not None
    ]
    if not points:
        return mark_safe(
            f'<svg class="stats-chart" role="img" viewBox="0 0 {width} 40" width="100%" aria-label="{escape(title)}">'
            f"<title>{escape(title)}</title>"
            f'<text x="8" y="24" class="empty">No scored item has a {escape(MEASURES[measure])} majority yet.</text></svg>'
        )
    x_lo, x_hi = min(t for t, _ in points), max(t for t, _ in points)
    left, right, top, bottom = 44, 16, 18, 56
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(t: float) -> float:
        return left + (plot_w / 2 if x_hi == x_lo else plot_w * (t - x_lo) / (x_hi - x_lo))

    def y(v: float) -> float:
        return top + plot_h * (1 - v)

    parts = [
        f'<svg class="stats-chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'preserveAspectRatio="xMidYMid meet" aria-label="{escape(title)}"><title>{escape(title)}</title>',
        f'<text class="legend" x="{left}" y="10">{escape(MEASURES[measure])}</text>',
    ]
    parts += _axes((x_lo, x_hi), x, y, left=left, right=width - right, axis_y=top + plot_h)
    lx = left + 8
    names = list(dict.fromkeys(name for _, series, _ in runs for name in series))
    for n, name in enumerate(names):
        colour = COLOURS[n % len(COLOURS)]
        for when, series, dash in runs:
            parts += _curve(series.get(name, ()), measure, x, y, colour, dash, f"{name}, {when}")
        parts.append(f'<rect x="{lx}" y="{height - 18}" width="10" height="10" rx="2" fill="{colour}"/>')
        parts.append(f'<text class="legend" x="{lx + 14}" y="{height - 9}">{escape(name)}</text>')
        lx += 30 + 7 * len(name)
    if after:
        parts.append(
            f'<text class="legend" x="{width - right}" y="{height - 9}" text-anchor="end">'
            "solid: before, dashed: after re-evaluation</text>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))


def _axes(
    x_range: tuple[float, float],
    x: Callable[[float], float],
    y: Callable[[float], float],
    *,
    left: int,
    right: int,
    axis_y: int,
) -> list[str]:
    """The precision grid (0 to 1 by quarters), the threshold axis with three ticks and its title."""
    parts = []
    for v in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>')
        parts.append(f'<text class="tick" x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
    parts.append(f'<line class="axis" x1="{left}" x2="{right}" y1="{axis_y}" y2="{axis_y}"/>')
    x_lo, x_hi = x_range
    for t in sorted({x_lo, (x_lo + x_hi) / 2, x_hi}):
        parts.append(f'<text class="tick" x="{x(t):.1f}" y="{axis_y + 14}" text-anchor="middle">{t:g}</text>')
    parts.append(
        f'<text class="tick" x="{(left + right) / 2:.1f}" y="{axis_y + 28}" text-anchor="middle">'
        "score threshold (items with score ≥ threshold)</text>"
    )
    return parts


def _curve(
    points: Sequence[ThresholdPoint],
    measure: str,
    x: Callable[[float], float],
    y: Callable[[float], float],
    colour: str,
    dash: str,
    label: str,
) -> list[str]:
    """One lexicon's precision curve (a line and a point with a tooltip per threshold)."""
    coords = [(p, x(p.threshold), y(val)) for p in points if (val := p.value(measure)) is not None]
    parts = []
    if len(coords) > 1:
        path = " ".join(f"{cx:.1f},{cy:.1f}" for _, cx, cy in coords)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{path}"/>')
    for p, cx, cy in coords:
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="{colour}"><title>{escape(label)}: '
            f"score ≥ {p.threshold:g}: precision {p.value(measure):.3f} over {p.n_items} items</title></circle>"
        )
    return parts
