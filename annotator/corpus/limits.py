"""Limits on untrusted structured input (uploaded JSON, API bodies), checked before anything is written.

`load_json` parses text with bounded nesting depth, integers that fit a 64-bit column, finite numbers
and bounded strings, naming the line of the first offence. `check` validates a parsed value against a
small declarative spec (`Str`, `Int`, `Bool`, `ListOf`, `MapOf`, `Obj`, `Nullable`, `AnyJson`) and
returns `(path, message)` pairs — the JSON path of each wrong value and what was expected — so that
importers and API serializers report `FILE:LINE: field: message` or `{"field": [...]}` instead of
failing inside the database.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_DEPTH = 64
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
POSITION_MAX = 2**31 - 1  # PositiveIntegerField
MAX_INT_DIGITS = 19
MAX_STRING = 1_000_000  # characters of any one string (a sentence, a tree, a comment)


class JsonLimitError(ValueError):
    """The text is JSON but breaks a limit; `line` is 1-based (None when unknown)."""

    def __init__(self, field: str, message: str, line: int | None = None, literal: str = "") -> None:
        super().__init__(message)
        self.field, self.message, self.line, self.literal = field, message, line, literal


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


_CHUNK = 32_768  # at most this many characters are scanned at a time (~30 bytes of working memory each)
_BRACKET_STEP = np.zeros(256, dtype=np.int8)
_BRACKET_STEP[[ord("["), ord("{")]] = 1
_BRACKET_STEP[[ord("]"), ord("}")]] = -1
_BACKSLASH, _QUOTE = ord("\\"), ord('"')


@dataclass
class _ScanState:
    """What the depth scan carries from one chunk to the next."""

    depth: int = 0  # bracket depth outside strings
    in_string: int = 0  # 1 inside a string
    backslashes: int = 0  # backslashes immediately before the chunk
    open_run: int = 0  # bytes of the string still open at the chunk's start (after its opening quote)
    longest_string: int = 0  # bytes between the quotes of the longest string so far (an open one counts)


def _unescaped_quotes(b: np.ndarray, state: _ScanState) -> np.ndarray:
    """Where the chunk has a quote that no backslash escapes (preceded by an even run of backslashes)."""
    n = b.size
    position = np.arange(1, n + 1, dtype=np.int32)
    is_backslash = b == _BACKSLASH
    # 1-based position of the last byte that is not a backslash, at or before each byte; the chunk's
    # start counts as -backslashes, so that a run begun in the previous chunk keeps its length
    last_other = np.where(is_backslash, np.int32(-state.backslashes), position)
    np.maximum.accumulate(last_other, out=last_other)
    run_before = np.empty(n, dtype=np.int32)  # backslashes immediately before each byte
    run_before[0] = state.backslashes
    run_before[1:] = position[:-1] - last_other[:-1]
    state.backslashes = int(run_before[-1]) + 1 if is_backslash[-1] else 0
    return (b == _QUOTE) & (run_before % 2 == 0)


def _string_runs(quote: np.ndarray, state: _ScanState) -> None:
    """Update the longest string (in bytes) with the strings the chunk's unescaped quotes close."""
    n = quote.size
    at = np.flatnonzero(quote)
    if at.size == 0:
        state.open_run += n if state.in_string else 0
        state.longest_string = max(state.longest_string, state.open_run)
        return
    runs = [state.open_run + int(at[0])] if state.in_string else []
    openings = at[1:] if state.in_string else at  # quotes alternate: opening, closing, …
    closed = openings[: (openings.size // 2) * 2]
    if closed.size:
        runs.append(int((closed[1::2] - closed[0::2]).max()) - 1)
    state.open_run = n - int(openings[-1]) - 1 if openings.size % 2 else 0
    state.longest_string = max(state.longest_string, state.open_run, *runs)


def _outside_strings(data: bytes, b: np.ndarray, state: _ScanState) -> np.ndarray | None:
    """Whether each byte of the chunk stands outside strings (None: all of them do)."""
    if b'"' not in data and not state.in_string:
        state.backslashes = 0
        return None
    if b"\\" in data or state.backslashes:
        quote = _unescaped_quotes(b, state)
    else:
        quote = b == _QUOTE
    _string_runs(quote, state)
    parity_after = np.bitwise_xor.accumulate(quote.view(np.uint8)) ^ np.uint8(state.in_string)
    outside = np.empty(b.size, dtype=bool)  # the parity before each byte is 0
    outside[0] = not state.in_string
    np.equal(parity_after[:-1], 0, out=outside[1:])
    state.in_string = int(parity_after[-1])
    return outside


def _scan_chunk(data: bytes, state: _ScanState, limit: int) -> int | None:
    """Advance `state` over one chunk's UTF-8 bytes; the byte offset in `data` of the first bracket
    nested deeper than `limit`, or None. Each step is one numpy pass over the chunk."""
    b = np.frombuffer(data, dtype=np.uint8)
    outside = _outside_strings(data, b, state)
    step = _BRACKET_STEP[b]
    if outside is not None:
        step[~outside] = 0
    depth = np.cumsum(step, dtype=np.int32)
    too_deep = np.flatnonzero(depth > limit - state.depth)
    if too_deep.size:
        return int(too_deep[0])
    state.depth += int(depth[-1])
    return None


def scan(text: str, limit: int = MAX_DEPTH) -> tuple[int | None, int]:
    """(the character offset where brackets first nest deeper than `limit` outside strings, or None;
    the UTF-8 bytes of the longest string up to there — an upper bound of its characters).

    One pass over `text` a chunk at a time: time linear in its length and working memory at most ~2x its
    size and never more than one chunk's, whatever its shape (unterminated strings, runs of escapes,
    brackets). Brackets inside strings do not count; a string left open runs to the end of the text."""
    state = _ScanState()
    size = max(1, min(_CHUNK, len(text) // 16))
    for start in range(0, len(text), size):
        data = text[start : start + size].encode("utf-8", "surrogatepass")
        offence = _scan_chunk(data, state, limit)
        if offence is not None:
            return start + len(data[:offence].decode("utf-8", "surrogatepass")), state.longest_string
    return None, state.longest_string


def nesting_depth_offence(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The character offset where brackets first nest deeper than `limit` outside strings, or None
    (`scan`)."""
    return scan(text, limit)[0]


def _parse_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonLimitError(
            "number", f"an integer of {digits} digits; at most {MAX_INT_DIGITS} are allowed", literal=literal
        )
    value = int(literal)
    if not INT64_MIN <= value <= INT64_MAX:
        raise JsonLimitError("number", f"integer {literal} does not fit in 64 bits", literal=literal)
    return value


def _parse_float(literal: str) -> float:
    if len(literal) > 64:
        raise JsonLimitError(
            "number", f"a number of {len(literal)} characters; at most 64 are allowed", literal=literal
        )
    value = float(literal)
    if not math.isfinite(value):
        raise JsonLimitError("number", f"number {literal[:30]} is out of range", literal=literal)
    return value


def _reject_constant(name: str) -> Any:
    raise JsonLimitError("number", f"{name} is not a JSON number", literal=name)


def _locate(text: str, literal: str) -> int | None:
    """The line of the first occurrence of `literal` that does not continue a word or a number."""
    at = text.find(literal)
    while at >= 0 and not _stands_alone(text, at, at + len(literal)):
        at = text.find(literal, at + 1)
    return _line_of(text, at) if at >= 0 else None


def _stands_alone(text: str, start: int, end: int) -> bool:
    def joins(char: str) -> bool:
        return char.isalnum() or char in "._"

    return not (start > 0 and joins(text[start - 1])) and not (end < len(text) and joins(text[end]))


def _within_limits_whatever_its_shape(text: str, max_depth: int) -> bool:
    """Whether `text` can neither nest brackets deeper than `max_depth` (it has no more brackets than
    that) nor hold a string of more than MAX_STRING bytes (it has fewer characters than MAX_STRING / 4,
    UTF-8's most bytes per character): then the depth scan has nothing to find. Two counts at C speed
    instead of the scan's numpy passes, which cost most of a short API body's parsing."""
    return len(text) <= MAX_STRING // 4 and text.count("[") + text.count("{") <= max_depth


def load_json(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON within the limits; `json.JSONDecodeError` for bad syntax, `JsonLimitError` for the rest."""
    if _within_limits_whatever_its_shape(text, max_depth):
        offence, longest_string = None, 0
    else:
        offence, longest_string = scan(text, max_depth)
    if offence is not None:
        raise JsonLimitError("json", f"nested more than {max_depth} levels deep", _line_of(text, offence))
    try:
        value = json.loads(
            text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_reject_constant
        )
    except JsonLimitError as exc:
        if exc.line is None and exc.literal:
            exc.line = _locate(text, exc.literal)
        raise
    except RecursionError as exc:  # defensive: the depth scan above should have caught it
        raise JsonLimitError("json", "nested too deeply") from exc
    # The scan held the depth and the hooks the numbers; a string can be too long only where the scan
    # saw one of more than MAX_STRING bytes: only then is the value walked (a Python step per value).
    if longest_string > MAX_STRING:
        for path, message in check(value, AnyJson()):
            raise JsonLimitError(path or "json", message)
    return value


# ---- specs -----------------------------------------------------------------------------------------


class Spec:
    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        raise NotImplementedError


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


@dataclass
class Str(Spec):
    max_length: int = MAX_STRING
    choices: tuple[str, ...] = ()

    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        if not isinstance(value, str):
            yield path, f"expected a string, got {_kind(value)}"
        elif len(value) > self.max_length:
            yield path, f"{len(value)} characters; at most {self.max_length} are allowed"
        elif self.choices and value not in self.choices:
            yield path, f"{value[:40]!r} is not one of {', '.join(self.choices)}"
        elif "\x00" in value:
            yield path, "contains a NUL character"


@dataclass
class Int(Spec):
    minimum: int = INT64_MIN
    maximum: int = INT64_MAX

    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        if not isinstance(value, int) or isinstance(value, bool):
            yield path, f"expected an integer, got {_kind(value)}"
        elif not self.minimum <= value <= self.maximum:
            yield path, f"{value} is out of range ({self.minimum}…{self.maximum})"


@dataclass
class Number(Spec):
    """An integer or a finite number (a score)."""

    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        if isinstance(value, bool) or not isinstance(value, int | float):
            yield path, f"expected a number, got {_kind(value)}"


@dataclass
class Bool(Spec):
    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        if not isinstance(value, bool):
            yield path, f"expected true or false, got {_kind(value)}"


@dataclass
class Nullable(Spec):
    inner: Spec

    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        if value is not None:
            yield from self.inner.problems(value, path, depth)


@dataclass
class ListOf(Spec):
    item: Spec
    max_items: int = 10_000_000
    length: int | None = None

    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        if not isinstance(value, list):
            yield path, f"expected a list, got {_kind(value)}"
            return
        if self.length is not None and len(value) != self.length:
            yield path, f"expected {self.length} elements, got {len(value)}"
            return
        if len(value) > self.max_items:
            yield path, f"{len(value)} elements; at most {self.max_items} are allowed"
            return
        for n, item in enumerate(value):
            yield from self.item.problems(item, f"{path}[{n}]", depth + 1)


@dataclass
class MapOf(Spec):
    key: Str
    value: Spec

    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        if not isinstance(value, dict):
            yield path, f"expected an object, got {_kind(value)}"
            return
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if len(key) > self.key.max_length:
                yield where[:200], f"key of {len(key)} characters; at most {self.key.max_length} are allowed"
                continue
            yield from self.value.problems(item, where, depth + 1)


@dataclass
class Obj(Spec):
    fields: dict[str, Spec]
    required: tuple[str, ...] = ()
    extra: bool = True  # unknown keys are ignored (a newer exporter may add some)

    def problems(self, value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
        if not isinstance(value, dict):
            yield path, f"expected an object, got {_kind(value)}"
            return
        for name in self.required:
            if name not in value:
                yield (f"{path}.{name}" if path else name), "missing"
        for name, spec in self.fields.items():
            if name in value:
                yield from spec.problems(value[name], f"{path}.{name}" if path else name, depth + 1)
        if not self.extra:
            for name in value:
                if name not in self.fields:
                    yield (f"{path}.{name}" if path else str(name))[:200], "unknown field"


@dataclass
class AnyJson(Spec):
    """Any JSON value within the generic limits (depth, integer size, string length)."""

    max_depth: int = MAX_DEPTH
    max_string: int = MAX_STRING

    def problems(self, value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, str]]:
        stack: list[tuple[Any, str, int]] = [(value, path, depth)]
        while stack:
            item, where, level = stack.pop()
            if level > self.max_depth:
                yield where, f"nested more than {self.max_depth} levels deep"
                return
            if isinstance(item, bool) or item is None:
                continue
            if isinstance(item, int):
                if not INT64_MIN <= item <= INT64_MAX:
                    yield where, "integer does not fit in 64 bits"
            elif isinstance(item, float):
                if not math.isfinite(item):
                    yield where, "number out of range"
            elif isinstance(item, str):
                if len(item) > self.max_string:
                    yield where, f"{len(item)} characters; at most {self.max_string} are allowed"
            elif isinstance(item, list):
                stack.extend((v, f"{where}[{n}]", level + 1) for n, v in enumerate(item))
            elif isinstance(item, dict):
                stack.extend((v, f"{where}.{k}" if where else str(k), level + 1) for k, v in item.items())
            else:
                yield where, f"unexpected {type(item).__name__}"


def check(value: Any, spec: Spec, path: str = "") -> list[tuple[str, str]]:
    """Every `(path, message)` of `value` against `spec` (at most 50, the first ones)."""
    out = []
    for problem in spec.problems(value, path, 0):
        out.append(problem)
        if len(out) >= 50:
            break
    return out
