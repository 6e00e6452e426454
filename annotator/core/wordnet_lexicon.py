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

import functools
import mmap
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
    """The database files mapped into memory (the page cache holds them, nothing is read ahead): a
    lemma's line is found by binary search in its part of speech's index file, which WordNet keeps
    sorted, and a synset's line at its byte offset in the data file."""

    def __init__(self, directory: Path) -> None:
        self.index = {part: _mapped(directory / f"index.{name}") for part, name in _PARTS.items()}
        self.data = {part: _mapped(directory / f"data.{name}") for part, name in _PARTS.items()}
        self.irregular = {part: _irregular(directory / f"{name}.exc") for part, name in _PARTS.items()}

    def line(self, lemma: str, part: str) -> str | None:
        """The lemma's line of the index file (None: WordNet does not have it under this part)."""
        key, index = lemma.encode("utf-8"), self.index[part]
        low, high = 0, len(index)
        while low < high:
            start = index.rfind(b"\n", 0, (low + high) // 2) + 1
            end = index.find(b"\n", start)
            end = len(index) if end < 0 else end
            line = index[start:end]
            word = b"" if line.startswith(b" ") else line[: line.find(b" ")]  # licence lines come first
            if word == key:
                return line.decode("utf-8")
            if word < key:
                low = end + 1
            else:
                high = start
        return None

    def lemmas(self, form: str, part: str) -> set[str]:
        found = {form} if self.line(form, part) else set()
        found.update(b for b in self.irregular[part].get(form, ()) if self.line(b, part))
        for ending, replacement in _DETACH[part]:
            if form.endswith(ending) and len(form) > len(ending):
                base = form[: len(form) - len(ending)] + replacement
                if self.line(base, part):
                    found.add(base)
        return found

    def senses(self, lemma: str, part: str) -> list[int]:
        fields = str(self.line(lemma, part)).split()
        n_senses, n_pointers = int(fields[2]), int(fields[3])
        return [int(o) for o in fields[6 + n_pointers : 6 + n_pointers + n_senses]]

    def hypernyms(self, part: str, offset: int) -> list[str]:
        data = self.data[part]
        fields = data[offset : data.find(b" | ", offset)].split()
        n_words = int(fields[3], 16)
        k = 4 + 2 * n_words
        n_pointers = int(fields[k])
        found = []
        for p in range(n_pointers):
            symbol, target, target_part = fields[k + 1 + 4 * p : k + 4 + 4 * p]
            if symbol in _HYPERNYM:
                found.append(f"{'a' if target_part == b's' else target_part.decode()}{int(target)}")
        return found


def _mapped(path: Path) -> mmap.mmap | bytes:
    """The file mapped read-only into memory (an empty file, which cannot be mapped: no bytes)."""
    with path.open("rb") as handle:
        if path.stat().st_size == 0:
            return b""
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


@functools.cache
def _irregular(path: Path) -> dict[str, list[str]]:
    """WordNet's irregular forms of one part of speech (``<pos>.exc``): form → base forms."""
    irregular: dict[str, list[str]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split()
            if len(fields) >= 2:
                irregular[fields[0]] = fields[1:]
    return irregular


def concepts(
    forms: Iterable[str], max_senses: int = 3, directory: Path | None = None
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Each case-folded form's concepts and broader concepts (synset keys such as ``n10249950``), for
    the forms WordNet knows; the others are left out."""
    wordnet = _WordNet(directory or WORDNET_DIR)  # the files mapped, nothing read ahead
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
