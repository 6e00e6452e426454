"""Word alignments in the Pharaoh/Moses style (`annotator.corpus.imports.pharaoh` describes the format).

One line per pair the annotator aligned (pair order): `<pair source_id> TAB <links>`, links `i-j` (sure)
and `i?j` (possible) sorted by i then j. `annotator="initial"` writes the pairs' initial alignments. Written as it is read
(`write_pharaoh`, `ROWS_PER_CHUNK` rows at a time): memory does not grow with the project.
"""

from __future__ import annotations

import io
from itertools import groupby
from typing import BinaryIO

from annotator.models import AlignmentLink, Pair, Project

ROWS_PER_CHUNK = 2000


def write_pharaoh(
    project: Project, out: BinaryIO, *, annotator: str | None = None, gold: bool = False
) -> None:
    """Write the alignments to `out`, one line per pair, as the rows are read."""
    if annotator == "initial":
        rows = Pair.objects.filter(project=project, initial_alignment__isnull=False).order_by(
            "position", "pk"
        )
        for source_id, links in rows.values_list("source_id", "initial_alignment").iterator(ROWS_PER_CHUNK):
            line = f"{source_id}\t" + " ".join(f"{i}-{j}" for i, j in sorted(map(tuple, links or ())))
            out.write((line + "\n").encode())
        return
    links = AlignmentLink.objects.filter(pair__project=project, is_gold=gold)
    if annotator:
        links = links.filter(annotator__username=annotator)
    ordered = links.order_by("pair__position", "pair_id", "i", "j").values_list(
        "pair_id", "pair__source_id", "i", "j", "sure"
    )
    for (_, source_id), group in groupby(ordered.iterator(ROWS_PER_CHUNK), key=lambda row: row[:2]):
        items = " ".join(f"{i}{'-' if sure else '?'}{j}" for _, _, i, j, sure in group)
        out.write(f"{source_id}\t{items}\n".encode())


def pharaoh_text(project: Project, *, annotator: str | None = None, gold: bool = False) -> bytes:
    out = io.BytesIO()
    write_pharaoh(project, out, annotator=annotator, gold=gold)
    return out.getvalue()
