"""A project's language decides how members are tokenized at import."""

from __future__ import annotations

from collections.abc import Callable

from annotator.corpus.tokenize import tokenize
from annotator.corpus.tokenize_romance import tokenize_romance

Tokenizer = Callable[[str], list[str]]

RULES = {
    "en": "English: NLTK's Treebank rules, as ETPC (punctuation and clitics such as n't and 's split).",
    "es": "Spanish: ¿ ¡ and punctuation split; elisions (d'Ors) split after the apostrophe; "
    "enclitics written together (dámelo) and al/del stay one token.",
    "ca": "Catalan: punctuation split; elisions split after the apostrophe (l' Ajuntament, d' un); "
    "enclitics split from the verb, each keeping its hyphen or apostrophe (Dóna -m' ho).",
}


def tokenizer_for(language: str) -> Tokenizer:
    """The tokenizer of a project language (`Project.Language`); unknown codes are an error."""
    if language == "en":
        return tokenize
    if language in ("es", "ca"):
        return tokenize_romance
    raise ValueError(f"no tokenizer for language {language!r}; expected one of {', '.join(RULES)}")
