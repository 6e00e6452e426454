"""Treebank escapes are displayed as the characters they stand for; the stored token is unchanged."""

from annotator.annotation.state import Token, scope_text, tokens_html
from annotator.annotation.token_display import display_token, display_tokens


def test_treebank_quotes_and_brackets_show_as_characters():
    assert display_tokens(["``", "Hi", "''", "-LRB-", "x", "-RRB-", "`", "'s"]) == [
        "“",
        "Hi",
        "”",
        "(",
        "x",
        ")",
        "‘",
        "'s",
    ]


def test_plain_tokens_are_unchanged():
    assert display_token('"') == '"' and display_token("LRB") == "LRB"


def test_token_strip_shows_the_character_and_keeps_value_and_index_on_hover():
    html = tokens_html([Token(0, "``"), Token(1, "Hi")])
    assert ">“<" in html and 'title="0 · ``"' in html and 'data-i="0"' in html
    assert 'title="1 · Hi"' in html


def test_scope_text_reads_as_the_sentence():
    assert scope_text(["``", "Hi", "''"], [0, 1, 2]) == "“ Hi ”"
