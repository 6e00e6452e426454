"""Formatting of agreement numbers on the dashboard (undefined values shown as an em dash)."""

from __future__ import annotations

import re
from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotator.dashboard.measure_docs import anchor_for

register = template.Library()


@register.filter
def num(value: Any, digits: int = 3) -> str:
    """A measure with `digits` decimals; undefined (None) → "—"."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    return f"{float(value):.{int(digits)}f}"


HAT = "\u0302"  # combining circumflex: π̂ is π followed by it


@register.filter
def hats(html: str) -> SafeString:
    """Rendered HTML with each letter + combining circumflex (π̂) drawn as the letter under a hat that
    sits centred over it; fonts place the combining mark beside a Greek letter, not over it."""
    return mark_safe(re.sub(f"(\\w){HAT}", r'<span class="hat">\1</span>', str(html)))


@register.filter
def interval(value: Any) -> str:
    """A 95 % confidence interval `[lo, hi]` as "0.61–0.72"; nothing when absent."""
    if not value:
        return ""
    lo, hi = value
    return f"{lo:.2f}–{hi:.2f}"


@register.filter
def pairname(value: str) -> str:
    """An annotator pair key "a|b" as "a – b"."""
    return " – ".join(str(value).split("|"))


@register.filter
def duration(seconds: Any) -> str:
    """Seconds as "1 h 05 min", "12 min", "40 s"."""
    seconds = int(seconds or 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


@register.filter
def percent_of(part: Any, whole: Any) -> int:
    whole = int(whole or 0)
    return round(100 * int(part or 0) / whole) if whole else 0


@register.filter
def level(value: Any) -> str:
    """A CSS class for a value on [0, 1]: low / mid / high agreement (undefined: none)."""
    if value is None:
        return "undef"
    value = float(value)
    return "low" if value < 0.4 else ("mid" if value < 0.7 else "high")


@register.filter
def explain(measure_key: str) -> SafeString:
    """A "?" link to the measure's section of docs/measures.md (nothing for an unknown measure)."""

    anchor = anchor_for(str(measure_key))
    if anchor is None:
        return mark_safe("")
    url = reverse("annotator:measure-explanation", args=[anchor])
    return mark_safe(
        f'<a class="explain" href="{escape(url)}" target="_blank" rel="noopener" '
        f'title="What this measures, its range, where it comes from, when it is undefined">?</a>'
    )


@register.filter
def measure(label: str) -> SafeString:
    """A measure name as written in the papers: "agr_w^p,t" → agr<sub>w</sub><sup>p,t</sup>."""
    base, _, sup = str(label).partition("^")
    name, _, sub = base.partition("_")
    html: str = escape(name)
    if sub:
        html += f"<sub>{escape(sub)}</sub>"
    if sup:
        html += f"<sup>{escape(sup)}</sup>"
    return mark_safe(html)
