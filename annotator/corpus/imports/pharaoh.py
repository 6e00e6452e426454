"""Word alignments in the Pharaoh/Moses style, one annotator per file.

File format (UTF-8 text), one pair per line:

    <pair source_id> TAB <links>

`<links>` are space-separated `i-j` (a sure link) and `i?j` (a possible link) with 0-based token indices,
i in member 1 and j in member 2 — Pharaoh's `i-j` notation, with `?` marking possible links as in the
Moses/Och & Ney sure/possible convention. An empty `<links>` is an empty alignment. Blank lines and
lines starting with "#" are ignored. E.g. `17\t0-0 1-2 2?3`.

Importing adds the links to the annotator's alignment of each pair (links already there are kept;
a link in the file that is there with the other kind is changed to the file's kind). With
`--annotator initial` the file holds the pairs' initial automatic alignments instead (sure links only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from annotator.corpus.imports.problems import Parsed, Problem
from annotator.corpus.imports.reading import decode_utf8

LINK = re.compile(r"^(\d+)([-?])(\d+)$")


@dataclass
class AlignmentRecord:
    pair: str
    links: list[tuple[int, int, bool]]  # (i, j, sure)
    file: str
    line: int


def parse_pharaoh(data: bytes, filename: str) -> Parsed[AlignmentRecord]:
    parsed: Parsed[AlignmentRecord] = Parsed()
    text, problems = decode_utf8(data, filename)
    if text is None:
        parsed.fatal += problems
        return parsed
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pair, _, links_text = line.partition("\t")
        pair = pair.strip()
        if not pair or " " in pair:
            parsed.invalid.append(
                Problem(filename, number, "pair", "expected a pair id, a tab, then the links")
            )
            continue
        links: list[tuple[int, int, bool]] = []
        bad = None
        for token in links_text.split():
            match = LINK.match(token)
            if not match:
                bad = token
                break
            links.append((int(match[1]), int(match[3]), match[2] == "-"))
        if bad is not None:
            parsed.invalid.append(
                Problem(
                    filename, number, "links", f"{bad!r} is not a link: expected i-j (sure) or i?j (possible)"
                )
            )
            continue
        if pair in seen:
            parsed.invalid.append(
                Problem(filename, number, "pair", f"pair {pair} is listed twice (first on line {seen[pair]})")
            )
            continue
        seen[pair] = number
        parsed.records.append(AlignmentRecord(pair, links, filename, number))
    return parsed
