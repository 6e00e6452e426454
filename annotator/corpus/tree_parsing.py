"""Automatic parse trees for pairs without imported ones (the Django side of `core.auto_trees`).

`parse_missing_trees(project)` parses every member whose tree is empty or was made by a parser
(`Pair.tree_source` non-empty), stores the bracketed trees with their nodes and the parser's name and
version with its model's (`parser_source`, e.g. "spacy 3.8.18/en_core_web_sm 3.8.0"), and
leaves imported trees (`tree_source` empty and a tree present) alone: imported gold trees always win.
A lead replaces a tree by importing it (PTB format, `manage.py import_corpus --format ptb`, or the
import page), which also clears `tree_source`. A pair with phrase alignments keeps its trees: new trees
would move the aligned nodes. Runs as the Celery task `annotator.parse_trees` with its progress in the
cache (`tree_progress`), or in-process from `manage.py parse_trees`.
"""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import Q

from annotator import taskqueue
from annotator.core.auto_trees import BENEPAR_MODEL, SPACY_MODEL, parse_members
from annotator.core.trees import tree_nodes
from annotator.models import Pair, PhraseAlignment, Project

log = logging.getLogger(__name__)
PROGRESS_KEY = "parse-trees:{}:progress"
BATCH = 500
# backend → (model as named in `tree_source`, the model's package when it is one)
MODELS = {"spacy": ("en_core_web_sm", SPACY_MODEL), "benepar": (BENEPAR_MODEL, None)}


def _version(package: str | None) -> str:
    if package is None:
        return ""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return ""


def parser_source(backend: str) -> str:
    """What `Pair.tree_source` records for trees of `backend`: parser and model, each with its installed
    version ("spacy 3.8.18/en_core_web_sm 3.8.0"; a version that cannot be read is left out)."""
    model, package = MODELS.get(backend, ("", None))
    parser = " ".join(filter(None, (backend, _version(backend))))
    shown = " ".join(filter(None, (model, _version(package))))
    source = f"{parser}/{shown}" if shown else parser
    return source[: Pair._meta.get_field("tree_source").max_length]


def tree_progress(project_id: int) -> dict[str, Any] | None:
    """{"status", "done", "total", "summary"} of the project's latest tree parsing, or None."""
    return cache.get(PROGRESS_KEY.format(project_id))


def _set(project_id: int, **state: Any) -> None:
    cache.set(PROGRESS_KEY.format(project_id), state, 24 * 3600)


def start_parsing(project: Project, *, backend: str = "spacy") -> None:
    _set(project.pk, status="queued", done=0, total=0, summary="")
    transaction.on_commit(lambda: _send(project.pk, backend))


def _send(project_id: int, backend: str) -> None:
    """Hand the parsing to a worker; if the queue is unreachable, say so in the progress shown."""
    try:
        taskqueue.enqueue("annotator.parse_trees", project_id, backend)
    except taskqueue.QueueUnavailable as exc:
        _set(
            project_id,
            status="failed",
            done=0,
            total=0,
            summary=f"{exc} Start it again once the queue is back.",
        )


def parse_missing_trees(
    project: Project, *, backend: str = "spacy", progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Parse the members without an imported tree; returns a summary."""
    report = progress or (
        lambda done, total: _set(project.pk, status="running", done=done, total=total, summary="")
    )
    aligned = set(PhraseAlignment.objects.filter(pair__project=project).values_list("pair_id", flat=True))
    pairs = list(
        Pair.objects.filter(project=project)
        .filter(Q(tree_source__gt="") | Q(tree1="") | Q(tree2=""))
        .exclude(pk__in=aligned)
        .order_by("position", "pk")
        .only("pk", "tokens1", "tokens2", "tree1", "tree2", "tree_source")
    )
    jobs = []  # (pair, member)
    for pair in pairs:
        for member in (1, 2):
            if pair.tree_source or not getattr(pair, f"tree{member}"):
                jobs.append((pair, member))
    sentences = [getattr(pair, f"tokens{member}") for pair, member in jobs]
    total = len(sentences)
    report(0, total)
    trees = parse_members(sentences, backend=backend, progress=lambda n: report(n, total))
    changed: dict[int, Pair] = {}
    source = parser_source(backend)
    for (pair, member), tree in zip(jobs, trees, strict=True):
        if not tree:
            continue
        setattr(pair, f"tree{member}", tree)
        setattr(pair, f"nodes{member}", tree_nodes(tree, getattr(pair, f"tokens{member}")))
        pair.tree_source = source
        changed[pair.pk] = pair
    with transaction.atomic():
        Pair.objects.bulk_update(
            list(changed.values()), ["tree1", "tree2", "nodes1", "nodes2", "tree_source"], batch_size=BATCH
        )
    summary = {
        "summary": f"{total} members parsed by {backend} in {len(changed)} pairs; imported trees kept.",
        "members": total,
        "pairs": len(changed),
        "kept_aligned": len(aligned),
    }
    _set(project.pk, status="succeeded", done=total, total=total, summary=summary["summary"])
    return summary
