"""Bidirectional control characters made visible, so a token cannot reorder what the reader sees.

A right-to-left override (U+202E) inside a token displays `‮evil‬` as "live"; the explorer and the
editor show every such character as a marked code point (`⟨U+202E⟩`) instead, so the stored text
is what is seen. The text itself is never changed (annotations refer to the tokens as imported).
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# LRE RLE PDF LRO RLO, LRI RLI FSI PDI, LRM RLM, and the Arabic letter mark
BIDI_CONTROLS = frozenset(
    [*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A)), "\u200e", "\u200f", "\u061c"]
)
_CONTROL = re.compile("[" + "".join(sorted(BIDI_CONTROLS)) + "]")


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def has_bidi_controls(text: str) -> bool:
    return bool(_CONTROL.search(text))


def visible_bidi(text: str) -> SafeString:
    """`text` escaped for HTML, each bidirectional control shown as `⟨U+202E⟩` in a marked span."""
    escaped = str(escape(text))
    if not has_bidi_controls(escaped):
        return mark_safe(escaped)
    return mark_safe(
        _CONTROL.sub(
            lambda m: (
                f'<span class="bidi-control" title="invisible bidirectional control character '
                f'{code_point(m.group())}">⟨{code_point(m.group())}⟩</span>'
            ),
            escaped,
        )
    )


def plain_bidi(text: str) -> str:
    """`text` with each bidirectional control replaced by `⟨U+202E⟩` (for attributes and SVG text)."""
    return _CONTROL.sub(lambda m: f"⟨{code_point(m.group())}⟩", text)
