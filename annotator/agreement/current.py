"""The project's current agreement as stored piece by piece: the explorer's per-pair values.

Each pair's entry (`results.pair_results`: mean DO F1 over the annotator pairs who worked on it, label
disagreement, who worked on it) lives on the pair's state row (`AgreementPairState.entry`), written by
the computation that last changed the pair (`annotator.agreement.incremental`), so reading one pair's
value reads one row and an update writes only the pairs it changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from annotator.models import AgreementPairState, Project


def pair_entries(
    project: Project | int, source_ids: Iterable[str] | None = None
) -> dict[str, dict[str, Any]]:
    """Pair source id → its stored entry (`do_f1`, `label_disagreement`, `annotators`), in corpus order;
    only the pairs `source_ids` names when given. Pairs without a stored state are absent."""
    project_id = project if isinstance(project, int) else project.pk
    rows = AgreementPairState.objects.filter(project_id=project_id)
    if source_ids is not None:
        rows = rows.filter(pair__source_id__in=list(source_ids))
    ordered = rows.order_by("pair__position", "pair_id").values_list("pair__source_id", "entry")
    return {pid: entry for pid, entry in ordered if entry}  # {}: stored before entries were kept
