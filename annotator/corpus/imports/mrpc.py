"""MRPC (Microsoft Research Paraphrase Corpus) TSV files → pair records.

The files as distributed (`msr_paraphrase_train.txt`, `msr_paraphrase_test.txt`): UTF-8 with a
byte-order mark, CRLF line ends, a header `Quality  #1 ID  #2 ID  #1 String  #2 String`, tab-separated,
and double quotes that do not pair up — so lines are split at tabs, never parsed with CSV quoting.

Source ids follow ETPC's pair ids so that ETPC relations attach to the pairs: the training file's rows
are pairs 1..4076 in file order, the test file's rows are 4077.. (4076 + row number). A file counts as
the test set when its name contains "test", otherwise as the training set. The MRPC quality label,
both sentence ids and the split are kept in `corpus_labels`:
`{"mrpc_quality": 0|1, "mrpc_id1": "702876", "mrpc_id2": "702977", "split": "train"|"test"}`.
Members are tokenized with `annotator.corpus.tokenize.tokenize` (NLTK's Treebank-style tokenizer, as ETPC).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import PurePath
from typing import BinaryIO

from annotator.corpus.imports.problems import Parsed, Problem
from annotator.corpus.imports.reading import utf8_lines
from annotator.corpus.imports.records import PairRecord
from annotator.corpus.imports.seen import SeenKeys
from annotator.corpus.tokenize import tokenize

HEADER = ["Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"]
TRAIN_ROWS = 4076  # ETPC: pair ids 1..4076 are MRPC's training rows, the test rows follow


def split_of(filename: str) -> str:
    return "test" if "test" in PurePath(filename).name.lower() else "train"


def _header_problem(header: str, filename: str) -> Problem | None:
    fields = header.split("\t")
    if [f.strip() for f in fields] == HEADER:
        return None
    if len(fields) == 1 and header.count(",") >= 4:
        return Problem(
            filename,
            1,
            "header",
            "the columns are separated by commas; MRPC files are tab-separated "
            f"with the header {' | '.join(HEADER)}",
        )
    if len(fields) == 1 and header.count(";") >= 4:
        return Problem(
            filename, 1, "header", "the columns are separated by semicolons; MRPC files are tab-separated"
        )
    return Problem(
        filename,
        1,
        "header",
        f"expected the MRPC header {' | '.join(HEADER)} (tab-separated), found {header[:80]!r}",
    )


def _row(
    line: str,
    number: int,
    filename: str,
    source_id: str,
    position: int,
    tokenize: Callable[[str], list[str]] = tokenize,
) -> PairRecord | Problem:
    fields = line.split("\t")
    if len(fields) != 5:
        return Problem(filename, number, "columns", f"expected 5 tab-separated fields, found {len(fields)}")
    quality, id1, id2, text1, text2 = (f.strip() for f in fields)
    if quality not in ("0", "1"):
        return Problem(filename, number, "Quality", f"expected 0 or 1, found {quality!r}")
    for name, value in (("#1 ID", id1), ("#2 ID", id2)):
        if not value:
            return Problem(filename, number, name, "the sentence id is empty")
    for name, value in (("#1 String", text1), ("#2 String", text2)):
        if not value:
            return Problem(filename, number, name, "empty sentence")
    return PairRecord(
        source_id=source_id,
        position=position,
        text1=text1,
        text2=text2,
        tokens1=tokenize(text1),
        tokens2=tokenize(text2),
        corpus_labels={
            "mrpc_quality": int(quality),
            "mrpc_id1": id1,
            "mrpc_id2": id2,
            "split": split_of(filename),
        },
        file=filename,
        line=number,
    )


def parse_mrpc(
    data: bytes, filename: str, tokenize: Callable[[str], list[str]] = tokenize
) -> Parsed[PairRecord]:
    """Read one MRPC file; every row that cannot be a pair is a problem naming its line and field.

    `tokenize` splits the members (the project language's tokenizer; ETPC's Treebank rules by default).
    The whole file at once: `stream_mrpc` is the same reading in batches.
    """
    parsed: Parsed[PairRecord] = Parsed()
    for batch in stream_mrpc(io.BytesIO(data), filename, tokenize):
        parsed.extend(batch)
    if parsed.fatal:  # a file that is not MRPC text yields nothing else
        return Parsed(fatal=parsed.fatal)
    return parsed


def stream_mrpc(
    stream: BinaryIO,
    filename: str,
    tokenize: Callable[[str], list[str]] = tokenize,
    *,
    batch_size: int = 2000,
) -> Iterator[Parsed[PairRecord]]:
    """`parse_mrpc` one batch of rows at a time (memory: a batch, plus 12 bytes a row to find duplicate
    sentence-id pairs). A fatal problem (not UTF-8 text, no MRPC header) ends the reading; records of
    earlier batches may have been yielded before it, so the caller must not keep them."""
    lines = utf8_lines(stream, filename)
    first = next(lines)
    if isinstance(first, Problem):
        yield Parsed(fatal=[first])
        return
    if not first[1].strip():
        yield Parsed(fatal=[Problem(filename, 1, "header", "the file is empty")])
        return
    header_problem = _header_problem(first[1], filename)
    if header_problem:
        yield Parsed(fatal=[header_problem])
        return
    offset = TRAIN_ROWS if split_of(filename) == "test" else 0
    seen, batch_seen = SeenKeys(), dict[int, int]()
    parsed: Parsed[PairRecord] = Parsed()
    row = 0
    for item in lines:
        if isinstance(item, Problem):
            parsed.fatal.append(item)
            break
        number, line = item
        if not line.strip():
            continue
        row += 1
        result = _row(line, number, filename, str(offset + row), offset + row - 1, tokenize)
        if isinstance(result, Problem):
            parsed.invalid.append(result)
            continue
        ids = (result.corpus_labels["mrpc_id1"], result.corpus_labels["mrpc_id2"])
        key = SeenKeys.key(*ids)
        first_line = batch_seen.get(key) or seen.first_line(key)
        if first_line is not None:
            parsed.invalid.append(
                Problem(
                    filename,
                    number,
                    "#1 ID",
                    f"duplicate pair {ids[0]}/{ids[1]} (first on line {first_line})",
                )
            )
            continue
        batch_seen[key] = number
        parsed.records.append(result)
        if len(parsed.records) >= batch_size:
            seen.add(list(batch_seen), list(batch_seen.values()))
            batch_seen = {}
            yield parsed
            parsed = Parsed()
    yield parsed
