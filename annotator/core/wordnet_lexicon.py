"""Synonyms and broader terms from WordNet 3.0's database files (Debian's `wordnet-base`), read offline.

The posterior aligner's evidence that two different words may mean the same thing (`lawyer`/`attorney`,
`indicted`/`charged`): the statistics of one corpus cannot see a pair that occurs once. WordNet's files
are read as they lie in :data:`WORDNET_DIR` (``index.<pos>`` for each lemma's senses, ``data.<pos>`` for
a synset's pointers, addressed by byte offset, ``<pos>.exc`` for irregular forms); no download and no
other package. Where the files are missing, :func:`available` says so and the aligner goes without.

A word's *concepts* are the synsets of its first senses (by WordNet's frequency order) under each part
of speech, after English inflection is undone (WordNet's own detachment rules and exception lists);
its *broader concepts* are their direct hypernyms. Two words are related when they share a concept
(synonyms) or one's concept is the other's broader concept (`charge` is a direct hypernym of `indict`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

#: Where Debian's `wordnet-base` puts the database files (the Dockerfile and `.ci/run` install it).
WORDNET_DIR = Path("/usr/share/wordnet")
_PARTS = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# WordNet's rules for undoing inflection (its `morphy`): ending → replacement, per part of speech
_DETACH = {
    "n": (
        ("s", ""),
        ("ses", "s"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "v": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
_HYPERNYM = {b"@", b"@i"}


def available(directory: Path | None = None) -> bool:
    """Whether WordNet's database files are there."""
    where = directory or WORDNET_DIR
    return all((where / f"{kind}.{name}").is_file() for name in _PARTS.values() for kind in ("index", "data"))


class _WordNet:
    """The database files held in memory as they are (about 30 MB); lines are parsed when asked for."""

    def __init__(self, directory: Path) -> None:
        self.index: dict[str, dict[str, str]] = {}
        self.irregular: dict[str, dict[str, list[str]]] = {}
        self.data = {part: (directory / f"data.{name}").read_bytes() for part, name in _PARTS.items()}
        for part, name in _PARTS.items():
            lines = (directory / f"index.{name}").read_text(encoding="utf-8").splitlines()
            self.index[part] = {line[: line.find(" ")]: line for line in lines if not line.startswith(" ")}
            exceptions = directory / f"{name}.exc"
            irregular: dict[str, list[str]] = {}
            if exceptions.is_file():
                for line in exceptions.read_text(encoding="utf-8").splitlines():
                    fields = line.split()
                    if len(fields) >= 2:
                        irregular[fields[0]] = fields[1:]
            self.irregular[part] = irregular

    def lemmas(self, form: str, part: str) -> set[str]:
        index = self.index[part]
        found = {form} if form in index else set()
        found.update(b for b in self.irregular[part].get(form, ()) if b in index)
        for ending, replacement in _DETACH[part]:
            if form.endswith(ending) and len(form) > len(ending):
                base = form[: len(form) - len(ending)] + replacement
                if base in index:
                    found.add(base)
        return found

    def senses(self, lemma: str, part: str) -> list[int]:
        fields = self.index[part][lemma].split()
        n_senses, n_pointers = int(fields[2]), int(fields[3])
        return [int(o) for o in fields[6 + n_pointers : 6 + n_pointers + n_senses]]

    def hypernyms(self, part: str, offset: int) -> list[str]:
        data = self.data[part]
        fields = data[offset : data.index(b" | ", offset)].split()
        n_words = int(fields[3], 16)
        k = 4 + 2 * n_words
        n_pointers = int(fields[k])
        found = []
        for p in range(n_pointers):
            symbol, target, target_part = fields[k + 1 + 4 * p : k + 4 + 4 * p]
            if symbol in _HYPERNYM:
                found.append(f"{'a' if target_part == b's' else target_part.decode()}{int(target)}")
        return found


def concepts(
    forms: Iterable[str], max_senses: int = 3, directory: Path | None = None
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Each case-folded form's concepts and broader concepts (synset keys such as ``n10249950``), for
    the forms WordNet knows; the others are left out."""
    wordnet = _WordNet(directory or WORDNET_DIR)  # about 0.1 s; not kept, so a worker holds no 60 MB
    result: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for form in forms:
        own: set[str] = set()
        broader: set[str] = set()
        for part in _PARTS:
            for lemma in wordnet.lemmas(form, part):
                for offset in wordnet.senses(lemma, part)[:max_senses]:
                    own.add(f"{part}{offset}")
                    broader.update(wordnet.hypernyms(part, offset))
        if own:
            result[form] = (frozenset(own), frozenset(broader))
    return result
