"""Read and validate an interchange document (docs/measures.md#document; spec §1, §9) into :class:`metrics.types.Document`.

Every rejection is a :class:`metrics.types.DocumentError` whose ``field`` is the JSON path of the
offending value (``phenomena.B[3].s1[2]``) and whose message says what is wrong.

Extensions of the spec's document (docs/measures.md#document): the section ``pair_labels``
(:mod:`metrics.pair_labels`) and the optional phenomenon attribute ``sense_preserving`` (``true``,
``false`` or ``null``; ETPC's + / − layer, :mod:`metrics.layers`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from metrics.types import (
    G5,
    M6,
    Document,
    DocumentError,
    Evaluations,
    Judgement,
    Link,
    Options,
    Pair,
    Phenomenon,
    PhraseAlignment,
    Tagset,
    TypeDef,
    WordAlignment,
)

__all__ = ["FORMAT", "parse_document", "load_document"]

FORMAT = "paraphrase-agreement/1"
_PROJECTIONS = ("local", "global", None)


def load_document(path: str | Path) -> Document:
    """Read ``path`` (JSON) and validate it; unreadable files and bad JSON raise ``DocumentError``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DocumentError("", f"cannot read file: {exc}") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        raise DocumentError("", f"invalid JSON: {exc}") from None
    return parse_document(data, source=str(path))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def parse_document(data: Any, *, source: str = "<input>") -> Document:
    """Validate a decoded interchange document and build a :class:`Document`.

    ``source`` names the input in messages of unexpected errors only; the ``DocumentError`` field
    is always a JSON path inside the document. Raises ``DocumentError`` (a ``ValueError``).
    """
    if not isinstance(data, dict):
        raise DocumentError("", f"the document must be a JSON object, got {_show(data)}")
    if "format" not in data:
        raise DocumentError("format", f"missing (expected {FORMAT!r})")
    if data["format"] != FORMAT:
        raise DocumentError("format", f"unsupported format {data['format']!r} (expected {FORMAT!r})")
    options = _options(data.get("options"))
    tagset = _tagset(data["tagset"]) if "tagset" in data else None
    pairs = _pairs(data.get("pairs", []))
    by_id = {p.id: p for p in pairs}
    annotators = _annotators(data)
    phenomena = None
    if "phenomena" in data:
        phenomena = _phenomena(data["phenomena"], annotators, tagset, by_id)
    word_alignments = None
    if "word_alignments" in data:
        word_alignments = _word_alignments(data["word_alignments"], annotators, by_id)
    phrase_alignments = None
    if "phrase_alignments" in data:
        phrase_alignments = _phrase_sets(data["phrase_alignments"], "phrase_alignments", by_id, annotators)
    systems = None
    if "system_phrase_alignments" in data:
        systems = _phrase_sets(data["system_phrase_alignments"], "system_phrase_alignments", by_id, None)
    evaluations = _evaluations(data["evaluations"]) if "evaluations" in data else None
    pair_labels = _pair_labels(data["pair_labels"], annotators, by_id) if "pair_labels" in data else None
    return Document(
        annotators=annotators,
        options=options,
        tagset=tagset,
        pairs=pairs,
        phenomena=phenomena,
        word_alignments=word_alignments,
        phrase_alignments=phrase_alignments,
        system_phrase_alignments=systems,
        evaluations=evaluations,
        pair_labels=pair_labels,
    )


# -- small checks ---------------------------------------------------------------------------------


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise DocumentError(where, f"must be a string, got {_show(value)}")
    return value


def _int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise DocumentError(where, f"must be an integer, got {_show(value)}")
    return value


def _show(value: Any) -> str:
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise DocumentError(where, f"must be a list, got {_show(value)}")
    return value


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DocumentError(where, f"must be an object, got {_show(value)}")
    return value


def _index_set(value: Any, size: int, where: str, member: str) -> frozenset[int]:
    """A set of token indices: a list of distinct integers in ``[0, size)``."""
    seen: set[int] = set()
    for n, raw in enumerate(_list(value, where)):
        i = _int(raw, f"{where}[{n}]")
        if not 0 <= i < size:
            raise DocumentError(f"{where}[{n}]", f"index {i} out of range for {member} ({size} tokens)")
        if i in seen:
            raise DocumentError(f"{where}[{n}]", f"duplicate index {i}")
        seen.add(i)
    return frozenset(seen)


def _links(value: Any, pair: Pair, where: str) -> list[Link]:
    links: list[Link] = []
    seen: set[Link] = set()
    for n, raw in enumerate(_list(value, where)):
        at = f"{where}[{n}]"
        if not isinstance(raw, list) or len(raw) != 2:
            raise DocumentError(at, f"a link must be a list [i, j], got {_show(raw)}")
        i, j = _int(raw[0], f"{at}[0]"), _int(raw[1], f"{at}[1]")
        if not 0 <= i < len(pair.tokens1):
            raise DocumentError(
                f"{at}[0]", f"index {i} out of range for tokens1 ({len(pair.tokens1)} tokens)"
            )
        if not 0 <= j < len(pair.tokens2):
            raise DocumentError(
                f"{at}[1]", f"index {j} out of range for tokens2 ({len(pair.tokens2)} tokens)"
            )
        if (i, j) in seen:
            raise DocumentError(at, f"duplicate link [{i}, {j}]")
        seen.add((i, j))
        links.append((i, j))
    return links


def _pair_ref(value: Any, by_id: dict[str, Pair], where: str) -> Pair:
    pid = _string(value, where)
    if pid not in by_id:
        raise DocumentError(where, f"unknown pair {pid!r}")
    return by_id[pid]


# -- sections -------------------------------------------------------------------------------------


def _options(value: Any) -> Options:
    if value is None:
        return Options()
    raw = _object(value, "options")
    defaults = Options()
    match = raw.get("identical_match", defaults.identical_match)
    if match not in ("exact", "casefold"):
        raise DocumentError("options.identical_match", f'must be "exact" or "casefold", got {_show(match)}')
    mc_samples = _int(raw.get("mc_samples", defaults.mc_samples), "options.mc_samples")
    if mc_samples < 2:
        raise DocumentError("options.mc_samples", f"must be >= 2, got {mc_samples}")
    seeds = {}
    for key in ("mc_seed", "reeval_seed"):
        seeds[key] = _int(raw.get(key, getattr(defaults, key)), f"options.{key}")
        if seeds[key] < 0:
            raise DocumentError(f"options.{key}", f"must be >= 0, got {seeds[key]}")
    fraction = raw.get("reeval_fraction", defaults.reeval_fraction)
    if isinstance(fraction, bool) or not isinstance(fraction, int | float) or not math.isfinite(fraction):
        raise DocumentError("options.reeval_fraction", f"must be a number, got {_show(fraction)}")
    if not 0 <= fraction <= 1:
        raise DocumentError("options.reeval_fraction", f"must be in [0, 1], got {fraction}")
    return Options(match, mc_samples, seeds["mc_seed"], seeds["reeval_seed"], float(fraction))


def _tagset(value: Any) -> Tagset:
    raw = _object(value, "tagset")
    types: list[TypeDef] = []
    seen: set[str] = set()
    for n, t in enumerate(_list(raw.get("types", []), "tagset.types")):
        at = f"tagset.types[{n}]"
        t = _object(t, at)
        name = _string(t.get("name"), f"{at}.name")
        if name in seen:
            raise DocumentError(f"{at}.name", f"duplicate type {name!r}")
        one_sided = t.get("one_sided", False)
        if not isinstance(one_sided, bool):
            raise DocumentError(f"{at}.one_sided", f"must be true or false, got {_show(one_sided)}")
        seen.add(name)
        types.append(TypeDef(name, one_sided))
    return Tagset(tuple(types))


def _pairs(value: Any) -> tuple[Pair, ...]:
    pairs: list[Pair] = []
    seen: set[str] = set()
    for n, raw in enumerate(_list(value, "pairs")):
        at = f"pairs[{n}]"
        raw = _object(raw, at)
        pid = _string(raw.get("id"), f"{at}.id")
        if pid in seen:
            raise DocumentError(f"{at}.id", f"duplicate pair id {pid!r}")
        seen.add(pid)
        tokens = []
        for member in ("tokens1", "tokens2"):
            words = _list(raw.get(member), f"{at}.{member}")
            tokens.append(tuple(_string(w, f"{at}.{member}[{k}]") for k, w in enumerate(words)))
        split = raw.get("split")
        if split is not None:
            split = _string(split, f"{at}.split")
        pair = Pair(pid, tokens[0], tokens[1], None, split)
        initial = raw.get("initial_alignment")
        if initial is not None:
            pair = Pair(
                pid,
                tokens[0],
                tokens[1],
                frozenset(_links(initial, pair, f"{at}.initial_alignment")),
                split,
            )
        pairs.append(pair)
    return tuple(pairs)


def _annotators(data: dict[str, Any]) -> tuple[str, ...]:
    """Declared annotators; without a declaration, the section keys in order of appearance."""
    if "annotators" in data:
        names = [
            _string(a, f"annotators[{n}]") for n, a in enumerate(_list(data["annotators"], "annotators"))
        ]
        for n, a in enumerate(names):
            if a in names[:n]:
                raise DocumentError(f"annotators[{n}]", f"duplicate annotator {a!r}")
        return tuple(names)
    found: list[str] = []
    for section in ("phenomena", "word_alignments", "phrase_alignments"):
        if isinstance(data.get(section), dict):
            found.extend(a for a in data[section] if a not in found)
    return tuple(found)


def _section_annotators(raw: dict[str, Any], section: str, annotators: Iterable[str]) -> None:
    declared = set(annotators)
    for a in raw:
        if a not in declared:
            raise DocumentError(f"{section}.{a}", f"annotator {a!r} is not declared in 'annotators'")


def _pair_labels(
    value: Any, annotators: tuple[str, ...], by_id: dict[str, Pair]
) -> dict[str, dict[str, str]]:
    """Extension section: annotator → pair id → pair-level label (e.g. paraphrase / non_paraphrase)."""
    raw = _object(value, "pair_labels")
    _section_annotators(raw, "pair_labels", annotators)
    labels: dict[str, dict[str, str]] = {}
    for a, given in raw.items():
        labels[a] = {}
        for pair_id, label in _object(given, f"pair_labels.{a}").items():
            _pair_ref(pair_id, by_id, f"pair_labels.{a}.{pair_id}")
            text = _string(label, f"pair_labels.{a}.{pair_id}")
            if not text:
                raise DocumentError(f"pair_labels.{a}.{pair_id}", "must be a non-empty label")
            labels[a][pair_id] = text
    return labels


def _phenomena(
    value: Any, annotators: tuple[str, ...], tagset: Tagset | None, by_id: dict[str, Pair]
) -> dict[str, tuple[Phenomenon, ...]]:
    raw = _object(value, "phenomena")
    _section_annotators(raw, "phenomena", annotators)
    return {
        a: tuple(
            _phenomenon(x, f"phenomena.{a}[{n}]", tagset, by_id)
            for n, x in enumerate(_list(xs, f"phenomena.{a}"))
        )
        for a, xs in raw.items()
    }


def _phenomenon(raw: Any, at: str, tagset: Tagset | None, by_id: dict[str, Pair]) -> Phenomenon:
    raw = _object(raw, at)
    pair = _pair_ref(raw.get("pair"), by_id, f"{at}.pair")
    name = _string(raw.get("type"), f"{at}.type")
    if tagset is None or name not in tagset:
        raise DocumentError(f"{at}.type", f"type {name!r} is not in the tagset")
    n1, n2 = len(pair.tokens1), len(pair.tokens2)
    s1 = _index_set(raw.get("s1", []), n1, f"{at}.s1", "tokens1")
    s2 = _index_set(raw.get("s2", []), n2, f"{at}.s2", "tokens2")
    key1 = _index_set(raw.get("key1", []), n1, f"{at}.key1", "tokens1")
    key2 = _index_set(raw.get("key2", []), n2, f"{at}.key2", "tokens2")
    projection = raw.get("projection")
    if projection not in _PROJECTIONS:
        raise DocumentError(f"{at}.projection", f'must be "local", "global" or null, got {_show(projection)}')
    if not s1 and not s2:
        raise DocumentError(f"{at}.s1", "both scopes are empty (s1 = s2 = ∅)")
    if s1 and s2 and tagset.is_one_sided(name):
        raise DocumentError(f"{at}.s2", f"type {name!r} is one-sided but both scopes are non-empty")
    sense = raw.get("sense_preserving")
    if sense is not None and not isinstance(sense, bool):
        raise DocumentError(f"{at}.sense_preserving", f"must be true, false or null, got {_show(sense)}")
    return Phenomenon(pair.id, name, s1, s2, projection, key1, key2, sense)


def _word_alignments(
    value: Any, annotators: tuple[str, ...], by_id: dict[str, Pair]
) -> dict[str, dict[str, WordAlignment]]:
    raw = _object(value, "word_alignments")
    _section_annotators(raw, "word_alignments", annotators)
    out: dict[str, dict[str, WordAlignment]] = {}
    for a, entries in raw.items():
        out[a] = {}
        for pid, entry in _object(entries, f"word_alignments.{a}").items():
            at = f"word_alignments.{a}.{pid}"
            pair = _pair_ref(pid, by_id, at)
            entry = _object(entry, at)
            sure = _links(entry.get("sure", []), pair, f"{at}.sure")
            possible = _links(entry.get("possible", []), pair, f"{at}.possible")
            out[a][pid] = WordAlignment(frozenset(sure), frozenset(possible))
    return out


def _phrase_sets(
    value: Any, section: str, by_id: dict[str, Pair], annotators: tuple[str, ...] | None
) -> dict[str, tuple[PhraseAlignment, ...]]:
    raw = _object(value, section)
    if annotators is not None:
        _section_annotators(raw, section, annotators)
    return {
        name: tuple(
            _phrase(x, f"{section}.{name}[{n}]", by_id) for n, x in enumerate(_list(xs, f"{section}.{name}"))
        )
        for name, xs in raw.items()
    }


def _phrase(raw: Any, at: str, by_id: dict[str, Pair]) -> PhraseAlignment:
    raw = _object(raw, at)
    pair = _pair_ref(raw.get("pair"), by_id, f"{at}.pair")
    sides: list[frozenset[int] | None] = []
    for member, size in (("s1", len(pair.tokens1)), ("s2", len(pair.tokens2))):
        side = raw.get(member)
        if side is None:
            sides.append(None)
            continue
        indices = _index_set(side, size, f"{at}.{member}", "tokens" + member[1])
        if not indices:
            raise DocumentError(f"{at}.{member}", "must be a non-empty token set or null")
        sides.append(indices)
    if sides[0] is None and sides[1] is None:
        raise DocumentError(f"{at}.s1", "s1 and s2 are both null")
    label = raw.get("label")
    if label is not None:
        _string(label, f"{at}.label")
    return PhraseAlignment(pair.id, sides[0], sides[1], label)


def _evaluations(value: Any) -> Evaluations:
    raw = _object(value, "evaluations")
    if "raters" in raw:
        listed = _list(raw["raters"], "evaluations.raters")
        raters = tuple(_string(r, f"evaluations.raters[{n}]") for n, r in enumerate(listed))
    else:  # undeclared: the raters of the ratings, in order of appearance
        found = [
            x.get("rater")
            for x in _list(raw.get("ratings", []), "evaluations.ratings")
            if isinstance(x, dict)
        ]
        raters = tuple(dict.fromkeys(r for r in found if isinstance(r, str)))
    for n, r in enumerate(raters):
        if r in raters[:n]:
            raise DocumentError(f"evaluations.raters[{n}]", f"duplicate rater {r!r}")
    ratings = _judgements(raw.get("ratings", []), "evaluations.ratings", set(raters), revision=False)
    keys = {(j.item, j.rater) for j in ratings}
    revisions = _judgements(raw.get("revisions", []), "evaluations.revisions", set(raters), revision=True)
    for n, j in enumerate(revisions):
        if (j.item, j.rater) not in keys:
            raise DocumentError(
                f"evaluations.revisions[{n}]",
                f"revises a judgement that does not exist ({j.item!r}, {j.rater!r})",
            )
    return Evaluations(raters, tuple(ratings), tuple(revisions))


def _judgements(value: Any, where: str, raters: set[str], *, revision: bool) -> list[Judgement]:
    out: list[Judgement] = []
    seen: set[tuple[str, str]] = set()
    for n, raw in enumerate(_list(value, where)):
        at = f"{where}[{n}]"
        raw = _object(raw, at)
        item = _string(raw.get("item"), f"{at}.item")
        rater = _string(raw.get("rater"), f"{at}.rater")
        if rater not in raters:
            raise DocumentError(f"{at}.rater", f"rater {rater!r} is not declared in evaluations.raters")
        if (item, rater) in seen:
            raise DocumentError(at, f"a second judgement of item {item!r} by rater {rater!r}")
        seen.add((item, rater))
        g, m = raw.get("G"), raw.get("M")
        if g is not None and g not in G5:
            raise DocumentError(f"{at}.G", f"unknown label {_show(g)} (expected one of {', '.join(G5)})")
        if m is not None and m not in M6:
            raise DocumentError(f"{at}.M", f"unknown label {_show(m)} (expected one of {', '.join(M6)})")
        if g is None and m is None:
            raise DocumentError(at, "neither G nor M is given")
        out.append(Judgement(item, rater, g, m))
    return out
