"""How a token is shown: its original character instead of the Penn Treebank escape it is stored as.

Corpora tokenized the Treebank way (MRPC, ETPC) store an opening double quote as ``, a closing one as
'' and brackets as -LRB- / -RRB- …; annotators read the characters the sentence had. Only the display
changes: the token's value, its index and everything saved or exported keep the stored form.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Treebank escapes and the characters they stand for.
TREEBANK_DISPLAY = {
    "``": "“",
    "''": "”",
    "`": "‘",
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
}


def display_token(token: str) -> str:
    """The token as an annotator reads it: `display_token("``") == "“"`; other tokens unchanged."""
    return TREEBANK_DISPLAY.get(token, token)


def display_tokens(tokens: Sequence[str]) -> list[str]:
    return [TREEBANK_DISPLAY.get(token, token) for token in tokens]
