"""Word tokenization as ETPC did it: NLTK's Treebank-style `NLTKWordTokenizer`, without downloaded data.

ETPC's token indices (scopes and keys) point into `nltk.word_tokenize(sentence)`. That function first
splits the text into sentences with Punkt (which needs the downloaded `punkt_tab` model) and then runs
`NLTKWordTokenizer` on each sentence. We run `NLTKWordTokenizer` on the whole member instead
(`word_tokenize(text, preserve_line=True)`), so nothing has to be downloaded.

The one difference: where Punkt would have found a sentence boundary *inside* a member, `word_tokenize`
splits that sentence's final period off ("said. The" → "said", ".", "The") and we keep it attached
("said.", "The"), as the last sentence's period is the only one the Treebank rules split. In MRPC this
concerns about 200 of 11,602 members. Measured against ETPC's own relation texts, splitting at such
boundaries with a heuristic made matters worse (655 instead of 259 mismatching index lists), so ETPC's
2018 tokenization evidently kept most of them too; the ETPC importer repairs or reports the rest.

Speed: NLTK (3.10) runs every rule through its ReDoS guard (the third-party `regex` engine with a
timeout), about 200 µs per MRPC sentence. We take the *same* rules from `NLTKWordTokenizer`'s class
attributes, compile them with the standard `re` module, and skip a rule when the text lacks the
characters the rule needs to match at all (e.g. the `[?!]` rule on a text without "?" or "!"). Rules
we do not know (a future NLTK) always run. `tests/annotator/test_tokenize.py` checks that the result is
identical to `NLTKWordTokenizer().tokenize` on every MRPC sentence and on generated text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from nltk.tokenize import NLTKWordTokenizer

Guard = Callable[[str, str], bool]  # (text, lower-cased ASCII text or "") → may the rule match?


def _any_of(chars: str) -> Guard:
    needed = frozenset(chars)
    return lambda text, _lower: not needed.isdisjoint(text)


def _word(word: str) -> Guard:
    # Case-insensitive rules: on ASCII text, `lower` is exact; on other text Unicode case folding could
    # match letters such as "ſ", so the rule runs (lower == "").
    return lambda _text, lower: not lower or word in lower


# Characters (or words) without which a rule of NLTKWordTokenizer cannot match, keyed by its pattern.
_GUARDS: dict[str, Guard] = {
    "([«“‘„]|[`]+)": _any_of("«“‘„`"),
    "(``)": _any_of("`"),
    "([ \\(\\[{<])(\\\"|\\'{2})": _any_of("\"'"),
    "(?i)(?<!\\w)(\\')(?!(?:re|ve|ll|m|t|s|d|n)\\b)(?=\\w)": _any_of("'"),
    "([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*+)\\s*$": _any_of("."),
    "([:,])([^\\d])": _any_of(":,"),
    "([:,])$": _any_of(":,"),
    "\\.{2,}": lambda text, _lower: ".." in text,
    "[;@#$%&]": _any_of(";@#$%&"),
    "[\\u2012-\\u2015]": _any_of("\u2012\u2013\u2014\u2015"),
    "([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$": _any_of("."),
    "[?!]": _any_of("?!"),
    "([^'])' ": lambda text, _lower: "' " in text,
    "[*]": _any_of("*"),
    "[\\]\\[\\(\\)\\{\\}\\<\\>]": _any_of("[](){}<>"),
    "--": lambda text, _lower: "--" in text,
    "([»”’])": _any_of("»”’"),
    "''": lambda text, _lower: "''" in text,
    '"': _any_of('"'),
    "([^' ])('[sS]|'[mM]|'[dD]|') ": _any_of("'"),
    "([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ": _any_of("'"),
    "(?i)\\b(can)(?#X)(not)\\b": _word("cannot"),
    "(?i)\\b(d)(?#X)('ye)\\b": _word("d'ye"),
    "(?i)\\b(gim)(?#X)(me)\\b": _word("gimme"),
    "(?i)\\b(gon)(?#X)(na)\\b": _word("gonna"),
    "(?i)\\b(got)(?#X)(ta)\\b": _word("gotta"),
    "(?i)\\b(lem)(?#X)(me)\\b": _word("lemme"),
    "(?i)\\b(more)(?#X)('n)\\b": _word("more'n"),
    "(?i)\\b(wan)(?#X)(na)(?=\\s)": _word("wanna"),
    "(?i) ('t)(?#X)(is)\\b": _word("'tis"),
    "(?i) ('t)(?#X)(was)\\b": _word("'twas"),
}


def _always(_text: str, _lower: str) -> bool:
    return True


# Rules of the form `([^.])(.)(closers)\s*$`: a match can only use the text's last period (closers and
# spaces contain no period), so applying the rule to the text from one character before that period on
# gives the same result in a fraction of the time.
_FINAL_PERIOD_RULES = {
    "([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*+)\\s*$",
    "([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$",
}


class Rule:
    """One substitution rule of NLTKWordTokenizer, compiled with `re`, with the guard that may skip it."""

    __slots__ = ("regexp", "substitution", "may_match", "tail", "squeeze")

    def __init__(self, pattern: object, substitution: str) -> None:
        source: str = pattern.pattern  # type: ignore[attr-defined]
        self.regexp = re.compile(source, getattr(pattern, "flags", 0) & re.IGNORECASE)
        self.substitution = substitution
        self.may_match = _GUARDS.get(source, _always)
        self.tail = source in _FINAL_PERIOD_RULES
        self.squeeze = source == "\\s+" and substitution == " "

    def apply(self, text: str, lower: str) -> str:
        if self.squeeze:
            return _squeeze(text)
        if not self.may_match(text, lower):
            return text
        if self.tail:
            start = text.rfind(".") - 1
            if start < 0:
                return text
            return text[:start] + self.regexp.sub(self.substitution, text[start:])
        return self.regexp.sub(self.substitution, text)


def _squeeze(text: str) -> str:
    """`re.sub(r"\\s+", " ", text)` by str.split, which splits at the same (Unicode) whitespace."""
    words = text.split()
    if not words:
        return " " if text else ""
    return (" " if text[0].isspace() else "") + " ".join(words) + (" " if text[-1].isspace() else "")


def _rule(pattern: object, substitution: str) -> Rule:
    return Rule(pattern, substitution)


def _rules() -> tuple[list[Rule], list[Rule]]:
    """NLTKWordTokenizer.tokenize's rules in its order: before and after the text is padded with spaces."""
    t = NLTKWordTokenizer
    before = [
        _rule(p, s) for p, s in (*t.STARTING_QUOTES, *t.PUNCTUATION, t.PARENS_BRACKETS, t.DOUBLE_DASHES)
    ]
    after = [_rule(p, s) for p, s in t.ENDING_QUOTES]
    after += [_rule(p, r" \1 \2 ") for p in (*t.CONTRACTIONS2, *t.CONTRACTIONS3)]
    return before, after


_BEFORE, _AFTER = _rules()


def tokenize(text: str) -> list[str]:
    """Tokens of one member, as `NLTKWordTokenizer().tokenize(text)` (= `word_tokenize` without Punkt)."""
    lower = text.lower() if text.isascii() else ""
    for rule in _BEFORE:
        text = rule.apply(text, lower)
    text = " " + text + " "
    for rule in _AFTER:
        text = rule.apply(text, lower)
    return text.split()
