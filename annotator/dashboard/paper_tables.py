"""The statistics panel: the corpus statistics of `annotator.agreement.statistics` as the rows and
server-rendered SVG charts the template draws, each table naming the paper table it mirrors.

- Vila et al. 2015, Table 3 (pairs, phenomena per pair and per word over the pairs that carry
  phenomena, for the corpus and by annotator);
- Vila et al. 2015, Table 4 (relative frequency and average scope length per type, Pearson's r between
  annotators) — with the type distribution as a bar chart;
- ETPC (Kovatchev et al.), per-type counts per sense-preserving layer;
- Arase & Tsujii 2018 (SPADE), Table 1 (a column per split: pairs, tokens, types, phrases,
  alignments in the union and the intersection, agreement rate);
- Cohn et al. 2008, Fig. 4 (π̂, π̂0, κ_C binned by the shorter sentence's length) — as a line chart.

Pure functions over plain values (no models), like `annotator.dashboard.charts`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from annotator.dashboard.charts import SERIES_COLOURS, y_grid

Stats = Mapping[str, Any]


def statistics_tables(stats: Stats) -> dict[str, Any]:
    """Everything the statistics panel shows (absent tables are None)."""
    out: dict[str, Any] = {"imports": stats.get("imports")}
    if "vila_table3" in stats:
        t3 = stats["vila_table3"]
        out["table3"] = {
            "mirrors": t3["mirrors"],
            "corpus": t3.get("corpus"),
            "rows": sorted(t3["by_annotator"].items()),
        }
    if "vila_table4" in stats:
        out["table4"] = _table4(stats["vila_table4"])
        out["type_chart"] = type_distribution_svg(stats["vila_table4"])
    if "etpc_types_by_sense" in stats:
        out["etpc"] = _etpc(stats["etpc_types_by_sense"])
    if "spade_table1" in stats:
        t1 = stats["spade_table1"]
        out["spade"] = _spade(t1)
    if "cohn_fig4" in stats:
        fig = stats["cohn_fig4"]
        out["cohn"] = {"mirrors": fig["mirrors"], "bins": fig["bins"], "bin_width": fig["bin_width"]}
        out["cohn_chart"] = cohn_fig4_svg(fig)
    return out


SPADE_ROWS = (
    ("pairs", "sentence pairs"),
    ("tokens", "tokens"),
    ("types", "types (word forms)"),
    ("phrases", "phrases (without single tokens)"),
)
SPADE_ALIGNMENTS = (("phrase", "phrase ↔ phrase"), ("null", "to null"), ("all", "all"))


def _spade(t1: Stats) -> dict[str, Any]:
    """SPADE's Table 1: one column per split; rows the corpus counts, then per kind of alignment each
    annotator's, the union, the intersection and the agreement rate."""
    columns = t1.get("columns") or {"all": {kind: t1[kind] for kind, _ in SPADE_ALIGNMENTS}}
    names = list(columns)
    rows: list[dict[str, Any]] = [
        {"label": label, "cells": [columns[c].get(key) for c in names], "rate": False}
        for key, label in SPADE_ROWS
        if all(key in columns[c] for c in names)
    ]
    for kind, label in SPADE_ALIGNMENTS:
        for a in t1["annotators"]:
            rows.append(
                {
                    "label": f"{label}: {a}",
                    "cells": [columns[c][kind]["by_annotator"][a] for c in names],
                    "rate": False,
                }
            )
        for part in ("union", "intersection"):
            rows.append(
                {"label": f"{label}: {part}", "cells": [columns[c][kind][part] for c in names], "rate": False}
            )
        rows.append(
            {
                "label": f"{label}: agreement rate",
                "cells": [columns[c][kind]["agreement_rate"] for c in names],
                "rate": True,
            }
        )
    return {"mirrors": t1["mirrors"], "columns": names, "rows": rows}


def _percent(value: float | None) -> float | None:
    return None if value is None else 100 * value


def _table4(t4: Stats) -> dict[str, Any]:
    annotators = sorted({a for row in t4["by_type"].values() for a in row})
    rows = [
        {
            "type": name,
            "cells": [
                {**row.get(a, {}), "percent": _percent(row.get(a, {}).get("relative_frequency"))}
                for a in annotators
            ],
        }
        for name, row in t4["by_type"].items()
        if any(cell.get("count") for cell in row.values())
    ]
    return {
        "mirrors": t4["mirrors"],
        "annotators": annotators,
        "rows": rows,
        "pearson": sorted(t4["pearson_by_pair"].items()),
    }


def _etpc(table: Stats) -> dict[str, Any]:
    annotators = sorted(table["total"])
    rows = [
        {"type": name, "cells": [row[a] for a in annotators]}
        for name, row in table["by_type"].items()
        if any(sum(cell.values()) for cell in row.values())
    ]
    return {
        "mirrors": table["mirrors"],
        "annotators": annotators,
        "rows": rows,
        "total": [table["total"][a] for a in annotators],
    }


def _svg_open(width: int, height: int, title: str, css: str) -> list[str]:
    t = escape(title)
    return [
        f'<svg class="{css}" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'preserveAspectRatio="xMidYMid meet" aria-label="{t}"><title>{t}</title>'
    ]


def _legend(parts: list[str], names: Sequence[str], x0: int, y: int) -> None:
    x = x0
    for n, name in enumerate(names):
        colour = SERIES_COLOURS[n % len(SERIES_COLOURS)]
        parts.append(f'<rect x="{x}" y="{y - 8}" width="10" height="10" rx="2" fill="{colour}"/>')
        parts.append(f'<text class="legend" x="{x + 14}" y="{y + 1}">{escape(name)}</text>')
        x += 24 + 7 * len(name)


def type_distribution_svg(t4: Stats, *, width: int = 640, bar_h: int = 12) -> SafeString:
    """Vila Table 4's relative frequency per type as horizontal bars, one per annotator, most frequent
    type first (types nobody used are left out)."""
    by_type = t4["by_type"]
    annotators = sorted({a for row in by_type.values() for a in row})
    used = [(name, row) for name, row in by_type.items() if any((c.get("count") or 0) for c in row.values())]
    title = "Type distribution (Vila et al. 2015, Table 4: relative frequency)"
    if not used:
        return mark_safe(
            f'<svg class="stats-chart" role="img" viewBox="0 0 {width} 40" width="100%" aria-label="{escape(title)}">'
            f'<title>{escape(title)}</title><text x="8" y="24" class="empty">No phenomena yet.</text></svg>'
        )
    used.sort(key=lambda item: -max((c.get("relative_frequency") or 0.0) for c in item[1].values()))
    top_value = max((c.get("relative_frequency") or 0.0) for _, row in used for c in row.values()) or 1.0
    label_w, right, top = 190, 50, 8
    group_h = bar_h * len(annotators) + 6
    height = top + group_h * len(used) + 30
    plot_w = width - label_w - right
    parts = _svg_open(width, height, title, "stats-chart")
    for k, (name, row) in enumerate(used):
        y0 = top + k * group_h
        short = name if len(name) <= 28 else name[:27] + "…"
        parts.append(
            f'<text class="tick" x="{label_w - 6}" y="{y0 + group_h / 2 + 2:.1f}" text-anchor="end">'
            f"{escape(short)}<title>{escape(name)}</title></text>"
        )
        for n, a in enumerate(annotators):
            cell = row.get(a, {})
            value = cell.get("relative_frequency") or 0.0
            w = plot_w * value / top_value
            colour = SERIES_COLOURS[n % len(SERIES_COLOURS)]
            parts.append(
                f'<rect x="{label_w}" y="{y0 + n * bar_h}" width="{w:.1f}" height="{bar_h - 2}" fill="{colour}">'
                f"<title>{escape(name)} · {escape(a)}: {value:.1%} ({cell.get('count', 0)} phenomena)</title></rect>"
            )
    axis_y = top + group_h * len(used)
    parts.append(f'<line class="axis" x1="{label_w}" x2="{label_w}" y1="{top}" y2="{axis_y}"/>')
    parts.append(
        f'<text class="tick" x="{label_w + plot_w}" y="{axis_y + 12}" text-anchor="end">{top_value:.0%}</text>'
    )
    _legend(parts, annotators, label_w, axis_y + 24)
    parts.append("</svg>")
    return mark_safe("".join(parts))


COHN_SERIES = (("pi_hat", "π̂ (observed)"), ("pi0", "π̂0 (chance)"), ("kappa_c", "κ_C"))


def cohn_fig4_svg(fig: Stats, *, width: int = 640, height: int = 240) -> SafeString:
    """Cohn et al. Fig. 4: π̂, π̂0 and κ_C (mean over annotator pairs) per bin of the shorter
    sentence's length, as three lines over the bins; undefined values break a line."""
    bins = fig["bins"]
    title = "Cohn et al. 2008, Fig. 4: agreement by the shorter sentence's length"
    values = [b[key]["value"] for b in bins for key, _ in COHN_SERIES if b[key]["value"] is not None]
    if not values:
        return mark_safe(
            f'<svg class="stats-chart" role="img" viewBox="0 0 {width} 40" width="100%" aria-label="{escape(title)}">'
            f'<title>{escape(title)}</title><text x="8" y="24" class="empty">No word alignments yet.</text></svg>'
        )
    lo, hi = min(0.0, min(values)), max(1.0, max(values))
    left, right, top, bottom = 44, 12, 12, 56
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(k: int) -> float:
        return left + (plot_w / 2 if len(bins) == 1 else plot_w * k / (len(bins) - 1))

    def y(value: float) -> float:
        return top + plot_h * (1 - (value - lo) / (hi - lo))

    parts = _svg_open(width, height, title, "stats-chart")
    parts += y_grid(lo, hi, y, left=left, right=width - right)
    axis_y = top + plot_h
    parts.append(f'<line class="axis" x1="{left}" x2="{width - right}" y1="{axis_y}" y2="{axis_y}"/>')
    for k, b in enumerate(bins):
        lo_len, hi_len = b["shorter_length"]
        parts.append(
            f'<text class="tick" x="{x(k):.1f}" y="{axis_y + 14}" text-anchor="middle">{lo_len}–{hi_len}</text>'
        )
    parts.append(
        f'<text class="tick" x="{left + plot_w / 2:.1f}" y="{axis_y + 28}" text-anchor="middle">'
        "length of the shorter sentence (tokens)</text>"
    )
    for n, (key, label) in enumerate(COHN_SERIES):
        parts += _cohn_series(bins, key, label, SERIES_COLOURS[n], x, y)
    _legend(parts, [label for _, label in COHN_SERIES], left + 8, height - 10)
    parts.append("</svg>")
    return mark_safe("".join(parts))


def _cohn_series(
    bins: list[Any],
    key: str,
    label: str,
    colour: str,
    x: Callable[[int], float],
    y: Callable[[float], float],
) -> list[str]:
    """One measure of Fig. 4 over the length bins: a point with a tooltip per defined value, and a
    line through each run of defined values."""
    parts = []
    segments: list[list[str]] = [[]]
    for k, b in enumerate(bins):
        value = b[key]["value"]
        if value is None:
            segments.append([])
            continue
        segments[-1].append(f"{x(k):.1f},{y(value):.1f}")
        items = sum((b.get("n_items") or {}).values())
        parts.append(
            f'<circle cx="{x(k):.1f}" cy="{y(value):.1f}" r="3" fill="{colour}"><title>{escape(label)}, '
            f"shorter length {b['shorter_length'][0]}–{b['shorter_length'][1]}: {value:.3f} "
            f"({items} items over annotator pairs)</title></circle>"
        )
    parts += [
        f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(seg)}"/>'
        for seg in segments
        if len(seg) > 1
    ]
    return parts
