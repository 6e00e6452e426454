"""Database rows → the metrics interchange document; the recompute pipeline that stores snapshots.

`project_document(project)` builds the document of spec §9 (`/work/shared/specs/agreement-metrics.md`)
from the database, with a few queries over the whole project (values_list, no model instances):

- `annotators`: usernames of the project's members in the annotator role, in username order. Work of
  users who are no longer annotators of the project is left out.
- `options`: the metrics library's defaults, spelled out so the document says what it was computed with.
- `tagset`: the project tagset's types in position order, `one_sided` = `ParaphraseType.one_sided`.
- `pairs`: `{id: Pair.source_id, tokens1, tokens2, initial_alignment}` in `Pair.position` order.
- `phenomena` (layer on): annotator → their non-gold phenomena. An annotator appears in the section
  once they have started (≥ 1 phenomenon or ≥ 1 finished pair), so a colleague who has not begun does
  not drag every measure to 0.
- `word_alignments` (layer on): annotator → pair → `{sure, possible}`. A pair counts as aligned by an
  annotator (spec §1: "annotated" = has an entry) when they have ≥ 1 link on it OR their assignment
  for it is done; a done pair without links is an empty alignment.
- `phrase_alignments` (layer on): annotator → `{pair, s1, s2, label}` with the token spans of the
  aligned parse-tree nodes (`annotator.trees.node_tokens`; null = aligned to nothing).
- `evaluations` (layer on): raters = the annotators; item id = `"<unit source_id>/<item source_id>"`
  (unique in a project, as both source ids are unique at their level); one rating per (item, rater)
  from the initial-phase grammaticality and meaning judgements; `revisions` from the re-evaluation
  phase, only where an initial rating exists.
- `pair_labels` (extension key, layer on): annotator → pair → "paraphrase" | "non_paraphrase".

Gold rows (`is_gold`) never enter the document: agreement is between annotators.

The pipeline (`schedule`, `recompute`; the Celery task in `annotator.tasks` calls them):

- Coalescing. `schedule(project)` enqueues the task only if no recompute of the project is already
  waiting (a cache key `agreement:scheduled:<project>` added with NX), with a short countdown, so a burst
  of saves yields one task. A task deletes the key when it starts: a change committed after that enqueues
  a fresh task, and the running one reads everything committed before it.
- One computation per project at a time: a PostgreSQL session advisory lock (released by the server if
  the worker dies), or a cache key with a TTL on other databases (the in-process default). While a
  computation runs (cache key `agreement:running:<project>`), changes only leave a "rerun" mark instead
  of enqueuing; a task that finds the project busy leaves the same mark; the holder re-schedules once
  when it finishes. A worker killed mid-task leaves a stale "running" key: its redelivered task clears
  it, and the key expires after AGREEMENT_LOCK_TTL in any case.
- Idempotent: the snapshot stores the sha256 of the canonical document; a task whose document has the
  fingerprint of the latest complete snapshot stores nothing.
- Incremental: unchanged report sections are copied from the latest snapshot (see
  `annotator.agreement_results`). When κ_C has to be recomputed and that is expensive, a provisional
  snapshot (everything fresh but κ_C, `pending = ["kappa_c"]`) is stored first, then the exact one.
- Failures: a bug is recorded in `AgreementState.last_error` and raised (the task fails once); transient
  database/broker errors are retried by the task with back-off. If the broker is down at save time
  `AgreementState.enqueue_failed` is set; the next successful enqueue (of any project) and the
  dashboard's status poll re-schedule such projects.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import time
import traceback
import uuid
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Aggregate, BooleanField, Count, ExpressionWrapper, F, Q, Sum, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from metrics.incremental import gc_paused
from metrics.types import Options

from .agreement_results import (
    document_fingerprints,
    fingerprint,  # noqa: F401 - re-exported: the snapshot fingerprint of a document
    kappa_c_pending_work,
    pair_label_agreement,
    pair_results,
    phenomena_agreement,
    report_sections,
)
from .aligner import baseline_alignment
from .models import (
    AgreementSnapshot,
    AgreementState,
    AlignmentLink,
    Assignment,
    EvaluationItem,
    Judgement,
    Membership,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
)
from .trees import node_tokens

DOCUMENT_FORMAT = "paraphrase-agreement/1"


def project_annotators(project: Project) -> list[tuple[int, str]]:
    """(user id, username) of the project's annotators, in username order."""
    rows = Membership.objects.filter(project=project, role=Membership.Role.ANNOTATOR).values_list(
        "user_id", "user__username"
    )
    return sorted(set(rows), key=lambda row: row[1])


def project_document(project: Project) -> dict[str, Any]:
    """The metrics interchange document (spec §9) of the project's current annotations."""
    # Some 10⁶ small lists and dicts, none in a cycle: automatic collections would traverse them
    # again and again and took as long as building them.
    with gc_paused():
        return _project_document(project)


def _project_document(project: Project) -> dict[str, Any]:
    annotators = project_annotators(project)
    names = dict(annotators)
    pairs = _pairs(project)
    doc: dict[str, Any] = {
        "format": DOCUMENT_FORMAT,
        "annotators": [name for _, name in annotators],
        "options": dataclasses.asdict(Options()),
        "tagset": {"types": _tagset_types(project)},
        "pairs": [
            {
                "id": p["id"],
                "tokens1": p["tokens1"],
                "tokens2": p["tokens2"],
                "initial_alignment": p["initial_alignment"],
            }
            for p in pairs.values()
        ],
    }
    done = _done_pairs(project, names) if project.layer_phenomena or project.layer_word_alignment else {}
    if project.layer_phenomena:
        doc["phenomena"] = _phenomena(project, names, pairs, done)
    if project.layer_word_alignment:
        doc["word_alignments"] = _word_alignments(project, names, pairs, done)
    if project.layer_phrase_alignment:
        doc["phrase_alignments"] = _phrase_alignments(project, names, pairs)
        systems = _system_phrase_alignments(project)
        if systems:
            doc["system_phrase_alignments"] = systems
    if project.layer_evaluation:
        doc["evaluations"] = _evaluations(project, names)
    if project.layer_pair_label:
        doc["pair_labels"] = _pair_labels(project, names, pairs)
    return doc


def _pairs(project: Project) -> dict[int, dict[str, Any]]:
    """Pair pk → its document fields (plus the parse-tree nodes when phrase alignment is on)."""
    fields = ["pk", "source_id", "tokens1", "tokens2", "initial_alignment"]
    if project.layer_phrase_alignment:
        fields += ["nodes1", "nodes2"]
    out: dict[int, dict[str, Any]] = {}
    for row in Pair.objects.filter(project=project).order_by("position", "pk").values_list(*fields):
        pk, source_id, tokens1, tokens2, initial = row[:5]
        out[pk] = {
            "id": source_id,
            "tokens1": tokens1,
            "tokens2": tokens2,
            # κ_C's starting point: the stored one, else the identical-token matcher's (not stored).
            "initial_alignment": baseline_alignment(initial, tokens1, tokens2),
        }
        if project.layer_phrase_alignment:
            out[pk]["nodes1"], out[pk]["nodes2"] = row[5], row[6]
    return out


def _tagset_types(project: Project) -> list[dict[str, Any]]:
    if project.tagset_id is None:
        return []
    rows = ParaphraseType.objects.filter(tagset_id=project.tagset_id).order_by("position", "pk")
    return [
        {"name": name, "one_sided": sides == ParaphraseType.ScopeSides.ONE}
        for name, sides in rows.values_list("name", "scope_sides")
    ]


def _done_pairs(project: Project, names: dict[int, str]) -> dict[int, set[int]]:
    """Annotator id → pks of the pairs whose assignment (any round) is done."""
    out: dict[int, set[int]] = defaultdict(set)
    rows = Assignment.objects.filter(
        project=project, pair__isnull=False, status=Assignment.Status.DONE, annotator_id__in=list(names)
    ).values_list("annotator_id", "pair_id")
    for annotator_id, pair_id in rows:
        out[annotator_id].add(pair_id)
    return out


def _json_columns(*names: str) -> dict[str, Cast]:
    """JSON columns read as their text, so a whole result is decoded by one `json.loads` call
    instead of one per value (the per-value decoding dominated at MSRP-A scale)."""
    return {f"{name}_text": Cast(name, TextField()) for name in names}


def _phenomena(
    project: Project, names: dict[int, str], pairs: dict[int, dict[str, Any]], done: dict[int, set[int]]
) -> dict[str, list[dict[str, Any]]]:
    rows = list(
        Phenomenon.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names))
        .order_by("pair__position", "pair_id", "pk")
        .annotate(**_json_columns("scope1", "scope2", "key1", "key2"))
        .values_list(
            "annotator_id",
            "pair_id",
            "ptype__name",
            "projection",
            "scope1_text",
            "scope2_text",
            "key1_text",
            "key2_text",
        )
    )
    spans = json.loads("[" + ",".join(f"[{r[4]},{r[5]},{r[6]},{r[7]}]" for r in rows) + "]")
    by_annotator: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for (annotator_id, pair_id, type_name, projection, *_), (s1, s2, key1, key2) in zip(
        rows, spans, strict=True
    ):
        by_annotator[annotator_id].append(
            {
                "pair": pairs[pair_id]["id"],
                "type": type_name,
                "s1": s1,
                "s2": s2,
                "projection": projection or None,
                "key1": key1,
                "key2": key2,
            }
        )
    return {
        name: by_annotator.get(user_id, [])
        for user_id, name in names.items()
        if by_annotator.get(user_id) or done.get(user_id)
    }


class _LinkCells(Aggregate):
    """The links of a group as one comma-separated string of cells `i·2^20 + j` (decoded in Python)."""

    function = "GROUP_CONCAT"
    output_field = TextField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(
            compiler, connection, function="STRING_AGG", template="%(function)s((%(expressions)s)::text, ',')"
        )


LINK_SHIFT = 1 << 20  # more tokens than any sentence has
LINK_MASK = LINK_SHIFT - 1


def _word_alignments(
    project: Project, names: dict[int, str], pairs: dict[int, dict[str, Any]], done: dict[int, set[int]]
) -> dict[str, dict[str, dict[str, list[list[int]]]]]:
    sheets: dict[int, dict[int, dict[str, list[list[int]]]]] = {user_id: {} for user_id in names}
    groups = list(
        AlignmentLink.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names))
        .values("annotator_id", "pair_id", "sure")
        .annotate(cells=_LinkCells(F("i") * LINK_SHIFT + F("j")))
        .order_by()
        .values_list("annotator_id", "pair_id", "sure", "cells")
    )
    decoded = json.loads("[" + ",".join(f"[{g[3]}]" for g in groups) + "]")
    for (annotator_id, pair_id, sure, _), cells in zip(groups, decoded, strict=True):
        sheet = sheets[annotator_id].setdefault(pair_id, {"sure": [], "possible": []})
        sheet["sure" if sure else "possible"] = [[c >> 20, c & LINK_MASK] for c in sorted(cells)]
    for user_id, pair_ids in done.items():
        for pair_id in pair_ids:
            sheets[user_id].setdefault(pair_id, {"sure": [], "possible": []})
    out: dict[str, dict[str, dict[str, list[list[int]]]]] = {}
    for user_id, name in names.items():
        if sheets[user_id]:
            # Pair order keeps the document (and its fingerprint) canonical.
            out[name] = {pairs[pk]["id"]: sheets[user_id][pk] for pk in pairs if pk in sheets[user_id]}
    return out


def _system_phrase_alignments(project: Project) -> dict[str, list[dict[str, Any]]]:
    """Registered systems' phrase alignments (SPADE's system benchmark, spec §6), systems with any."""
    from .models import SystemAlignment

    out: dict[str, list[dict[str, Any]]] = {}
    rows = (
        SystemAlignment.objects.filter(system__project=project)
        .exclude(phrases=[])
        .order_by("system__name", "pair__position", "pair_id")
        .values_list("system__name", "pair__source_id", "phrases")
    )
    for name, pid, phrases in rows:
        out.setdefault(name, []).extend({"pair": pid, **phrase} for phrase in phrases)
    return out


def _machine_extras(project: Project, doc: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Humans vs the automatic alignment and registered systems vs humans and gold (Cohn Table 5), the
    baseline κ_C used, and a digest of the inputs that are not in the document (systems, gold)."""
    from .core.machine_agreement import machine_agreement
    from .corpus.aligner_training import baseline_summary
    from .corpus.systems import gold_alignments, system_alignments

    systems = system_alignments(project) if project.layer_word_alignment else {}
    gold = gold_alignments(project) if systems else {}
    machine = machine_agreement(doc, systems, gold) if project.layer_word_alignment else {}
    extras = {"machine": machine, "kappa_c_baseline": baseline_summary(project)}
    return extras, fingerprint([systems, gold]) if systems else ""


def _phrase_alignments(
    project: Project, names: dict[int, str], pairs: dict[int, dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    rows = (
        PhraseAlignment.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names))
        .order_by("pair__position", "pair_id", "pk")
        .values_list("annotator_id", "pair_id", "node1", "node2", "sure")
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for annotator_id, pair_id, node1, node2, sure in rows:
        pair = pairs[pair_id]
        out.setdefault(names[annotator_id], []).append(
            {
                "pair": pair["id"],
                "s1": node_tokens(pair["nodes1"], node1),
                "s2": node_tokens(pair["nodes2"], node2),
                "label": "sure" if sure else "possible",
            }
        )
    return {name: out[name] for name in names.values() if name in out}


def evaluation_item_ids(project: Project) -> dict[int, str]:
    """EvaluationItem pk → its document id `"<unit source_id>/<item source_id>"`, in unit/item order."""
    rows = (
        EvaluationItem.objects.filter(unit__project=project)
        .order_by("unit__position", "unit_id", "position", "pk")
        .values_list("pk", "unit__source_id", "source_id")
    )
    return {pk: f"{unit_sid}/{item_sid}" for pk, unit_sid, item_sid in rows}


def _evaluations(project: Project, names: dict[int, str]) -> dict[str, Any]:
    items = evaluation_item_ids(project)
    rows = Judgement.objects.filter(item__unit__project=project, rater_id__in=list(names)).values_list(
        "item_id", "rater_id", "step", "phase", "label"
    )
    initial: dict[tuple[int, int], dict[str, str]] = defaultdict(dict)
    revised: dict[tuple[int, int], dict[str, str]] = defaultdict(dict)
    for item_id, rater_id, step, phase, label in rows:
        target = initial if phase == Judgement.Phase.INITIAL else revised
        target[item_id, rater_id]["G" if step == Judgement.Step.GRAMMATICALITY else "M"] = label
    order = {pk: n for n, pk in enumerate(items)}
    rater_order = {user_id: n for n, user_id in enumerate(names)}

    def entries(source: dict[tuple[int, int], dict[str, str]]) -> list[dict[str, str]]:
        keys = sorted(source, key=lambda k: (order[k[0]], rater_order[k[1]]))
        return [{"item": items[i], "rater": names[r], **source[i, r]} for i, r in keys]

    return {
        "raters": list(names.values()),
        "ratings": entries(initial),
        "revisions": entries({key: value for key, value in revised.items() if key in initial}),
    }


def _pair_labels(
    project: Project, names: dict[int, str], pairs: dict[int, dict[str, Any]]
) -> dict[str, dict[str, str]]:
    rows = (
        PairLabel.objects.filter(pair__project=project, is_gold=False, annotator_id__in=list(names))
        .exclude(label="")
        .order_by("pair__position", "pair_id")
        .values_list("annotator_id", "pair_id", "label")
    )
    out: dict[str, dict[str, str]] = {}
    for annotator_id, pair_id, label in rows:
        out.setdefault(names[annotator_id], {})[pairs[pair_id]["id"]] = label
    return {name: out[name] for name in names.values() if name in out}


# ---- the recompute pipeline ----------------------------------------------------------------------

log = logging.getLogger(__name__)

SCHEDULED_KEY = "agreement:scheduled:{}"
RERUN_KEY = "agreement:rerun:{}"
RUNNING_KEY = "agreement:running:{}"
LOCK_KEY = "agreement:lock:{}"
ADVISORY_LOCK_CLASS = 0x5041_5257  # "PARW": namespace of the advisory locks of this pipeline
HEADLINE_KEYS = (
    "iapta.do.f1",
    "iapta.tpo.partial.f1",
    "alignment.words.f1",
    "kappa_c",
    "fleiss.G2",
    "fleiss.M2",
)


def _setting(name: str, default: float) -> float:
    return getattr(settings, name, default)


def _eager() -> bool:
    from .celery import app

    return bool(app.conf.task_always_eager)


def schedule(project_id: int, *, catch_up: bool = True, countdown: float | None = None) -> bool:
    """Enqueue a recompute of the project unless one is already waiting. Returns whether it enqueued.

    Raises the broker's error when it cannot enqueue (the caller, `annotator.recompute`, records it).
    In-process mode (no REDIS_URL) runs the task now; a failure there is already recorded in
    `AgreementState.last_error` by the task and is logged, not raised into the save that triggered it.
    """
    from .tasks import recompute_agreement

    key = SCHEDULED_KEY.format(project_id)
    if not _claim_schedule(project_id):
        return False
    if _eager():
        try:
            recompute_agreement.apply_async((project_id,))
        except Exception:
            log.exception("in-process recompute of project %s failed", project_id)
    else:
        try:
            if countdown is None:
                countdown = _setting("AGREEMENT_COALESCE_SECONDS", 0.3)
            recompute_agreement.apply_async((project_id,), countdown=countdown)
        except Exception:
            cache.delete(key)  # let the next change try again
            raise
    if catch_up:
        _catch_up_failed_enqueues(exclude=project_id)
    return True


def _claim_schedule(project_id: int) -> bool:
    """Whether this caller should enqueue the project's recompute (it then holds the "scheduled" key).

    While a computation runs, leave a mark instead of a task: the holder re-schedules once when it
    finishes (mark first, then look, so a holder finishing in between still sees the mark). Otherwise
    claim the "scheduled" key; whoever claims it enqueues, every other caller of the burst does not.
    On Redis the three steps are one server-side script (one round trip per save instead of three).
    """
    scheduled, rerun, running = (k.format(project_id) for k in (SCHEDULED_KEY, RERUN_KEY, RUNNING_KEY))
    lock_ttl, scheduled_ttl = (
        int(_setting("AGREEMENT_LOCK_TTL", 1800)),
        int(_setting("AGREEMENT_SCHEDULED_TTL", 60)),
    )
    if _eager():
        return bool(cache.add(scheduled, 1, timeout=scheduled_ttl))
    backend = getattr(cache, "_cache", None)
    if hasattr(backend, "get_client"):  # Django's RedisCache
        keys = [cache.make_and_validate_key(k) for k in (rerun, running, scheduled)]
        script, client = _claim_script(backend)
        return bool(script(keys=keys, args=[lock_ttl, scheduled_ttl], client=client))
    cache.set(rerun, 1, timeout=lock_ttl)
    if cache.get(running):
        return False
    return bool(cache.add(scheduled, 1, timeout=scheduled_ttl))


# KEYS: rerun, running, scheduled; ARGV: their TTLs. Values are Django's encoding of the integer 1.
_CLAIM_LUA = """
redis.call('SET', KEYS[1], 1, 'EX', ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('SET', KEYS[3], 1, 'NX', 'EX', ARGV[2]) then return 1 end
return 0
"""


@functools.lru_cache(maxsize=64)
def _claim_script(backend: Any) -> tuple[Any, Any]:
    """The registered script (EVALSHA, loaded again by redis-py if the server forgot it) and one client
    of the cache's connection pool, kept per cache backend (Django makes one per thread): its
    RedisCache builds a new client object for every call, which cost more than the round trip."""
    client = backend.get_client(write=True)
    return client.register_script(_CLAIM_LUA), client


def _catch_up_failed_enqueues(exclude: int) -> None:
    """Re-schedule projects whose change could not be enqueued while the broker was down."""
    for project_id in (
        AgreementState.objects.filter(enqueue_failed=True)
        .exclude(project_id=exclude)
        .values_list("project_id", flat=True)
    ):
        try:
            schedule(project_id, catch_up=False)
        except Exception as exc:
            log.warning("catch-up enqueue of project %s failed: %s", project_id, exc)
            return


def catch_up(state: AgreementState | None) -> None:
    """Called by the dashboard's status poll: re-send a recompute the broker refused earlier."""
    if state is None or not state.enqueue_failed or _eager():
        return
    try:
        if schedule(state.project_id, catch_up=False) or cache.get(SCHEDULED_KEY.format(state.project_id)):
            AgreementState.objects.filter(pk=state.pk).update(enqueue_failed=False)
    except Exception as exc:
        log.warning("dashboard catch-up of project %s: broker still unreachable (%s)", state.project_id, exc)


class ProjectLock:
    """Exclusive right to compute one project's agreement (non-blocking)."""

    def __init__(self, project_id: int) -> None:
        self.project_id = project_id
        self.token = uuid.uuid4().hex
        self.held = False

    def acquire(self) -> bool:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [ADVISORY_LOCK_CLASS, self.project_id])
                self.held = bool(cursor.fetchone()[0])
        else:
            ttl = int(_setting("AGREEMENT_LOCK_TTL", 1800))
            self.held = cache.add(LOCK_KEY.format(self.project_id), self.token, timeout=ttl)
        return self.held

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [ADVISORY_LOCK_CLASS, self.project_id])
        elif cache.get(LOCK_KEY.format(self.project_id)) == self.token:
            cache.delete(LOCK_KEY.format(self.project_id))


def recompute(project_id: int) -> str:
    """Recompute and store the project's agreement snapshot; returns what happened (for logs and tests).

    "stored", "stored provisional+final", "unchanged" (same fingerprint as the latest snapshot), "busy"
    (another worker computes the project; it will re-schedule), "deleted" (no such project).
    """
    cache.delete(SCHEDULED_KEY.format(project_id))
    if not Project.objects.filter(pk=project_id).exists():
        log.info("recompute of project %s skipped: the project was deleted", project_id)
        return "deleted"
    lock = ProjectLock(project_id)
    if not lock.acquire():
        cache.set(RERUN_KEY.format(project_id), 1, timeout=int(_setting("AGREEMENT_LOCK_TTL", 1800)))
        if not lock.acquire():  # the holder may have finished between the two looks
            return "busy"
    cache.set(RUNNING_KEY.format(project_id), 1, timeout=int(_setting("AGREEMENT_LOCK_TTL", 1800)))
    started = time.monotonic()
    try:
        outcome = _recompute_locked(project_id)
    finally:
        cache.delete(RUNNING_KEY.format(project_id))
        lock.release()
    if cache.delete(RERUN_KEY.format(project_id)):
        # Changes arrived while computing: under a steady stream of saves, leave the worker a breather
        # between computations — at least AGREEMENT_RERUN_DELAY_SECONDS, and at least as long as this
        # computation took (wall time: a worker at a lower CPU priority than the web takes longer when
        # requests need the CPU), so that a project whose computation is expensive (many annotators)
        # keeps a worker busy at most half of the time while people are saving.
        delay = max(_setting("AGREEMENT_RERUN_DELAY_SECONDS", 0.7), time.monotonic() - started)
        schedule(project_id, countdown=delay)
    return outcome


def _recompute_locked(project_id: int) -> str:
    cache.delete(RERUN_KEY.format(project_id))  # what it asked for is read below
    started = time.perf_counter()
    state, _ = AgreementState.objects.get_or_create(project_id=project_id)
    AgreementState.objects.filter(pk=state.pk).update(started_at=timezone.now(), enqueue_failed=False)
    try:
        outcome = _compute_and_store(Project.objects.get(pk=project_id), started)
    except Exception as exc:
        AgreementState.objects.filter(pk=state.pk).update(last_error=_error_text(exc))
        raise
    AgreementState.objects.filter(pk=state.pk).update(finished_at=timezone.now(), last_error="")
    return outcome


def _error_text(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"[:2000]


def latest_snapshot(project: Project | int) -> AgreementSnapshot | None:
    project_id = project if isinstance(project, int) else project.pk
    return (
        AgreementSnapshot.objects.filter(project_id=project_id, scope="project")
        .order_by("-computed_at", "-id")
        .first()
    )


def _compute_and_store(project: Project, started: float) -> str:
    with gc_paused():  # see project_document
        return _compute_and_store_all(project, started)


def _compute_and_store_all(project: Project, started: float) -> str:
    doc = project_document(project)
    fingerprints = document_fingerprints(doc)
    machine, outside = _machine_extras(project, doc)
    digest = fingerprint([fingerprints.document, outside]) if outside else fingerprints.document
    latest = latest_snapshot(project)
    if latest is not None and latest.fingerprint == digest and not latest.results.get("pending"):
        return "unchanged"
    previous = latest.results if latest is not None else None
    # Per-pair DO F1 depends only on the phenomena section: reuse it while that is unchanged.
    same_phenomena = (
        previous is not None
        and "phenomena" in doc
        and previous.get("sections", {}).get("phenomena") == fingerprints.sections.get("phenomena")
        and "pairs" in previous
    )
    documents: dict[str, Any] = {}  # the document's sections as metrics types, converted once
    defer = _kappa_c_is_expensive(doc, fingerprints, previous, documents)
    report = report_sections(
        doc, previous, defer_kappa_c=defer, fingerprints=fingerprints, documents=documents
    )
    tables = None
    if "phenomena" in doc and not same_phenomena:
        tables = phenomena_agreement(doc, fingerprints).tables  # kept by report_sections: no recomputation
    extras = {
        "annotators": doc["annotators"],
        "pairs": pair_results(
            doc, _done_source_ids(project), previous["pairs"] if same_phenomena else None, tables=tables
        ),
        "pair_labels": pair_label_agreement(doc, report[0]["measures"]),
        "progress": progress(project),
        **machine,
    }
    snapshot = _store(project, digest, *report, extras, started)
    if not snapshot.results["pending"]:
        return "stored"
    _store(
        project,
        digest,
        *report_sections(doc, snapshot.results, fingerprints=fingerprints, documents=documents),
        extras,
        started,
    )
    return "stored provisional+final"


def _store(
    project: Project,
    digest: str,
    report: dict[str, Any],
    sections: dict[str, str],
    section_keys: dict[str, list[str]],
    pending: list[str],
    extras: dict[str, Any],
    started: float,
) -> AgreementSnapshot:
    results = {
        "report": report,
        "sections": sections,
        "section_keys": section_keys,
        "pending": pending,
        **extras,
    }
    results["headline"] = headline(results)
    return AgreementSnapshot.objects.create(
        project=project,
        fingerprint=digest,
        results=results,
        duration_ms=round(1000 * (time.perf_counter() - started)),
    )


def headline(results: dict[str, Any]) -> dict[str, float | None]:
    """The few measures the trend chart follows (small, so the chart never loads whole reports)."""
    measures = results["report"]["measures"]
    out = {key: measures[key]["value"] for key in HEADLINE_KEYS if key in measures}
    if results.get("pair_labels"):
        out["pair_labels.fleiss"] = results["pair_labels"]["fleiss"]["value"]
    return out


def _kappa_c_is_expensive(
    doc: dict[str, Any], fingerprints: Any, previous: dict[str, Any] | None, documents: dict[str, Any]
) -> bool:
    """Whether the κ_C Monte Carlo still to run (pairs the kept results cannot serve) exceeds
    AGREEMENT_KAPPA_C_DEFER_WORK items × samples."""
    work = kappa_c_pending_work(doc, fingerprints, previous, documents)
    return work > _setting("AGREEMENT_KAPPA_C_DEFER_WORK", 20_000)


def _done_source_ids(project: Project) -> dict[str, set[str]]:
    rows = Assignment.objects.filter(
        project=project,
        pair__isnull=False,
        status=Assignment.Status.DONE,
        annotator__memberships__project=project,
        annotator__memberships__role=Membership.Role.ANNOTATOR,
    ).values_list("annotator__username", "pair__source_id")
    out: dict[str, set[str]] = defaultdict(set)
    for name, source_id in rows:
        out[name].add(source_id)
    return out


def progress(project: Project) -> list[dict[str, Any]]:
    """Per annotator, phase and kind of work (pairs / units): done, postponed, to do, time spent (s)."""
    rows = (
        Assignment.objects.filter(project=project)
        .annotate(is_unit=ExpressionWrapper(Q(pair__isnull=True), output_field=BooleanField()))
        .values("annotator__username", "phase", "is_unit")
        .annotate(
            total=Count("id"),
            done=Count("id", filter=Q(status=Assignment.Status.DONE)),
            postponed=Count("id", filter=Q(status=Assignment.Status.POSTPONED)),
            seconds=Sum("time_spent"),
        )
        .order_by("annotator__username", "phase", "is_unit")
    )
    return [
        {
            "annotator": row["annotator__username"],
            "phase": row["phase"],
            "kind": "units" if row["is_unit"] else "pairs",
            "done": row["done"],
            "postponed": row["postponed"],
            "todo": row["total"] - row["done"] - row["postponed"],
            "total": row["total"],
            "time_spent": row["seconds"] or 0,
        }
        for row in rows
    ]
