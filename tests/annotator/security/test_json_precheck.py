"""The JSON pre-check costs linear time and bounded memory on adversarial shapes.

A quadratic pass over an unterminated string of escaped quotes would let a 128 KB anonymous body hold a
web worker for a minute. These tests compare a large body with a small one of the same shape, so a
quadratic pass fails them on any machine; `bench/bench_json_precheck.py` prints the absolute figures.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from annotator.corpus import limits
from annotator.corpus.limits import MAX_DEPTH, nesting_depth_offence
from tests import make
from tests.json_shapes import ADVERSARIAL

KB = 1024


def reference_offence(text: str, limit: int) -> int | None:
    """The depth scan written the plain way, one character at a time."""
    depth, in_string, escaped = 0, False, False
    for offset, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return offset
        elif char in "]}":
            depth -= 1
        elif char == "\\":
            escaped = False
    return None


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='[]{}"\\ aé,', max_size=300), limit=st.integers(0, 6), chunk=st.integers(1, 9))
def test_equals_the_plain_scan_across_chunk_boundaries(text: str, limit: int, chunk: int) -> None:
    original = limits._CHUNK
    limits._CHUNK = chunk
    try:
        assert nesting_depth_offence(text, limit) == reference_offence(text, limit)
    finally:
        limits._CHUNK = original


def reference_longest_string(text: str) -> tuple[int, bool]:
    """The UTF-8 bytes between the quotes of the longest string (an open one runs to the end), written
    the plain way; and whether a backslash stands outside strings (invalid JSON, which the parser
    refuses: the scan need not agree there)."""
    data = text.encode("utf-8", "surrogatepass")
    longest, start, escaped, stray = 0, None, False, False
    for offset, byte in enumerate(data):
        if start is not None:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                longest, start = max(longest, offset - start - 1), None
        elif byte == 0x22:
            start = offset
        elif byte == 0x5C:
            stray = True
    if start is not None:
        longest = max(longest, len(data) - start - 1)
    return longest, stray


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='[]"\\ aé', max_size=300), chunk=st.integers(1, 9))
def test_the_longest_string_equals_the_plain_scan_across_chunk_boundaries(text: str, chunk: int) -> None:
    original = limits._CHUNK
    limits._CHUNK = chunk
    try:
        longest, stray = reference_longest_string(text)
        assume(not stray)
        assert limits.scan(text, 10**6)[1] == longest
    finally:
        limits._CHUNK = original


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='[]{}"\\ aé,', max_size=40), limit=st.integers(0, 12))
def test_a_text_passed_without_the_scan_is_one_the_scan_passes(text: str, limit: int) -> None:
    if limits._within_limits_whatever_its_shape(text, limit):
        offence, longest = limits.scan(text, limit)
        assert offence is None and longest <= limits.MAX_STRING


def test_a_short_api_body_is_parsed_without_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """A label save's body: the scan's numpy passes cost ~30 times `json.loads` on it."""

    def no_scan(text: str, limit: int = MAX_DEPTH) -> tuple[int | None, int]:
        raise AssertionError("scanned")

    monkeypatch.setattr(limits, "scan", no_scan)
    body = '{"pair": 12345, "label": "non_paraphrase", "base_version": null}'
    assert limits.load_json(body) == {"pair": 12345, "label": "non_paraphrase", "base_version": None}
    with pytest.raises(AssertionError, match="scanned"):  # brackets beyond the limit: scanned
        limits.load_json("[" * 5 + "]" * 5, max_depth=4)
    monkeypatch.undo()
    with pytest.raises(limits.JsonLimitError, match="nested more than 4"):  # and refused, as before
        limits.load_json("[" * 5 + "]" * 5, max_depth=4)


@pytest.mark.parametrize("shape", ["{}", "[]", "0", '""', "0.5", '{"a":[1,2]}'])
def test_parsing_a_body_of_many_small_values_costs_what_the_parser_does(shape: str) -> None:
    """A 4 MB body of small values: `load_json` once walked every value in Python after parsing it
    (~22 s for 9.4 MB of `{}` on a loaded machine): now only bodies with a string longer than the
    limit are walked; the rest costs the scan plus `json.loads`."""
    body = "[" + ",".join([shape] * (4 * 2**20 // (len(shape) + 1))) + "]"
    started = time.perf_counter()
    json.loads(body)
    plain = time.perf_counter() - started
    started = time.perf_counter()
    limits.load_json(body)
    ours = time.perf_counter() - started
    assert ours < 6 * plain + 0.5, (shape, plain, ours)  # hooks for numbers: a call per number


def test_a_string_over_the_limit_is_still_refused() -> None:
    with pytest.raises(limits.JsonLimitError, match="characters; at most"):
        limits.load_json(json.dumps({"a": "x" * (limits.MAX_STRING + 1)}))
    assert limits.load_json(json.dumps({"a": "é" * limits.MAX_STRING})) == {"a": "é" * limits.MAX_STRING}


def _cost(text: str) -> tuple[float, int]:
    tracemalloc.start()
    started = time.perf_counter()
    nesting_depth_offence(text)
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed, peak


@pytest.mark.parametrize("shape", ADVERSARIAL)
def test_time_and_memory_are_linear_in_the_body(shape: str) -> None:
    small, large = ADVERSARIAL[shape](8 * KB), ADVERSARIAL[shape](64 * KB)
    _cost(small)  # warm numpy's dispatch
    small_time = min(_cost(small)[0] for _ in range(3))
    large_time, large_peak = min(_cost(large) for _ in range(2))
    # 8 times the bytes: linear costs at most ~8x, a quadratic pass ~64x
    assert large_time <= 24 * max(small_time, 0.5e-3), (shape, small_time, large_time)
    # the working memory is that of one chunk (~1 MB), not ~120 bytes per character of the body
    assert large_peak <= 1536 * KB, (shape, large_peak)


@pytest.mark.parametrize("shape", ADVERSARIAL)
def test_a_megabyte_takes_well_under_a_second(shape: str) -> None:
    elapsed, peak = _cost(ADVERSARIAL[shape](1024 * KB))
    assert elapsed < 1.0, (shape, elapsed)  # ~25 ms here; `make bench` prints the figure
    assert peak <= 1536 * KB, (shape, peak)


@pytest.mark.django_db
def test_anonymous_token_request_with_a_hostile_body_is_refused_quickly() -> None:
    body = '{"username": "' + '\\"' * (64 * KB)
    client = make.api_client(None)
    started = time.perf_counter()
    response = client.post("/api/token/", body, content_type="application/json")
    assert response.status_code == 400
    assert time.perf_counter() - started < 5  # was 60 s for 128 KB (the worker was killed)


@pytest.mark.django_db
def test_anonymous_token_request_of_many_small_values_is_answered_as_fast_as_it_is_parsed() -> None:
    body = "[" + ",".join(["{}"] * (9 * 2**20 // 3)) + "]"  # 9 MB: ~3 million empty objects
    started = time.perf_counter()
    json.loads(body)
    plain = time.perf_counter() - started
    started = time.perf_counter()
    response = make.api_client(None).post("/api/token/", body, content_type="application/json")
    assert response.status_code == 400
    assert time.perf_counter() - started < 6 * plain + 1.0  # was ~22 s (every value walked in Python)


@pytest.mark.django_db
def test_a_body_nested_too_deep_names_the_line() -> None:
    body = '{"username": "x",\n "password": ' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "}"
    response = make.api_client(None).post("/api/token/", body, content_type="application/json")
    assert response.status_code == 400
    assert "nested more than" in str(response.json()) and "line 2" in str(response.json())


@pytest.mark.django_db
def test_a_body_declared_too_large_is_refused_before_it_is_read(settings: Any) -> None:
    MAX_BODY = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    client = make.api_client(None)
    response = client.generic(
        "POST", "/api/token/", b"{}", content_type="application/json", CONTENT_LENGTH=str(MAX_BODY + 1)
    )
    assert response.status_code == 400
    assert f"at most {MAX_BODY}" in str(response.json())
