"""The corpus statistics the papers print, for a project: the report's `statistics` section.

`project_statistics(project)` is `metrics.corpus_statistics` of the project's metrics document — the
same tables as `python -m metrics report --statistics` prints for the exported document, each naming
the paper table it mirrors (docs/measures.md#statistics) — plus `imports`: the records the project's
imports left out under `--skip-invalid`, counted and grouped by reason, so per-type counts can be read
against the source files ("8,930 of 8,993 relations; 63 skipped: …").

Cohn et al.'s Fig. 4 repeats κ_C's Monte Carlo, so the dashboard never computes this in a request, nor
asks for it: the task `annotator.compute_statistics` (`compute_statistics`) is sent with the intervals
whenever a full report whose κ_C is final is stored (`computation._store`), and keeps the tables in the
cache under the document's fingerprint and as the project's latest (`latest_statistics`).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from django.core.cache import cache

from annotator.agreement.computation import document_fingerprint
from annotator.agreement.document import project_document
from annotator.agreement.results import json_safe
from annotator.models import CorpusJob, Pair, Project
from metrics.corpus_statistics import DEFAULT_BIN_WIDTH, corpus_statistics
from metrics.document import parse_document

CACHE_KEY = "statistics:{}:{}"
LATEST_KEY = "statistics:{}:latest"
CACHE_SECONDS = 7 * 24 * 3600
_PAIR_PREFIX = re.compile(r"^pair [^:]+: ")


def project_statistics(project: Project, *, bin_width: int = DEFAULT_BIN_WIDTH) -> dict[str, Any]:
    """The statistics tables of the project's current annotations and its import skips (module doc)."""
    doc = with_splits(project, project_document(project))
    tables = json_safe(corpus_statistics(parse_document(doc), bin_width=bin_width))
    tables["imports"] = import_skips(project)
    return tables


def with_splits(project: Project, doc: dict[str, Any]) -> dict[str, Any]:
    """The document with each pair's corpus split (`corpus_labels["split"]`, as MRPC and ETPC give it)
    for SPADE's Table 1 columns; only the statistics read it, so the agreement document leaves it out."""
    splits = dict(
        Pair.objects.filter(project=project, corpus_labels__has_key="split").values_list(
            "source_id", "corpus_labels__split"
        )
    )
    if not splits:
        return doc
    pairs = [{**p, "split": str(splits[p["id"]])} if splits.get(p["id"]) else p for p in doc["pairs"]]
    return {**doc, "pairs": pairs}


def import_skips(project: Project) -> dict[str, Any]:
    """Records left out by the project's written imports: how many, and why (grouped by field and
    message without the pair number), each group with the place of its first record.

    A record skipped by several runs of the same file (re-imports) counts once."""
    runs = CorpusJob.objects.filter(
        project=project, kind=CorpusJob.Kind.IMPORT, status=CorpusJob.Status.SUCCEEDED
    ).order_by("created_at", "pk")
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    files: set[str] = set()
    for report in runs.values_list("report", flat=True):
        if not report or report.get("dry_run"):
            continue
        for p in report.get("skipped", []):
            seen.setdefault((p["file"], p.get("line"), p.get("field"), p["message"]), p)
            files.add(p["file"])
    reasons: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], str] = {}
    records = {(p["file"], p.get("line")) for p in seen.values()}
    for (file, line, _, _), p in seen.items():
        reason = (p.get("field") or "", _PAIR_PREFIX.sub("", p["message"]))
        reasons[reason] += 1
        first.setdefault(reason, f"{file}:{line}" if line is not None else file)
    return {
        "mirrors": "the import reports (records left out under --skip-invalid)",
        "skipped": len(records),
        "files": sorted(files),
        "reasons": [
            {"field": field, "reason": message, "count": n, "first": first[(field, message)]}
            for (field, message), n in sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
        ],
    }


def compute_statistics(project: Project) -> dict[str, Any]:
    """Compute the statistics of the project's current document and keep them in the cache under its
    fingerprint, and as the project's latest (the body of the task `annotator.compute_statistics`)."""
    doc = project_document(project)
    tables = json_safe(corpus_statistics(parse_document(with_splits(project, doc))))
    tables["imports"] = import_skips(project)
    fingerprint = document_fingerprint(project, doc)
    cache.set(CACHE_KEY.format(project.pk, fingerprint), tables, CACHE_SECONDS)
    cache.set(LATEST_KEY.format(project.pk), fingerprint, CACHE_SECONDS)
    return tables


def cached_statistics(project: Project, document_fingerprint: str) -> dict[str, Any] | None:
    """The statistics kept for the document with this fingerprint (a snapshot's), or None."""
    return cache.get(CACHE_KEY.format(project.pk, document_fingerprint))


def latest_statistics(project: Project) -> tuple[str, dict[str, Any]] | None:
    """The project's latest kept statistics and the fingerprint of their document (None before the
    first are computed). Reads only."""
    fingerprint = cache.get(LATEST_KEY.format(project.pk))
    if fingerprint is None:
        return None
    tables = cached_statistics(project, fingerprint)
    return None if tables is None else (fingerprint, tables)
