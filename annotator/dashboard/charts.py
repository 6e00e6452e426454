"""Server-side charts for the agreement dashboard: heatmaps as coloured tables, trends as inline SVG.

Pure functions over plain values (no Django models). `heatmap` returns the rows a template renders
as a `<table>`; `trend_svg` returns a complete `<svg>` element (escaped text, axes, labels, one
`<title>` tooltip per point) that needs no JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape

from django.utils.safestring import SafeString, mark_safe

# Low → high agreement: a light grey-blue to the workbench accent; calm, and readable in print.
LOW_RGB = (243, 246, 251)
HIGH_RGB = (47, 95, 208)
# Below zero (κ worse than chance) a diverging scale turns red, so κ = −0.10 is not coloured like 0.
NEGATIVE_RGB = (197, 48, 48)
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


def _mix(start: tuple[int, ...], end: tuple[int, ...], t: float) -> str:
    rgb = tuple(round(lo + t * (hi - lo)) for lo, hi in zip(start, end, strict=True))
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def colour_for(value: float | None, *, low: float = 0.0, high: float = 1.0) -> tuple[str, str]:
    """(background, text colour) for a value on [low, high]; undefined values are hatched grey.

    When the scale reaches below zero (κ measures: −1…1) it diverges at 0: 0 → 1 runs from the light
    grey-blue to the accent, 0 → −1 from the same light colour to red.
    """
    if value is None:
        return "#eceef2", "#5d6678"
    if low < 0 <= high and value < 0:
        background = _mix(LOW_RGB, NEGATIVE_RGB, min(1.0, value / low))
    else:
        start = 0.0 if low < 0 <= high else low
        t = 0.0 if high == start else min(1.0, max(0.0, (value - start) / (high - start)))
        background = _mix(LOW_RGB, HIGH_RGB, t)
    return background, _readable_on(background)


def _readable_on(background: str) -> str:
    """White or black, whichever reads better; on any background one of them reaches WCAG's 4.5:1."""
    white, black = contrast_ratio(background, "#ffffff"), contrast_ratio(background, "#000000")
    return "#ffffff" if white >= black else "#000000"


def legend(low: float, high: float) -> dict[str, object]:
    """The colour scale of a heatmap for its legend: a CSS gradient and the tick values under it."""
    if low < 0 <= high:
        zero = round(100 * (0 - low) / (high - low))
        gradient = (
            f"linear-gradient(to right, {_mix(LOW_RGB, NEGATIVE_RGB, 1)} 0%, {_mix(LOW_RGB, LOW_RGB, 0)} {zero}%, "
            f"{_mix(LOW_RGB, HIGH_RGB, 1)} 100%)"
        )
        ticks = [(0, low), (zero, 0.0), (100, high)]
    else:
        gradient = f"linear-gradient(to right, {_mix(LOW_RGB, HIGH_RGB, 0)}, {_mix(LOW_RGB, HIGH_RGB, 1)})"
        ticks = [(0, low), (100, high)]
    return {"gradient": gradient, "ticks": [(pos, f"{v:g}".replace("-", "−")) for pos, v in ticks]}


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


#: Width of one character of an axis label or legend entry (11 px sans-serif, generous), for layout.
CHAR_WIDTH = 7.0
LABEL_GAP = 10.0


def time_ticks(
    moments: Sequence[datetime], span: float, x: Callable[[datetime], float]
) -> list[tuple[float, str, str]]:
    """(x, text-anchor, text) of the time axis labels: first, last and middle moments, each kept only
    when its text is new and its box does not overlap a label already placed (so labels never collide,
    however the snapshots bunch together)."""
    if not moments:
        return []
    if span == 0:
        return [(x(moments[0]), "middle", _nice_time(moments[0], span))]
    candidates = [(moments[0], "start"), (moments[-1], "end"), (moments[len(moments) // 2], "middle")]
    placed: list[tuple[float, float]] = []
    out: list[tuple[float, str, str]] = []
    for moment, anchor in candidates:
        text = _nice_time(moment, span)
        width = CHAR_WIDTH * len(text)
        at = x(moment)
        box = {
            "start": (at, at + width),
            "end": (at - width, at),
            "middle": (at - width / 2, at + width / 2),
        }[anchor]
        if any(text == seen for _, _, seen in out) or any(
            box[0] < b + LABEL_GAP and a < box[1] + LABEL_GAP for a, b in placed
        ):
            continue
        placed.append(box)
        out.append((at, anchor, text))
    return sorted(out)


def legend_positions(
    names: Sequence[str], *, left: float, right: float, top: float
) -> list[tuple[float, float]]:
    """(x, y) of each legend entry (swatch + name), flowing left to right and wrapping before an entry
    would pass `right`, so entries never overlap whatever the names' lengths."""
    positions: list[tuple[float, float]] = []
    lx, ly = left, top
    for name in names:
        width = 14 + CHAR_WIDTH * len(name) + 16
        if positions and lx + width > right:
            lx, ly = left, ly + 14
        positions.append((lx, ly))
        lx += width
    return positions


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
    parts += y_grid(lo, hi, y, left=left, right=width - right)
    axis_y = top + plot_h
    parts.append(f'<line class="axis" x1="{left}" x2="{width - right}" y1="{axis_y}" y2="{axis_y}"/>')
    parts.append(f'<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{axis_y}"/>')
    for tick_x, anchor, text in time_ticks(sorted({t for t, _ in defined}), span, x):
        parts.append(
            f'<text class="tick" x="{tick_x:.1f}" y="{axis_y + 16}" text-anchor="{anchor}">{escape(text)}</text>'
        )
    legend_at = legend_positions(
        [s.name for s in series], left=left + 8, right=width - right, top=height - 22
    )
    for n, s in enumerate(series):
        colour = SERIES_COLOURS[n % len(SERIES_COLOURS)]
        name = escape(s.name)
        parts += _series_marks(s, colour, x, y)
        lx, ly = legend_at[n]
        parts.append(f'<rect x="{lx}" y="{ly - 8}" width="10" height="10" rx="2" fill="{colour}"/>')
        parts.append(f'<text class="legend" x="{lx + 14}" y="{ly + 1}">{name}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))


def y_grid(lo: float, hi: float, y: Callable[[float], float], *, left: int, right: int) -> list[str]:
    """Five horizontal grid lines from `lo` to `hi` with their values at the left."""
    parts = []
    steps = 4
    for k in range(steps + 1):
        level = lo + (hi - lo) * k / steps
        yy = y(level)
        parts.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{yy:.1f}" y2="{yy:.1f}"/>')
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{level:.2f}</text>'
        )
    return parts


def _series_marks(
    series: Series, colour: str, x: Callable[[datetime], float], y: Callable[[float], float]
) -> list[str]:
    """One series' line (broken where a value is undefined) and a point with a tooltip per value."""
    name = escape(series.name)
    segment: list[str] = []
    segments: list[list[str]] = [segment]
    for moment, value in series.points:
        if value is None:
            segment = []
            segments.append(segment)
            continue
        segment.append(f"{x(moment):.1f},{y(value):.1f}")
    parts = [
        f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(seg)}"/>'
        for seg in segments
        if len(seg) > 1
    ]
    for moment, value in series.points:
        if value is None:
            continue
        stamp = moment.strftime("%Y-%m-%d %H:%M:%S")
        parts.append(
            f'<circle cx="{x(moment):.1f}" cy="{y(value):.1f}" r="3" fill="{colour}">'
            f"<title>{name}: {value:.3f} at {stamp}</title></circle>"
        )
    return parts
