"""What the machine agreement compares against the annotators, read from the database: the registered
systems' alignments and the gold layer's links (`machine_agreement`), and which starting point κ_C
uses, in pairs per source (`baseline_summary`, also shown on the aligner page)."""

from __future__ import annotations

from typing import Any

from django.db.models import BooleanField, Count, ExpressionWrapper, Q

from annotator.core.aligner import SOURCE as IDENTICAL_SOURCE
from annotator.core.statistical_aligner import is_automatic_source
from annotator.models import AlignmentLink, AlignmentSystem, Pair, Project, SystemAlignment


def system_alignments(project: Project) -> dict[str, dict[str, dict[str, Any]]]:
    """{system name: {pair id: {sure, possible, phrases}}} of the project's systems."""
    out: dict[str, dict[str, dict[str, Any]]] = {
        name: {} for name in AlignmentSystem.objects.filter(project=project).values_list("name", flat=True)
    }
    rows = SystemAlignment.objects.filter(system__project=project).values_list(
        "system__name", "pair__source_id", "sure", "possible", "phrases"
    )
    for name, pid, sure, possible, phrases in rows:
        out[name][pid] = {"sure": sure, "possible": possible, "phrases": phrases}
    return out


def gold_alignments(project: Project) -> dict[str, dict[str, list[list[int]]]]:
    """The gold layer's word alignment of each pair that has gold links."""

    out: dict[str, dict[str, list[list[int]]]] = {}
    rows = AlignmentLink.objects.filter(pair__project=project, is_gold=True).values_list(
        "pair__source_id", "i", "j", "sure"
    )
    for pid, i, j, sure in rows:
        entry = out.setdefault(pid, {"sure": [], "possible": []})
        entry["sure" if sure else "possible"].append([i, j])
    return out


def baseline_summary(project: Project) -> dict[str, Any]:
    """Which starting point κ_C uses, in counts of pairs per source (for the dashboard)."""
    rows = (
        Pair.objects.filter(project=project)
        .values(
            "initial_alignment_source",
            "initial_alignment_version",
            unstored=ExpressionWrapper(Q(initial_alignment__isnull=True), output_field=BooleanField()),
        )
        .annotate(n=Count("id"))
        .order_by("-n")
    )
    sources = []
    for row in rows:
        if row["unstored"]:
            label = f"{IDENTICAL_SOURCE} (built-in fallback, not stored)"
        elif is_automatic_source(row["initial_alignment_source"]) and row["initial_alignment_version"]:
            label = f"{row['initial_alignment_source']} v{row['initial_alignment_version']}"
        else:
            label = row["initial_alignment_source"] or "imported"
        sources.append({"source": label, "pairs": row["n"]})
    return {"sources": sources}
