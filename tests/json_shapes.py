"""Adversarial JSON bodies of a given size, shared by the pre-check's tests and its benchmark."""

from __future__ import annotations

from collections.abc import Callable

ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "unterminated string of escaped quotes": lambda n: '"' + '\\"' * (n // 2),
    "open string in an object": lambda n: '{"username": "' + '\\"' * (n // 2),
    "runs of backslashes": lambda n: '["' + '\\\\\\"[[[[' * (n // 10) + '"]',
    "quotes only": lambda n: '"' * n,
    "empty strings": lambda n: "[" + '"",' * (n // 3) + '""]',
    "flat brackets": lambda n: "[]" * (n // 2),
    "brackets between strings": lambda n: "[" + '"",[],' * (n // 6) + "]",
    "long number": lambda n: "[" + "1" * n + "]",
    "huge key": lambda n: '{"' + "k" * n + '": 1}',
    "non-ASCII in strings": lambda n: '["' + 'é\\"' * (n // 4) + '"]',
}
