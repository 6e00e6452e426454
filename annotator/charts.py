"""Server-side charts for the agreement dashboard: heatmaps as coloured tables, trends as inline SVG.

Pure functions over plain values (no Django models). `heatmap` returns the rows a template renders
as a `<table>`; `trend_svg` returns a complete `<svg>` element (escaped text, axes, labels, one
`<title>` tooltip per point) that needs no JavaScript.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape

from django.utils.safestring import SafeString, mark_safe

# Low → high agreement: a light grey-blue to the workbench accent; calm, and readable in print.
LOW_RGB = (243, 246, 251)
HIGH_RGB = (47, 95, 208)
#: Line colours of the trend series (colour-blind-safe Tableau subset).
SERIES_COLOURS = ("#2f5fd0", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#9c755f")


@dataclass(frozen=True)
class Cell:
    value: float | None
    background: str
    colour: str
    title: str

    @property
    def text(self) -> str:
        return "—" if self.value is None else f"{self.value:.2f}"


def colour_for(value: float | None, *, low: float = 0.0, high: float = 1.0) -> tuple[str, str]:
    """(background, text colour) for a value on [low, high]; undefined values are hatched grey."""
    if value is None:
        return "#eceef2", "#5d6678"
    t = 0.0 if high == low else min(1.0, max(0.0, (value - low) / (high - low)))
    rgb = tuple(round(lo + t * (hi - lo)) for lo, hi in zip(LOW_RGB, HIGH_RGB, strict=True))
    background = "#{:02x}{:02x}{:02x}".format(*rgb)
    # whichever of white and black reads better; on any background one of them reaches WCAG's 4.5:1
    white, black = contrast_ratio(background, "#ffffff"), contrast_ratio(background, "#000000")
    return background, "#ffffff" if white >= black else "#000000"


def _luminance(colour: str) -> float:
    """WCAG 2 relative luminance of an #rrggbb colour."""
    channels = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio (L1 + 0.05) / (L2 + 0.05) of two #rrggbb colours, from 1 to 21."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def heatmap(
    names: Sequence[str], by_pair: dict[str, float | None], *, label: str, low: float = 0.0, high: float = 1.0
) -> list[tuple[str, list[Cell | None]]]:
    """Rows `(name, cells)` of a symmetric annotator × annotator table from `{"a|b": value}`.

    The diagonal is `None` (an annotator against themself is not measured); a missing pair is an
    undefined cell. `label` names the measure in each cell's tooltip.
    """
    rows: list[tuple[str, list[Cell | None]]] = []
    for a in names:
        cells: list[Cell | None] = []
        for b in names:
            if a == b:
                cells.append(None)
                continue
            value = by_pair.get(f"{a}|{b}", by_pair.get(f"{b}|{a}"))
            background, colour = colour_for(value, low=low, high=high)
            shown = "undefined" if value is None else f"{value:.3f}"
            cells.append(Cell(value, background, colour, f"{label} {a}–{b}: {shown}"))
        rows.append((a, cells))
    return rows


@dataclass(frozen=True)
class Series:
    name: str
    points: Sequence[tuple[datetime, float | None]]


def _nice_time(moment: datetime, span_seconds: float) -> str:
    if span_seconds < 86400:
        return moment.strftime("%H:%M:%S") if span_seconds < 600 else moment.strftime("%H:%M")
    return moment.strftime("%d %b %H:%M")


def trend_svg(
    series: Sequence[Series],
    *,
    width: int = 640,
    height: int = 220,
    title: str = "Agreement over time",
    y_min: float | None = None,
    y_max: float = 1.0,
) -> SafeString:
    """An inline SVG line chart of `series` over time with y and time axes, a legend and tooltips.

    Undefined values break a line. The y axis spans [min(0, lowest value), `y_max`] unless `y_min`
    is given. With no defined value the chart says so instead of drawing empty axes.
    """
    defined = [(t, v) for s in series for t, v in s.points if v is not None]
    esc_title = escape(title)
    if not defined:
        return mark_safe(
            f'<svg class="trend" role="img" viewBox="0 0 {width} 60" width="100%" aria-label="{esc_title}">'
            f'<title>{esc_title}</title><text x="8" y="34" class="empty">No snapshots with values yet.</text></svg>'
        )
    lo = y_min if y_min is not None else min(0.0, min(v for _, v in defined))
    hi = max(y_max, max(v for _, v in defined))
    t0 = min(t for t, _ in defined).timestamp()
    t1 = max(t for t, _ in defined).timestamp()
    span = t1 - t0
    left, right, top, bottom = 44, 12, 12, 58
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(moment: datetime) -> float:
        return left + (plot_w / 2 if span == 0 else plot_w * (moment.timestamp() - t0) / span)

    def y(value: float) -> float:
        return top + plot_h * (1 - (value - lo) / (hi - lo))

    parts = [
        f'<svg class="trend" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'preserveAspectRatio="xMidYMid meet" aria-label="{esc_title}"><title>{esc_title}</title>'
    ]
    steps = 4
    for k in range(steps + 1):
        value = lo + (hi - lo) * k / steps
        yy = y(value)
        parts.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{yy:.1f}" y2="{yy:.1f}"/>')
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{value:.2f}</text>'
        )
    axis_y = top + plot_h
    parts.append(f'<line class="axis" x1="{left}" x2="{width - right}" y1="{axis_y}" y2="{axis_y}"/>')
    parts.append(f'<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{axis_y}"/>')
    moments = sorted({t for t, _ in defined})
    ticks = [moments[0]] if span == 0 else [moments[0], moments[len(moments) // 2], moments[-1]]
    shown: set[str] = set()
    for n, moment in enumerate(dict.fromkeys(ticks)):
        if _nice_time(moment, span) in shown:
            continue
        shown.add(_nice_time(moment, span))
        anchor = "start" if n == 0 and span else ("end" if moment == moments[-1] and span else "middle")
        parts.append(
            f'<text class="tick" x="{x(moment):.1f}" y="{axis_y + 16}" text-anchor="{anchor}">'
            f"{escape(_nice_time(moment, span))}</text>"
        )
    for n, s in enumerate(series):
        colour = SERIES_COLOURS[n % len(SERIES_COLOURS)]
        name = escape(s.name)
        segment: list[str] = []
        segments: list[list[str]] = [segment]
        for moment, value in s.points:
            if value is None:
                segment = []
                segments.append(segment)
                continue
            segment.append(f"{x(moment):.1f},{y(value):.1f}")
        for seg in segments:
            if len(seg) > 1:
                parts.append(
                    f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(seg)}"/>'
                )
        for moment, value in s.points:
            if value is None:
                continue
            stamp = moment.strftime("%Y-%m-%d %H:%M:%S")
            parts.append(
                f'<circle cx="{x(moment):.1f}" cy="{y(value):.1f}" r="3" fill="{colour}">'
                f"<title>{name}: {value:.3f} at {stamp}</title></circle>"
            )
        lx = left + 8 + (n % 4) * ((width - left - right) // 4)
        ly = height - 22 + 14 * (n // 4)
        parts.append(f'<rect x="{lx}" y="{ly - 8}" width="10" height="10" rx="2" fill="{colour}"/>')
        parts.append(f'<text class="legend" x="{lx + 14}" y="{ly + 1}">{name}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))
