"""Word alignments in the Pharaoh/Moses style (`annotator.corpus.imports.pharaoh` describes the format).

One line per pair the annotator aligned (pair order): `<pair source_id> TAB <links>`, links `i-j` (sure)
and `i?j` (possible) sorted by i then j. `annotator="initial"` writes the pairs' initial alignments.
"""

from __future__ import annotations

from collections import defaultdict

from annotator.models import AlignmentLink, Pair, Project


def pharaoh_text(project: Project, *, annotator: str | None = None, gold: bool = False) -> bytes:
    lines: list[str] = []
    if annotator == "initial":
        rows = Pair.objects.filter(project=project, initial_alignment__isnull=False).order_by(
            "position", "pk"
        )
        for source_id, links in rows.values_list("source_id", "initial_alignment"):
            lines.append(f"{source_id}\t" + " ".join(f"{i}-{j}" for i, j in sorted(map(tuple, links or ()))))
        return ("\n".join(lines) + "\n").encode() if lines else b""
    links = AlignmentLink.objects.filter(pair__project=project, is_gold=gold)
    if annotator:
        links = links.filter(annotator__username=annotator)
    by_pair: dict[tuple[int, int, str], list[str]] = defaultdict(list)
    for position, pk, source_id, i, j, sure in links.order_by(
        "pair__position", "pair_id", "i", "j"
    ).values_list("pair__position", "pair_id", "pair__source_id", "i", "j", "sure"):
        by_pair[position, pk, source_id].append(f"{i}{'-' if sure else '?'}{j}")
    for (_, _, source_id), items in by_pair.items():
        lines.append(f"{source_id}\t{' '.join(items)}")
    return ("\n".join(lines) + "\n").encode() if lines else b""
