"""Tokenization of Spanish and Catalan members, as the annotators of Vila et al.'s corpora expect.

The rules, applied to each whitespace-separated chunk of the text:

1. Punctuation is split off both ends of a chunk, one token per mark: ``¿ ¡ ( [ { « " “ ‘ '`` at the
   start; ``. , ; : ! ? ) ] } » " ” ’ '`` and ``%`` at the end. An ellipsis (``...`` or ``…``) is one
   token. A final period stays on known abbreviations (``Sr.``, ``Sra.``, ``Dr.``, ``núm.``, ``pàg.``,
   ``etc.`` …), on single-letter initials (``J.``) and on abbreviations with inner periods (``EE.UU.``,
   ``S.A.``, ``RR.HH.``, ``p.ej.``), wherever they stand in the sentence: ``en EE.UU. el año pasado`` and
   ``en EE.UU.`` both give the token ``EE.UU.`` (at the end the period is the abbreviation's and the
   sentence's, as in AnCora). Numbers keep their inner points and commas
   (``1.000,5``, ``3,5``); the middle dot of Catalan ``l·l`` is part of the word.
2. Elisions are split after the apostrophe, the elided article/preposition/pronoun keeping it:
   ``l'Ajuntament`` → ``l'`` ``Ajuntament``; ``d'un`` → ``d'`` ``un``; also ``m' t' s' n'`` and ``qu'``.
3. Enclitic pronouns written with a hyphen or an apostrophe (Catalan) are split from the verb, each
   keeping its hyphen or apostrophe, and a pronoun written after an elided one is a token of its own:
   ``Dóna-m'ho`` → ``Dóna`` ``-m'`` ``ho``; ``porta'ls`` → ``porta`` ``'ls``; ``fes-ho`` → ``fes`` ``-ho``.
   Spanish enclitics written together with the verb (``dámelo``) and the contractions ``al``/``del`` stay
   one token: splitting them needs a lexicon, and Spanish annotators select the verb with its pronouns.

Why not a tokenizer from the package index: spaCy's Catalan and Spanish tokenizers do split these
cases, but bring ~15 packages and ~150 MiB to every web and worker process for a few regular
expressions; NLTK's Toktok splits ``¿ ¡`` but not elisions or clitics. English keeps ETPC's Treebank
rules (`annotator.corpus.tokenize`).
"""

from __future__ import annotations

import re

_OPENERS = "¿¡([{«\"“‘'"
_CLOSERS = ".,;:!?)]}»\"”’'%"
_ABBREVIATIONS = frozenset(
    "sr sra srta dr dra sres núm num pàg pág pag etc vol cap art ed ud uds av c pl tel admón sig".split()
)
_ELISION = re.compile(r"^((?:qu|[ldmtsnLDMTSN]|Qu)['’])(?=[\w·])", re.UNICODE)
_CLITIC = (
    r"(?:-(?:[mtsln]['’]|nos|vos|los|les|els|me|te|se|lo|la|li|ne|hi|ho|ns|us|en|el)|['’](?:ns|ls|m|t|s|l|n))"
)
_AFTER_ELIDED = r"(?:hi|ho|en|ne|la|les|li|lo|los|el|els|n)"
_ENCLITICS = re.compile(
    rf"^(?P<verb>[\w·]+?)(?P<clitics>(?:{_CLITIC})+(?<=['’]){_AFTER_ELIDED}|(?:{_CLITIC})+)$"
)
_ONE_CLITIC = re.compile(rf"{_CLITIC}|{_AFTER_ELIDED}$")
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*$")
_INNER_PERIODS = re.compile(r"^(?:[^\W\d_]{1,3}\.)+[^\W\d_]{1,3}$")


def tokenize_romance(text: str) -> list[str]:
    """Tokens of a Spanish or Catalan member by the rules of the module docstring."""
    tokens: list[str] = []
    for chunk in text.split():
        tokens += _chunk(chunk)
    return tokens


def _chunk(chunk: str) -> list[str]:
    head: list[str] = []
    tail: list[str] = []
    while chunk and chunk[0] in _OPENERS and not _ELISION.match(chunk):
        head.append(chunk[0])
        chunk = chunk[1:]
    while chunk:
        if chunk.endswith("...") and len(chunk) > 3:
            tail.insert(0, "...")
            chunk = chunk[:-3]
        elif chunk[-1] == "…" and len(chunk) > 1:
            tail.insert(0, "…")
            chunk = chunk[:-1]
        elif chunk[-1] in _CLOSERS and len(chunk) > 1 and not _keeps_period(chunk):
            if chunk[-1] in "'’" and _ENCLITICS.match(chunk):
                break
            tail.insert(0, chunk[-1])
            chunk = chunk[:-1]
        else:
            break
    return head + (_word(chunk) if chunk else []) + tail


def _keeps_period(chunk: str) -> bool:
    if chunk[-1] != ".":
        return False
    stem = chunk[:-1]
    return (
        stem.lower() in _ABBREVIATIONS
        or (len(stem) == 1 and stem.isalpha())
        or _INNER_PERIODS.match(stem) is not None
    )


def _word(word: str) -> list[str]:
    if _NUMBER.match(word):
        return [word]
    out: list[str] = []
    while (elided := _ELISION.match(word)) is not None:
        out.append(elided.group(1))
        word = word[elided.end() :]
    match = _ENCLITICS.match(word)
    if match is None:
        return [*out, word] if word else out
    return [*out, match.group("verb"), *_ONE_CLITIC.findall(match.group("clitics"))]
