"""Small template filters of the lead's tools (annotator pairs "a|b", agreement colour classes)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from annotator.annotation.bidi import plain_bidi, visible_bidi

register = template.Library()


@register.filter
def pair_names(key: str) -> str:
    """ "anna|ben" → "anna & ben"."""
    return " & ".join(str(key).split("|"))


@register.filter
def pair_initials(key: str) -> str:
    """ "anna|ben" → "A–B" (compact chip label; the full names are in the title)."""
    return "–".join(name[:1].upper() for name in str(key).split("|"))


@register.filter
def ab_query(key: str) -> str:
    a, _, b = str(key).partition("|")
    return urlencode({"a": a, "b": b})


@register.filter
def agreement_class(value: float | None) -> str:
    """Colour band of an agreement value in [0, 1]: low < 0.5 ≤ mid < 0.8 ≤ high."""
    if value is None:
        return "lt-none"
    if value < 0.5:
        return "lt-lo"
    return "lt-mid" if value < 0.8 else "lt-hi"


@register.filter
def get(mapping: Any, key: Any) -> Any:
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def percent(value: float | None) -> int:
    return 0 if value is None else max(0, min(100, round(100 * value)))


@register.filter
def pack(first: Any, second: Any) -> list[Any]:
    """`a|pack:b` → [a, b], to loop over two columns with one cell template."""
    return [first, second]


@register.filter
def pick_token(tokens: list[tuple[int, str]], j: int) -> str:
    return tokens[j][1] if 0 <= j < len(tokens) else ""


@register.simple_tag
def delta(
    before: float | None, after: float | None, lower_is_better: bool = False, integer: bool = False
) -> Any:
    """The change from `before` to `after`, signed and coloured (green = better)."""

    if before is None or after is None:
        return "—"
    change = after - before
    if abs(change) < 1e-12:
        return mark_safe('<span class="lt-delta">±0</span>')
    better = change < 0 if lower_is_better else change > 0
    text = f"{change:+d}" if integer else f"{change:+.3f}"
    return format_html('<span class="lt-delta {}">{}</span>', "lt-better" if better else "lt-worse", text)


@register.filter
def span_text(indices: list[int], tokens: list[str]) -> str:
    """Token indices → their words, "…" between gaps: [0, 1, 4] → "The film … Friday"."""
    out: list[str] = []
    previous = None
    for n in sorted(indices or []):
        if previous is not None and n != previous + 1:
            out.append("…")
        if 0 <= n < len(tokens):
            out.append(tokens[n])
        previous = n
    return " ".join(out) or "∅"


@register.filter
def join_ints(indices: list[int]) -> str:
    return " ".join(str(n) for n in indices or [])


def _node_text(pair: Any, member: int, index: int | None) -> str:
    if index is None:
        return "∅"
    nodes = pair.nodes1 if member == 1 else pair.nodes2
    tokens = pair.tokens1 if member == 1 else pair.tokens2
    if not 0 <= index < len(nodes):
        return f"node {index}"
    node = nodes[index]
    return f"{node['label']}: " + " ".join(tokens[node["start"] : node["end"]])


@register.filter
def phrase_text(alignment: Any, pair: Any) -> str:
    """A phrase alignment as "NP: the film ↔ NP: Film" (∅ = aligned to nothing)."""
    return f"{_node_text(pair, 1, alignment.node1)} ↔ {_node_text(pair, 2, alignment.node2)}"


@register.filter
def pick_word(tokens: list[str], index: int) -> str:
    return tokens[index] if 0 <= index < len(tokens) else "?"


@register.filter
def rid(pk: int, prefix: str) -> str:
    """Row id used to mark rows already in gold: 12|rid:"p" → "p12"."""
    return f"{prefix}{pk}"


@register.filter
def show_bidi(text: Any) -> str:
    """The text escaped, with bidirectional control characters shown as ⟨U+202E⟩ (see annotation.bidi)."""
    return visible_bidi("" if text is None else str(text))


@register.filter
def bidi_plain(text: Any) -> str:
    """For attributes and SVG text: bidirectional controls replaced by the plain text ⟨U+202E⟩."""
    return plain_bidi("" if text is None else str(text))


# A pair's label as people read it; "Not a paraphrase" keeps the pair label apart from the phenomenon
# type that Vila et al.'s typology names "Non-paraphrase".
PAIR_LABELS = {"paraphrase": "Paraphrase", "non_paraphrase": "Not a paraphrase"}


@register.filter
def pair_label(value: str | None) -> str:
    """The display name of a stored pair label ("non_paraphrase" → "Not a paraphrase"; empty → "—")."""
    return PAIR_LABELS.get(value or "", value or "—")
