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
we do not know (a future NLTK) always run. `tests/annotator/core/test_tokenize.py` checks that the result is
identical to `NLTKWordTokenizer().tokenize` on every MRPC sentence and on generated text.
"""

from __future__ import annotations

import re
from functools import cache

from annotator.core import nltk_import

# What a rule needs in the ORIGINAL text to be able to match when its turn comes, keyed by the rule's
# pattern: one of these characters, or (for "..", "--") that substring. The rules before a given one only
# insert spaces and turn '"' into the quotes `` and '', so a rule that needs ' or ` also runs on '"'.
_NEEDS: dict[str, str | tuple[str]] = {
    "([«“‘„]|[`]+)": "«“‘„`",
    "(``)": '`"',
    "([ \\(\\[{<])(\\\"|\\'{2})": "\"'",
    "(?i)(?<!\\w)(\\')(?!(?:re|ve|ll|m|t|s|d|n)\\b)(?=\\w)": "'\"",
    "([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*+)\\s*$": ".",
    "([:,])([^\\d])": ":,",
    "([:,])$": ":,",
    "\\.{2,}": ("..",),
    "[;@#$%&]": ";@#$%&",
    "[\\u2012-\\u2015]": "\u2012\u2013\u2014\u2015",
    "([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$": ".",
    "[?!]": "?!",
    "([^'])' ": "'\"",
    "[*]": "*",
    "[\\]\\[\\(\\)\\{\\}\\<\\>]": "[](){}<>",
    "--": ("--",),
    "([»”’])": "»”’",
    "''": "'\"",
    '"': '"',
    "([^' ])('[sS]|'[mM]|'[dD]|') ": "'\"",
    "([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ": "'\"",
}
# The case-insensitive contraction rules run only when one of their words occurs (or the text is not
# ASCII: Unicode case folding matches letters such as "ſ" to "s", so then they always run).
_CONTRACTIONS = {
    "(?i)\\b(can)(?#X)(not)\\b",
    "(?i)\\b(d)(?#X)('ye)\\b",
    "(?i)\\b(gim)(?#X)(me)\\b",
    "(?i)\\b(gon)(?#X)(na)\\b",
    "(?i)\\b(got)(?#X)(ta)\\b",
    "(?i)\\b(lem)(?#X)(me)\\b",
    "(?i)\\b(more)(?#X)('n)\\b",
    "(?i)\\b(wan)(?#X)(na)(?=\\s)",
    "(?i) ('t)(?#X)(is)\\b",
    "(?i) ('t)(?#X)(was)\\b",
}
_CONTRACTION_WORDS = re.compile(r"cannot|d'ye|gimme|gonna|gotta|lemme|more'n|wanna|'tis|'twas")
_TRIGGER_CHARS = frozenset("".join(v for v in _NEEDS.values() if isinstance(v, str)))
_SUBSTRINGS = tuple(v[0] for v in _NEEDS.values() if isinstance(v, tuple))

# Rules of the form `([^.])(.)(closers)\s*$`: a match can only use the text's last period (closers and
# spaces contain no period), so applying the rule to the text from one character before that period on
# gives the same result in a fraction of the time.
_FINAL_PERIOD_RULES = {
    "([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*+)\\s*$",
    "([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$",
}

Key = tuple[frozenset[str], tuple[bool, ...], bool]


class Rule:
    """One substitution rule of NLTKWordTokenizer, compiled with `re`, and when it can be skipped."""

    __slots__ = ("regexp", "substitution", "needs", "contraction", "tail", "squeeze")

    def __init__(self, pattern: re.Pattern[str], substitution: str) -> None:
        source = pattern.pattern
        self.regexp = re.compile(source, getattr(pattern, "flags", 0) & re.IGNORECASE)
        self.substitution = substitution
        self.needs = _NEEDS.get(source)
        self.contraction = source in _CONTRACTIONS
        self.tail = source in _FINAL_PERIOD_RULES
        self.squeeze = source == "\\s+" and substitution == " "

    def may_match(self, key: Key) -> bool:
        chars, substrings, contraction = key
        if self.contraction:
            return contraction
        if isinstance(self.needs, str):
            return not chars.isdisjoint(self.needs)
        if isinstance(self.needs, tuple):
            return substrings[_SUBSTRINGS.index(self.needs[0])]
        return True  # a rule we do not know (a newer NLTK): always run it

    def apply(self, text: str) -> str:
        if self.squeeze:
            return _squeeze(text)
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


def _rule(pattern: re.Pattern[str], substitution: str) -> Rule:
    return Rule(pattern, substitution)


@cache
def _rules() -> tuple[list[Rule], list[Rule]]:
    """NLTKWordTokenizer.tokenize's rules in its order: before and after the text is padded with spaces.

    Loaded on first use, without the scipy, scikit-learn and pandas that importing nltk otherwise
    loads (`annotator.core.nltk_import`): web and worker processes that never tokenize pay nothing.
    """
    nltk_import.nltk()
    from nltk.tokenize import NLTKWordTokenizer

    t = NLTKWordTokenizer
    before = [
        _rule(p, s) for p, s in (*t.STARTING_QUOTES, *t.PUNCTUATION, t.PARENS_BRACKETS, t.DOUBLE_DASHES)
    ]
    after = [_rule(p, s) for p, s in t.ENDING_QUOTES]
    after += [_rule(p, r" \1 \2 ") for p in (*t.CONTRACTIONS2, *t.CONTRACTIONS3)]
    return before, after


_PLANS: dict[Key, tuple[tuple[Rule, ...], tuple[Rule, ...]]] = {}


def _key(text: str) -> Key:
    contraction = not text.isascii() or _CONTRACTION_WORDS.search(text.lower()) is not None
    return _TRIGGER_CHARS.intersection(text), tuple(s in text for s in _SUBSTRINGS), contraction


def _plan(key: Key) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
    """The rules that may match a text with these trigger characters (cached: there are few keys)."""
    plan = _PLANS.get(key)
    if plan is None:
        rules_before, rules_after = _rules()
        plan = _PLANS[key] = (
            tuple(r for r in rules_before if r.may_match(key)),
            tuple(r for r in rules_after if r.squeeze or r.may_match(key)),
        )
    return plan


def tokenize(text: str) -> list[str]:
    """Tokens of one member, as `NLTKWordTokenizer().tokenize(text)` (= `word_tokenize` without Punkt)."""
    before, after = _plan(_key(text))
    for rule in before:
        text = rule.apply(text)
    text = " " + text + " "
    for rule in after:
        text = rule.apply(text)
    return text.split()
