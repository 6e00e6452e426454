"""Evidence for a word link that co-occurrence alone does not give (no Django here).

Monolingual aligners reach their figures by linking what is the same word underneath before asking the
statistics (Sultan, Bethard & Sumner 2014, "Back to basics for monolingual alignment", §3: identical
words, then named entities, then content words by lexical similarity and context). Each function below
says how two tokens of the two members are related, by their forms only:

- :func:`word` — the form the trainers read (case-folded, one word);
- :func:`lemma_keys` — inflectional variants (`declines`/`decline`, `severed`/`severing`, `was`/`is`,
  `'m`/`am`, `an`/`a`) by English inflection rules and a short table of irregular forms, applied to word
  types: tagging the whole MRPC with spaCy's pipeline takes over a minute on this machine, far more than
  the aligner's 10 s budget, and a token-free rule set gives the same keys for regular inflection;
- :func:`number_value` — the same number written two ways (`1,000`/`1000`), and the few signs that
  spell a word (`%`/`percent`, `&`/`and`) or are one sign typed two ways (`“`/``` `` ```, `’`/`'`);
- :func:`name_variant_form` — a name and its prefixed or hyphenated form (`Numan`/`Al-Numan`);
- :func:`stem_related` — derivational variants sharing a long stem (`resignation`/`resign`,
  `succeed`/`successor`): weaker evidence, left to the statistics and the context to confirm;
- :func:`is_function` — punctuation and closed-class words, whose links between different forms need
  more than a shared position to be believed; :func:`word_class` — number, punctuation, function or
  content word (two different words are linked only within one class);
- :func:`acronym_links` — an acronym and the capitalised words that spell it (`AOL` / `America Online`,
  `U.S.` / `United States`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

_IRREGULAR = {
    "am": "be",
    "is": "be",
    "are": "be",
    "was": "be",
    "were": "be",
    "been": "be",
    "being": "be",
    "'m": "be",
    "'re": "be",
    "be": "be",
    "has": "have",
    "had": "have",
    "having": "have",
    "'ve": "have",
    "does": "do",
    "did": "do",
    "done": "do",
    "doing": "do",
    "an": "a",
    "n't": "not",
    "'ll": "will",
    "wo": "will",
    "ca": "can",
    "could": "can",  # the modals' past forms
    "would": "will",
    "might": "may",
    "should": "shall",
    "went": "go",
    "gone": "go",
    "goes": "go",
    "made": "make",
    "said": "say",
    "says": "say",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "got": "get",
    "gotten": "get",
    "bought": "buy",
    "sold": "sell",
    "told": "tell",
    "found": "find",
    "held": "hold",
    "led": "lead",
    "left": "leave",
    "lost": "lose",
    "paid": "pay",
    "ran": "run",
    "rose": "rise",
    "risen": "rise",
    "fell": "fall",
    "fallen": "fall",
    "won": "win",
    "saw": "see",
    "seen": "see",
    "knew": "know",
    "known": "know",
    "thought": "think",
    "brought": "bring",
    "began": "begin",
    "begun": "begin",
    "came": "come",
    "became": "become",
    "kept": "keep",
    "met": "meet",
    "sent": "send",
    "spent": "spend",
    "built": "build",
    "shot": "shoot",
    "struck": "strike",
    "wrote": "write",
    "written": "write",
    "men": "man",
    "women": "woman",
    "children": "child",
    "people": "person",
    "feet": "foot",
    "better": "good",
    "best": "good",
    "worse": "bad",
    "worst": "bad",
}
_SIGNS = {
    "%": "percent",
    "pct": "percent",
    "per-cent": "percent",
    "&": "and",
    "+": "plus",
    "$": "dollar",
    "us$": "dollar",
    "dollars": "dollar",
    # typographic quotes and the tokenizer's ASCII quotes (`“` / ``` `` ```, `’` / `'`)
    "\u201c": "``",
    "\u201d": "''",
    "\u2018": "`",
    "\u2019": "'",
}
_FUNCTION = frozenset(
    """a an the this that these those it its he she they them their his her him we us our you your i me my
    of in on at to for from by with about as into over under after before between through during without
    and or but nor so if than then because while when where who whom whose which what how not no
    be am is are was were been being has have had do does did will would shall should can could may might
    must 's 'm 're 've 'll 'd n't there here also just only""".split()
)
_VOWELS = set("aeiouy")
# The jobs of the closed-class words, for pairing two different function words in one slot (`in`/`of`,
# `about`/`on`, `when`/`as`, `the`/`a`): a word may have more than one (`as`, `that`).
_ROLE_WORDS = {
    "preposition": "of in on at to for from by with about as into over under after before between through "
    "during without",
    "determiner": "a an the this that these those",
    "possessive": "its their his her our your my 's",
    "pronoun": "it he she they them him we us you i me",
    "conjunction": "and or but nor so if than then because while when where as that",
    "auxiliary": "be am is are was were been being has have had do does did will would shall should can "
    "could may might must 'm 're 've 'll 'd",
    "negation": "not no n't",
}
_ROLES: dict[str, frozenset[str]] = {
    w: frozenset(role for role, words in _ROLE_WORDS.items() if w in words.split())
    for w in " ".join(_ROLE_WORDS.values()).split()
}


@lru_cache(maxsize=200_000)
def word(token: str) -> str:
    """A token as the trainers read it: one whitespace-free, case-folded word."""
    return "_".join(token.split()).casefold() or "_"


@lru_cache(maxsize=200_000)
def lemma_keys(form: str) -> frozenset[str]:
    """The possible lemmas of a case-folded form under English inflection (the form itself included).

    >>> sorted(lemma_keys("declines"))
    ['declin', 'decline', 'declines']
    """
    w = _SIGNS.get(form, form)
    keys = {w}
    if w in _IRREGULAR:
        keys.add(_IRREGULAR[w])
        return frozenset(keys)
    if not w.isalpha() or len(w) < 3:
        return frozenset(keys)
    candidates: list[str] = []
    if w.endswith("ies") and len(w) > 4:
        candidates.append(w[:-3] + "y")
    if w.endswith("es") and len(w) > 3:
        candidates.append(w[:-2])
    if w.endswith("s") and not w.endswith("ss"):
        candidates.append(w[:-1])
    if w.endswith("ied") and len(w) > 4:
        candidates.append(w[:-3] + "y")
    for suffix in ("ed", "ing", "er", "est"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            base = w[: -len(suffix)]
            candidates += [base, base + "e"]
            if len(base) >= 2 and base[-1] == base[-2] and base[-1] not in _VOWELS:
                candidates.append(base[:-1])  # stopped → stop
    keys.update(c for c in candidates if len(c) >= 3 and set(c) & _VOWELS)
    return frozenset(keys)


def same_lemma(form1: str, form2: str) -> bool:
    """Whether two case-folded forms may be inflections of one lemma."""
    if form1 == form2:
        return True
    return bool(lemma_keys(form1) & lemma_keys(form2))


_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^[+-]?\.\d+$")


def number_value(form: str) -> float | None:
    """The value of a number token (`1,000`, `.85`, `8.4`), else None."""
    if not _NUMBER.match(form):
        return None
    return float(form.replace(",", ""))


def name_variant_form(form1: str, form2: str) -> bool:
    """Whether two case-folded forms are one name with and without a hyphenated prefix or suffix
    (`numan` / `al-numan`)."""
    if form1 == form2:
        return False
    return any(
        long.endswith("-" + short) or long.startswith(short + "-")
        for short, long in ((form1, form2), (form2, form1))
    )


def stem_related(form1: str, form2: str) -> bool:
    """Whether two alphabetic forms share a stem of at least five letters covering ≥ 70 % of the shorter
    (derivational variants: `resignation`/`resign`, `succeed`/`successor`)."""
    if form1 == form2 or not (form1.isalpha() and form2.isalpha()):
        return False
    shorter = min(len(form1), len(form2))
    common = 0
    for c1, c2 in zip(form1, form2, strict=False):
        if c1 != c2:
            break
        common += 1
    return common >= 5 and common >= 0.7 * shorter


@lru_cache(maxsize=200_000)
def is_function(form: str) -> bool:
    """Punctuation, numbers' signs and closed-class words (case-folded form)."""
    return form in _FUNCTION or not any(ch.isalnum() for ch in form)


def same_function_role(form1: str, form2: str) -> bool:
    """Whether two case-folded function words can do one job (`in`/`of`, `when`/`as`, `the`/`a`):
    both prepositions, both determiners, both conjunctions, …"""
    return bool(_ROLES.get(form1, frozenset()) & _ROLES.get(form2, frozenset()))


CONTENT, FUNCTION, PUNCTUATION, NUMBER = range(4)


@lru_cache(maxsize=200_000)
def word_class(form: str) -> int:
    """The class of a case-folded form: a number (`1,000`, `8.4`), punctuation, a function word, or a
    content word (:data:`NUMBER`, :data:`PUNCTUATION`, :data:`FUNCTION`, :data:`CONTENT`)."""
    if number_value(form) is not None:
        return NUMBER
    if not any(ch.isalnum() for ch in form):
        return PUNCTUATION
    return FUNCTION if form in _FUNCTION else CONTENT


_ACRONYM_SKIP = frozenset({"of", "and", "the", "for", "&", "de"})
_ACRONYM = re.compile(r"[A-Z]{2,6}|(?:[A-Z]\.){2,6}")


def acronym_letters(token: str) -> str | None:
    """The capitals of an acronym token (`AOL` → `AOL`, `U.S.` → `US`: 2–6 capitals, with or without a
    full stop after each), else None."""
    return token.replace(".", "") if _ACRONYM.fullmatch(token) else None


def _is_subsequence(letters: str, word: str) -> bool:
    rest = iter(word)
    return all(letter in rest for letter in letters)


def _spelled_by(acronym: str, tokens: Sequence[str], start: int) -> list[int] | None:
    """The capitalised tokens from `start` that spell `acronym`: each begins with the next letter and may
    give further letters from inside it (`America Online` → AOL), with `of`, `and`, `the` skipped between
    them (`Securities and Exchange Commission` → SEC); at least two words; or None."""
    if not acronym:
        return []
    if start >= len(tokens):
        return None
    token = tokens[start]
    if token.casefold() in _ACRONYM_SKIP and start > 0:
        return _spelled_by(acronym, tokens, start + 1)
    if not (token[:1] == acronym[0] and token[1:].islower()):
        return None
    for taken in range(1, len(acronym) + 1):  # the letters this word gives, its initial alone first
        if taken > 1 and not _is_subsequence(acronym[1:taken].lower(), token[1:]):
            continue
        rest = _spelled_by(acronym[taken:], tokens, start + 1)
        if rest is not None:
            return [start, *rest]
    return None


def acronym_links(tokens1: Sequence[str], tokens2: Sequence[str]) -> list[tuple[int, int]]:
    """Links between an acronym (2–6 capital letters: `AOL`, `U.S.`) and the capitalised words it
    abbreviates in the other member (`America Online`, `United States`), every word linked to it as the
    conventions have it. Only where
    the one stands for the other: not when the acronym is in both members, nor when a spelled-out word
    is in the acronym's member too (`Internet Explorer ( IE )` ⇄ `Internet Explorer`)."""
    links: list[tuple[int, int]] = []
    for flip, (short, long) in enumerate(((tokens1, tokens2), (tokens2, tokens1))):
        in_short, in_long = set(short), set(long)
        for a, token in enumerate(short):
            letters = acronym_letters(token)
            if letters is None or token in in_long:
                continue  # not an acronym, or the other member has it too (`IE` ⇄ `IE`)
            for start in range(len(long)):
                words = _spelled_by(letters, long, start)
                if words and len(words) >= 2 and not any(long[k] in in_short for k in words):
                    links += [(b, a) if flip else (a, b) for b in words]
                    break
    return sorted(set(links))
