"""Vila et al.'s correlation between corpora: Pearson's r of the type frequencies of this project and
of other projects the lead picks (docs/measures.md#statistics), read from the latest statistics the workers
kept of each project (never computed in a request)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from annotator.agreement.statistics import latest_statistics
from annotator.models import Project
from metrics.corpus_statistics import corpus_type_frequencies, pearson_between_corpora


@dataclass(frozen=True)
class Comparison:
    project: Project
    r: float | None
    types: int
    missing: str = ""  # why there is no r: the other project's statistics are not kept yet, …


def compare_type_frequencies(stats: Mapping[str, Any], others: Iterable[Project]) -> list[Comparison]:
    """One row per other project: Pearson's r of the pooled type frequencies of both corpora over the
    types either uses (`metrics.corpus_statistics.pearson_between_corpora`)."""
    if "vila_table4" not in stats:
        return []
    mine = corpus_type_frequencies(stats["vila_table4"])
    rows = []
    for other in others:
        kept = latest_statistics(other)
        theirs = kept[1] if kept is not None else None
        if theirs is None:
            rows.append(Comparison(other, None, 0, "its statistics are not computed yet"))
        elif "vila_table4" not in theirs:
            rows.append(Comparison(other, None, 0, "it has no phenomena layer"))
        else:
            result = pearson_between_corpora(mine, corpus_type_frequencies(theirs["vila_table4"]))
            rows.append(Comparison(other, result["r"], result["types"]))
    return rows
