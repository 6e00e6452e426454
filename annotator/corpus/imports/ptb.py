"""Parse trees in Penn Treebank bracketed text, attached to existing pairs.

File format (UTF-8 text), one tree per line:

    <pair source_id> TAB <member: 1 or 2> TAB <bracketed tree>

e.g. `1\t1\t(S (NP (NNP Amrozi)) (VP (VBD accused) …) (. .))`. Blank lines and lines starting with "#"
are ignored. Trees are read with NLTK's `Tree.fromstring` (`annotator.core.trees`); their leaves must be the
member's tokens (PTB escapes such as -LRB- stand for brackets), which the write side checks against the
pair in the database (`annotator.corpus.services`).
"""

from __future__ import annotations

from dataclasses import dataclass

from annotator.core.trees import TreeError, parse_tree
from annotator.corpus.imports.problems import Parsed, Problem
from annotator.corpus.imports.reading import decode_utf8


@dataclass
class TreeRecord:
    pair: str
    member: int
    tree: str
    file: str
    line: int


def parse_ptb(data: bytes, filename: str) -> Parsed[TreeRecord]:
    parsed: Parsed[TreeRecord] = Parsed()
    text, problems = decode_utf8(data, filename)
    if text is None:
        parsed.fatal += problems
        return parsed
    seen: dict[tuple[str, int], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            parsed.invalid.append(
                Problem(
                    filename,
                    number,
                    "columns",
                    "expected 3 tab-separated fields (pair id, "
                    f"member 1 or 2, bracketed tree), found {len(fields)}",
                )
            )
            continue
        pair, member, tree = (f.strip() for f in fields)
        if member not in ("1", "2"):
            parsed.invalid.append(Problem(filename, number, "member", f"expected 1 or 2, found {member!r}"))
            continue
        try:
            parse_tree(tree)
        except TreeError as exc:
            parsed.invalid.append(Problem(filename, number, "tree", str(exc)))
            continue
        key = (pair, int(member))
        if key in seen:
            parsed.invalid.append(
                Problem(
                    filename,
                    number,
                    "pair",
                    f"a second tree for pair {pair} member {member} (first on line {seen[key]})",
                )
            )
            continue
        seen[key] = number
        parsed.records.append(TreeRecord(pair, int(member), tree, filename, number))
    return parsed
