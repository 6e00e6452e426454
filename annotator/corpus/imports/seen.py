"""An index of the keys read so far (sentence-id pairs, pair ids), for duplicate checks in bounded memory."""

from __future__ import annotations

import hashlib

import numpy as np


class SeenKeys:
    """The keys read so far, with the line of each: a sorted array of 64-bit digests of the keys and
    their lines (12 bytes a key) instead of a dict of strings. Keys are added a batch at a time
    (`add`); `first_line` looks one up. Two different keys share a digest with odds of about 2⁻⁶⁴."""

    def __init__(self) -> None:
        self.keys = np.empty(0, dtype=np.uint64)
        self.lines = np.empty(0, dtype=np.uint32)

    @staticmethod
    def key(*parts: str) -> int:
        digest = hashlib.blake2b("\t".join(parts).encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little")

    def first_line(self, key: int) -> int | None:
        at = int(np.searchsorted(self.keys, np.uint64(key)))
        return int(self.lines[at]) if at < len(self.keys) and int(self.keys[at]) == key else None

    def add(self, keys: list[int], lines: list[int]) -> None:
        if not keys:
            return
        new_keys = np.array(keys, dtype=np.uint64)
        order = np.argsort(new_keys, kind="stable")
        new_keys, new_lines = new_keys[order], np.array(lines, dtype=np.uint32)[order]
        at = np.searchsorted(self.keys, new_keys)
        self.keys = np.insert(self.keys, at, new_keys)
        self.lines = np.insert(self.lines, at, new_lines)

    def __len__(self) -> int:
        return len(self.keys)
