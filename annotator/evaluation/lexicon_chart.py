"""Fujita's Fig. 3 as inline SVG: precision (G and M both OK, by majority) of each lexicon's items
whose score is at least a threshold, against the threshold. No JavaScript; one tooltip per point."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from django.utils.safestring import SafeString, mark_safe

from annotator.evaluation.lexicons import ThresholdPoint

COLOURS = ("#2f5fd0", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#9c755f")
TITLE = "Precision against the score threshold (Fujita et al., Fig. 3)"


def threshold_svg(
    series: Mapping[str, Sequence[ThresholdPoint]], *, width: int = 640, height: int = 260
) -> SafeString:
    """One line per lexicon: x = score threshold t, y = precision of its judged items with score ≥ t."""
    points = [(p.threshold, p.precision) for pts in series.values() for p in pts if p.precision is not None]
    if not points:
        return mark_safe(
            f'<svg class="stats-chart" role="img" viewBox="0 0 {width} 40" width="100%" aria-label="{escape(TITLE)}">'
            f"<title>{escape(TITLE)}</title>"
            '<text x="8" y="24" class="empty">No scored item has both a grammaticality and a meaning majority yet.</text></svg>'
        )
    x_lo, x_hi = min(t for t, _ in points), max(t for t, _ in points)
    left, right, top, bottom = 44, 16, 12, 56
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(t: float) -> float:
        return left + (plot_w / 2 if x_hi == x_lo else plot_w * (t - x_lo) / (x_hi - x_lo))

    def y(v: float) -> float:
        return top + plot_h * (1 - v)

    parts = [
        f'<svg class="stats-chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'preserveAspectRatio="xMidYMid meet" aria-label="{escape(TITLE)}"><title>{escape(TITLE)}</title>'
    ]
    for k in range(5):
        v = k / 4
        parts.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>')
        parts.append(f'<text class="tick" x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
    axis_y = top + plot_h
    parts.append(f'<line class="axis" x1="{left}" x2="{width - right}" y1="{axis_y}" y2="{axis_y}"/>')
    for t in sorted({x_lo, (x_lo + x_hi) / 2, x_hi}):
        parts.append(f'<text class="tick" x="{x(t):.1f}" y="{axis_y + 14}" text-anchor="middle">{t:g}</text>')
    parts.append(
        f'<text class="tick" x="{left + plot_w / 2:.1f}" y="{axis_y + 28}" text-anchor="middle">'
        "score threshold (items with score ≥ threshold)</text>"
    )
    lx = left + 8
    for n, (name, pts) in enumerate(series.items()):
        colour = COLOURS[n % len(COLOURS)]
        coords = [(p, x(p.threshold), y(p.precision)) for p in pts if p.precision is not None]
        if len(coords) > 1:
            path = " ".join(f"{cx:.1f},{cy:.1f}" for _, cx, cy in coords)
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for p, cx, cy in coords:
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="{colour}"><title>{escape(name)}: score ≥ {p.threshold:g}: '
                f"precision {p.precision:.3f} over {p.n_items} items</title></circle>"
            )
        parts.append(f'<rect x="{lx}" y="{height - 18}" width="10" height="10" rx="2" fill="{colour}"/>')
        parts.append(f'<text class="legend" x="{lx + 14}" y="{height - 9}">{escape(name)}</text>')
        lx += 30 + 7 * len(name)
    parts.append("</svg>")
    return mark_safe("".join(parts))
