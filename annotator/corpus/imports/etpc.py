"""ETPC (Extended Paraphrase Typology Corpus) XML → type, pair and phenomenon records.

Files (see `ETPC_XML_v0.95.txt`), recognised by their first element, not their name:
- `paraphrase_types.xml` (`<paraphrase_type>`: type_id, type_name, type_category) → the ETPC tagset;
- `text_pairs.xml` (`<pair>`: pair_id, sent1_id, sent2_id, sent1_raw, sent2_raw, sent1_tok, sent2_tok,
  mrpc_label, etpc_label, negation) → pairs with ETPC's own tokens; without it the pairs come from the
  MRPC files (`annotator.corpus.imports.mrpc`, same pair ids), tokenized as ETPC did;
- relation files (`<relation>`: pair_id, type_id, type_name, sense_preserving, s1_scope, s2_scope,
  s1_text, s2_text, key_s1, key_s2, k1_text, k2_text) — `textual_np_pos.xml`, `textual_np_neg.xml`,
  `negation.xml`, `textual_paraphrases.xml` → phenomena of one annotator.

Scopes and keys are comma-separated 0-based token indices, or the words "whole sentence" (all tokens of
that member). The real files are imperfect, and each relation is checked against its own text
(`s1_text` for `s1_scope`, `k1_text` for `key_s1`, …):
- the indices name exactly the tokens of the text → taken as they are;
- otherwise (other tokens, indices past the end of the member, or no indices but a text), the text is
  matched against the member's tokens: each word of the text must be one token or several adjacent
  tokens run together (the 2018 tokenizer kept curly quotes and apostrophes inside tokens, e.g.
  "Europe’s" for "Europe ’ s"), words in order, gaps allowed. Exactly one such match → the indices are
  repaired and the repair reported; none or several → a problem;
- a stray leading comma (", 6") is dropped and reported as a repair;
- the result must pass `annotator.core.validation.phenomenon_fields` for the relation's type.
Problems name the relation by its 1-based element number in the file and its pair id.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from django.core.exceptions import ValidationError

from annotator.core import validation
from annotator.corpus.imports.problems import Parsed, Problem
from annotator.corpus.imports.records import PairRecord, PhenomenonRecord
from annotator.corpus.tokenize import tokenize
from annotator.models import ParaphraseType

WHOLE_SENTENCE = "whole sentence"
MAX_TOKENS_PER_WORD = 6
# Our field names → ETPC's, so problems use the names the user sees in the file.
ETPC_FIELD = {
    "scope1": "s1_scope",
    "scope2": "s2_scope",
    "key1": "key_s1",
    "key2": "key_s2",
    "projection": "type_id",
    "ptype": "type_id",
}
INDEX_LISTS = (
    ("scope1", "s1_scope", "s1_text", 1),
    ("scope2", "s2_scope", "s2_text", 2),
    ("key1", "key_s1", "k1_text", 1),
    ("key2", "key_s2", "k2_text", 2),
)


@dataclass
class TypeRecord:
    code: str
    name: str
    category: str


def read_xml(data: bytes, filename: str) -> tuple[ET.Element | None, list[Problem]]:
    """The root element, or a problem saying where the XML breaks (a truncated file, binary junk)."""
    if b"\x00" in data[:4096]:
        return None, [Problem(filename, None, "", "this is a binary file (it contains NUL bytes), not XML")]
    try:
        return ET.fromstring(data), []
    except ET.ParseError as exc:
        line, column = exc.position
        reason = str(exc).split(":")[0]
        truncated = reason in ("no element found", "unclosed token") or line > data.count(b"\n")
        hint = " — the file is truncated" if truncated else ""
        return None, [
            Problem(filename, line, "xml", f"not well-formed XML: {reason} at column {column + 1}{hint}")
        ]
    except (LookupError, ValueError) as exc:  # e.g. <?xml encoding="TF-8"?>: an encoding Python lacks
        return None, [Problem(filename, 1, "xml", f"unreadable XML declaration: {exc}")]


def kind_of(root: ET.Element) -> str | None:
    """'types', 'pairs' or 'relations' by the first child element; None when it is no ETPC file."""
    first = next(iter(root), None)
    return {"paraphrase_type": "types", "pair": "pairs", "relation": "relations"}.get(
        first.tag if first is not None else ""
    )


def _text(element: ET.Element, name: str) -> str:
    return (element.findtext(name) or "").strip()


def parse_types(root: ET.Element, filename: str) -> Parsed[TypeRecord]:
    parsed: Parsed[TypeRecord] = Parsed()
    seen: set[str] = set()
    for number, element in enumerate(root.iter("paraphrase_type"), start=1):
        code, name = _text(element, "type_id"), _text(element, "type_name")
        if not code or not name:
            parsed.invalid.append(
                Problem(filename, number, "type_id" if not code else "type_name", "missing")
            )
        elif code in seen:
            parsed.invalid.append(Problem(filename, number, "type_id", f"duplicate type_id {code}"))
        else:
            seen.add(code)
            parsed.records.append(TypeRecord(code, name, _text(element, "type_category")))
    return parsed


def parse_text_pairs(root: ET.Element, filename: str) -> Parsed[PairRecord]:
    parsed: Parsed[PairRecord] = Parsed()
    seen: set[str] = set()
    for number, element in enumerate(root.iter("pair"), start=1):
        pair_id = _text(element, "pair_id")
        raw1, raw2 = _text(element, "sent1_raw"), _text(element, "sent2_raw")
        problem = None
        if not pair_id.isdigit():
            problem = Problem(filename, number, "pair_id", f"expected a number, found {pair_id!r}")
        elif pair_id in seen:
            problem = Problem(filename, number, "pair_id", f"duplicate pair_id {pair_id}")
        elif not raw1 or not raw2:
            problem = Problem(filename, number, "sent1_raw" if not raw1 else "sent2_raw", "empty sentence")
        if problem:
            parsed.invalid.append(problem)
            continue
        seen.add(pair_id)
        tok1, tok2 = _text(element, "sent1_tok"), _text(element, "sent2_tok")
        labels: dict[str, str | int] = {
            "split": "train" if int(pair_id) <= 4076 else "test",
            "mrpc_id1": _text(element, "sent1_id"),
            "mrpc_id2": _text(element, "sent2_id"),
        }
        for name, key in (
            ("mrpc_label", "mrpc_quality"),
            ("etpc_label", "etpc_label"),
            ("negation", "negation"),
        ):
            if _text(element, name) in ("0", "1"):
                labels[key] = int(_text(element, name))
        parsed.records.append(
            PairRecord(
                source_id=pair_id,
                position=int(pair_id) - 1,
                text1=raw1,
                text2=raw2,
                tokens1=tok1.split() if tok1 else tokenize(raw1),
                tokens2=tok2.split() if tok2 else tokenize(raw2),
                corpus_labels=labels,
                file=filename,
                line=number,
            )
        )
    return parsed


# ---- relations --------------------------------------------------------------------------------------


class IndexError_(ValueError):
    """An index list that is not a list of numbers."""


def parse_indices(raw: str, n_tokens: int) -> tuple[list[int], bool]:
    """Indices of a scope/key field; returns (indices, had_stray_comma). "whole sentence" = all tokens."""
    raw = raw.strip()
    if not raw:
        return [], False
    if raw.lower() == WHOLE_SENTENCE:
        return list(range(n_tokens)), False
    stray = raw.startswith(",")
    parts = [part.strip() for part in raw.lstrip(", ").split(",")]
    if not all(part.isdigit() for part in parts):
        raise IndexError_(f'{raw!r} is not a comma-separated list of token indices or "whole sentence"')
    return [int(part) for part in parts], stray


QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "`": "'"})


def _plain(text: str) -> str:
    """Compare quotes by kind only: the 2018 tokenizer and today's differ in `` '' " “ ” ‘ ’."""
    return text.replace("``", '"').replace("''", '"').translate(QUOTES)


def spell_out(words: Sequence[str], tokens: Sequence[str], *, limit: int = 8) -> list[list[int]]:
    """Token-index lists (at most `limit`) that spell `words` in order, gaps allowed.

    A run of adjacent words matches a run of adjacent tokens when both run together give the same
    characters (quotes compared by kind), e.g. the word "Europe’s" = tokens "Europe" "’" "s", and the
    words "Pfc ." = the token "Pfc.".
    """
    words = tuple(_plain(w) for w in words)
    toks = tuple(_plain(t) for t in tokens)
    n = len(toks)

    @cache
    def solve(w: int, t: int) -> tuple[tuple[int, ...], ...]:
        if w == len(words):
            return ((),)
        found: list[tuple[int, ...]] = []
        for start in range(t, n):
            a, b, end, next_w = toks[start], words[w], start, w + 1
            while len(a) <= 200:
                if a == b:
                    for rest in solve(next_w, end + 1):
                        found.append(tuple(range(start, end + 1)) + rest)
                        if len(found) >= limit:
                            return tuple(found)
                    break
                if b.startswith(a) and end + 1 < n and end - start < MAX_TOKENS_PER_WORD:
                    end += 1
                    a += toks[end]
                elif a.startswith(b) and next_w < len(words):
                    b += words[next_w]
                    next_w += 1
                else:
                    break
        return tuple(found)

    return [list(solution) for solution in solve(0, 0)]


def closest(solutions: list[list[int]], indices: Sequence[int]) -> list[int] | None:
    """The only solution that shares most indices with the given list, or None if that is not unique."""
    given = set(indices)
    overlaps = sorted(((len(given.intersection(s)), n) for n, s in enumerate(solutions)), reverse=True)
    if not overlaps or overlaps[0][0] == 0 or (len(overlaps) > 1 and overlaps[1][0] == overlaps[0][0]):
        return None
    return solutions[overlaps[0][1]]


def _describe(indices: Sequence[int]) -> str:
    return ", ".join(map(str, indices)) or "none"


def _check_list(
    indices: list[int],
    text: str,
    tokens: Sequence[str],
    *,
    member: int,
    field: str,
    text_field: str,
) -> tuple[list[int], str | None, str | None]:
    """(indices, repair message or None, problem message or None) for one scope/key against its text."""
    in_range = all(i < len(tokens) for i in indices)
    if in_range and (not text or _plain(" ".join(tokens[i] for i in indices)) == _plain(text)):
        return indices, None, None
    if not text:
        bad = next(i for i in indices if i >= len(tokens))
        return (
            indices,
            None,
            (
                f"token {bad} is past the end of member {member}, which has {len(tokens)} "
                f"tokens, and there is no {text_field} to repair it from"
            ),
        )
    solutions = spell_out(text.split(), tokens)
    chosen = solutions[0] if len(solutions) == 1 else closest(solutions, indices)
    if chosen is not None:
        how = (
            ""
            if len(solutions) == 1
            else f" (of {len(solutions)} matches, the one closest to the given indices)"
        )
        return (
            chosen,
            f"{field} {_describe(indices)} → {_describe(chosen)}, the tokens of {text_field} {text!r}{how}",
            None,
        )
    if not in_range:
        now = f"past the end of member {member} ({len(tokens)} tokens)"
    else:
        now = f"the tokens {' '.join(tokens[i] for i in indices)!r}" if indices else "empty"
    where = "does not occur in" if not solutions else "occurs more than once in"
    return (
        indices,
        None,
        f"indices {_describe(indices)} are {now}, and {text_field} {text!r} {where} member {member}",
    )


def _index_lists(
    element: ET.Element, tokens: tuple[Sequence[str], Sequence[str]]
) -> tuple[dict[str, list[int]], list[tuple[str, str]], tuple[str, str] | None]:
    """A relation's scope and key lists, checked against the members' tokens and their text fields:
    the lists by field, the repairs made (field, what), and the first problem (field, message)."""
    fields: dict[str, list[int]] = {}
    repairs: list[tuple[str, str]] = []
    for name, etpc_field, text_field, member in INDEX_LISTS:
        member_tokens = tokens[member - 1]
        try:
            indices, stray = parse_indices(element.findtext(etpc_field) or "", len(member_tokens))
        except IndexError_ as exc:
            return fields, repairs, (etpc_field, str(exc))
        if stray:
            repairs.append((etpc_field, f"dropped the stray leading comma of {_text(element, etpc_field)!r}"))
        raw = _text(element, etpc_field)
        text = "" if raw.lower() == WHOLE_SENTENCE else " ".join(_text(element, text_field).split())
        indices, repair, trouble = _check_list(
            indices, text, member_tokens, member=member, field=etpc_field, text_field=text_field
        )
        if trouble:
            return fields, repairs, (etpc_field, trouble)
        if repair:
            repairs.append((etpc_field, repair))
        fields[name] = indices
    return fields, repairs, None


def _relation(
    element: ET.Element,
    number: int,
    filename: str,
    tokens_by_pair: Mapping[str, tuple[Sequence[str], Sequence[str]]],
    types: Mapping[str, ParaphraseType],
    parsed: Parsed[PhenomenonRecord],
) -> None:
    pair_id, type_id = _text(element, "pair_id"), _text(element, "type_id")
    prefix = f"pair {pair_id}: "

    def problem(field: str, message: str) -> None:
        parsed.invalid.append(Problem(filename, number, field, prefix + message))

    if pair_id not in tokens_by_pair:
        return problem(
            "pair_id", "no such pair in the project (import the MRPC files or text_pairs.xml first)"
        )
    ptype = types.get(type_id)
    if ptype is None:
        return problem("type_id", f"unknown type_id {type_id!r}: not in the ETPC tagset")
    sense = _text(element, "sense_preserving").lower()
    if sense not in ("", "yes", "no"):
        return problem("sense_preserving", f"expected yes, no or nothing, found {sense!r}")
    tokens = tokens_by_pair[pair_id]
    fields, repairs, failure = _index_lists(element, tokens)
    if failure:
        return problem(*failure)
    try:
        projection = _text(element, "projection").lower()  # written by our ETPC export; absent in ETPC
        clean = validation.phenomenon_fields(ptype, tokens[0], tokens[1], projection=projection, **fields)
    except ValidationError as exc:
        for field, messages in exc.message_dict.items():
            problem(ETPC_FIELD.get(field, field), " ".join(messages))
        return None
    for field, message in repairs:
        parsed.repaired.append(Problem(filename, number, field, prefix + "repaired: " + message))
    parsed.records.append(
        PhenomenonRecord(
            pair=pair_id,
            type_code=type_id,
            sense_preserving={"yes": True, "no": False}.get(sense),
            file=filename,
            line=number,
            **clean,
        )
    )
    return None


def parse_relations(
    root: ET.Element,
    filename: str,
    tokens_by_pair: Mapping[str, tuple[Sequence[str], Sequence[str]]],
    types: Mapping[str, ParaphraseType],
) -> Parsed[PhenomenonRecord]:
    """Phenomena of a relation file; `tokens_by_pair` maps pair ids to (tokens1, tokens2), `types` codes
    to the tagset's types (whose flags the validation reads)."""
    parsed: Parsed[PhenomenonRecord] = Parsed()
    for number, element in enumerate(root.iter("relation"), start=1):
        _relation(element, number, filename, tokens_by_pair, types, parsed)
    return parsed
