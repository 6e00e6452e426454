"""κ_C's Monte Carlo spread over the workers: planned in parts, computed by a Celery chord, combined.

When κ_C's Monte Carlo is more than AGREEMENT_KAPPA_C_DEFER_WORK items × samples, the recompute stores
its provisional snapshot (κ_C pending) and plans the Monte Carlo in parts (`start`): per annotator
pair, its items in ranges of at most AGREEMENT_KAPPA_C_CHUNK_DRAWS uniform draws
(`metrics.chance.kappa_c_chunks`). The parts are stored as `KappaCChunk` rows keyed by the digest of
their content and the plan as the project's one `KappaCRun` row; then one chord is sent:
`group(annotator.compute_kappa_c_part(part id) for each part still to compute)` and, once every part
has returned, `annotator.finish_kappa_c(project id, plan id)`, which runs the recompute that combines
the parts into the final κ_C (`computation.recompute`). Each part starts its generator where the single
stream of the normative recipe is at its first item (PCG64 `advance`), so the combined π̂0 is the
single-process one bit for bit, whatever the number of workers and parts (docs/measures.md#kappa-c).

- Reuse: a part's digest covers everything it depends on (items, edit probabilities, options), so a
  change by one annotator recomputes only the parts of that annotator's pairs; a new plan deletes the
  parts and plans it no longer uses (storage stays bounded by one plan per project), and the part
  tasks of an older chord whose rows are gone return at once.
- Progress: a part task stores its values and counts itself in its plan's `done` (an F() increment,
  only when it is the one that stored them); the dashboard reads (done, total) from the plan row.
- A killed worker: tasks are acknowledged late and rejected when their worker is lost, so the broker
  delivers the part again (after its visibility timeout) to another worker; a part is idempotent and
  transient errors are retried (`annotator.tasks.RETRYING`). Nothing here watches the workers.
- Without a broker (the embedded default) the chord runs in this process (`taskqueue.enqueue_chord`)
  before `start_plan` returns, and the caller combines the parts in the same recompute.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotator import taskqueue
from annotator.models import KappaCChunk, KappaCRun, Project
from metrics.chance import ChanceChunk, chance_chunk, kappa_c_chunks
from metrics.types import Document

log = logging.getLogger(__name__)

PART_TASK = "annotator.compute_kappa_c_part"
FINISH_TASK = "annotator.finish_kappa_c"
#: Chance results of one annotator pair "a|b": per item, the mean and the variance of its J concordances.
Chance = dict[str, tuple[list[float], list[float]]]


def small_work() -> float:
    """Monte Carlo work (items × samples) small enough to run inside a recompute rather than be deferred
    to the workers' parts (AGREEMENT_KAPPA_C_DEFER_WORK)."""
    return float(settings.AGREEMENT_KAPPA_C_DEFER_WORK)


def max_draws() -> int:
    """Uniform draws at most in one part (AGREEMENT_KAPPA_C_CHUNK_DRAWS)."""
    return int(settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS)


def chance_results(project_id: int, fingerprint: str) -> Chance | None:
    """The combined part results for κ_C inputs `fingerprint` (the κ_C section's), or None while a
    part is missing or not computed. Per annotator pair its parts' items end to end, in item order."""
    run = KappaCRun.objects.filter(project_id=project_id, fingerprint=fingerprint).first()
    if run is None:
        return None
    rows = {  # the project's parts are its one plan's (`start_plan` deletes the others)
        digest: (means, variances)
        for digest, means, variances in KappaCChunk.objects.filter(
            project_id=project_id, status=KappaCChunk.Status.DONE
        ).values_list("digest", "means", "variances")
    }
    if any(d not in rows for d in run.digests):
        return None
    out: Chance = {}
    for key, digests in run.chunks.items():
        means = [x for d in digests for x in _floats(rows[d][0])]
        variances = [x for d in digests for x in _floats(rows[d][1])]
        out[key] = (means, variances)
    return out


def progress(project_id: int) -> tuple[int, int] | None:
    """(done, total) parts of the project's κ_C plan, None without one (one row read)."""
    row = KappaCRun.objects.filter(project_id=project_id).values_list("done", "total").first()
    if row is None:
        return None
    done, total = row
    return min(done, total), total


#: True while a recompute that the broker delivered again (its worker was lost) runs: a plan it finds
#: "in flight" may be one whose chord that worker never sent (killed between storing the plan and
#: sending it), so the plan is stored and sent again. Parts are content-addressed: a part that an
#: earlier delivery still computes is stored once ("already done"), and the old chord's callback finds
#: its plan superseded.
_resending: ContextVar[bool] = ContextVar("kappa_c_resending", default=False)


@contextmanager
def resending(redelivered: bool) -> Iterator[None]:
    """Within the block, a plan in flight is not waited for when `redelivered` (see `_resending`)."""
    token = _resending.set(redelivered)
    try:
        yield
    finally:
        _resending.reset(token)


def waiting(project_id: int, fingerprint: str) -> tuple[int, int] | None:
    """(done, total) while the workers compute the parts of the plan of κ_C inputs `fingerprint` (its
    chord was sent and a part is still pending); None otherwise — no such plan, every part computed, or
    no broker (the parts then run in the recompute that plans them)."""
    if taskqueue.runs_in_process() or _resending.get():
        return None
    if not KappaCRun.objects.filter(project_id=project_id, fingerprint=fingerprint).exists():
        return None
    if not KappaCChunk.objects.filter(project_id=project_id, status=KappaCChunk.Status.PENDING).exists():
        return None
    return progress(project_id) or (0, 0)


def start(project: Project, document: Document, fingerprint: str, *, fresh: bool = False) -> tuple[int, int]:
    """Plan the κ_C parts of `document` (inputs `fingerprint`), store them and send the chord of those
    still to compute; returns (done, total). `fresh` drops every stored part first (a full recompute)."""
    return start_plan(project, kappa_c_chunks(document, max_draws=max_draws()), fingerprint, fresh=fresh)


def start_plan(
    project: Project,
    plan: Mapping[str, list[ChanceChunk]],
    fingerprint: str,
    *,
    fresh: bool = False,
) -> tuple[int, int]:
    """Store the parts of `plan` (annotator pair "a|b" → its parts in item order) as the project's plan
    for κ_C inputs `fingerprint` and send the chord of the parts still to compute; returns (done, total).

    With a broker, a plan of the same inputs whose chord was sent already is left to it (its (done,
    total) are returned). The project's part rows are always those of its one stored plan: storing a
    plan deletes the others' (an older chord's parts then return at once)."""
    if not fresh and (in_flight := waiting(project.pk, fingerprint)) is not None:
        return in_flight
    rows, chunks = _rows(project, plan)
    digests = [d for key in sorted(chunks) for d in chunks[key]]
    with transaction.atomic():
        if fresh:
            KappaCChunk.objects.filter(project=project).delete()
        KappaCRun.objects.filter(project=project).delete()
        KappaCChunk.objects.filter(project=project).exclude(digest__in=digests).delete()
        KappaCChunk.objects.bulk_create(rows, ignore_conflicts=True)
        pending = dict(
            KappaCChunk.objects.filter(
                project=project, digest__in=digests, status=KappaCChunk.Status.PENDING
            ).values_list("pk", "n_items")
        )
        run = KappaCRun.objects.create(
            project=project,
            fingerprint=fingerprint,
            chunks=chunks,
            total=len(digests),
            done=len(digests) - len(pending),
        )
    _send(project.pk, run.pk, list(pending))
    return progress(project.pk) or (len(digests) - len(pending), len(digests))


def _rows(
    project: Project, plan: Mapping[str, list[ChanceChunk]]
) -> tuple[list[KappaCChunk], dict[str, list[str]]]:
    """The plan's part rows (unsaved) and, per annotator pair, its parts' digests in order."""
    rows: list[KappaCChunk] = []
    chunks: dict[str, list[str]] = {}
    for key, parts in plan.items():
        chunks[key] = []
        for part in parts:
            spec = json.dumps(part.as_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            digest = hashlib.sha256(spec.encode("utf-8")).hexdigest()
            chunks[key].append(digest)
            rows.append(
                KappaCChunk(
                    project=project,
                    digest=digest,
                    key=key,
                    start=part.start,
                    n_items=len(part.pairs),
                    draws=part.draws,
                    spec=spec,
                )
            )
    return rows, chunks


def _send(project_id: int, run_id: int, part_ids: list[int]) -> None:
    """The chord of the parts `part_ids`, then `finish_kappa_c(project_id, run_id)`. With the broker
    unreachable the plan is deleted (its computed parts stay): the next recompute plans it again."""
    try:
        taskqueue.enqueue_chord(PART_TASK, [(pk,) for pk in part_ids], FINISH_TASK, project_id, run_id)
    except taskqueue.QueueUnavailable as exc:
        log.warning(
            "κ_C of project %s: parts not sent, planned again at the next recompute: %s", project_id, exc
        )
        KappaCRun.objects.filter(pk=run_id).delete()


def compute(part_id: int) -> str:
    """Compute one part and store its items' means and variances, counting it in its plan's `done`:
    "done"; "already done" (a part delivered twice, or one an earlier plan computed); "dropped" (a
    newer plan no longer uses it)."""
    row = KappaCChunk.objects.filter(pk=part_id).values_list("project_id", "status", "spec").first()
    if row is None:
        return "dropped"
    project_id, status, spec = row
    if status == KappaCChunk.Status.DONE:
        return "already done"
    means, variances = chance_chunk(ChanceChunk.from_dict(json.loads(spec)))
    with transaction.atomic():
        stored = KappaCChunk.objects.filter(pk=part_id, status=KappaCChunk.Status.PENDING).update(
            status=KappaCChunk.Status.DONE,
            means=_bytes(means),
            variances=_bytes(variances),
            finished_at=timezone.now(),
        )
        if stored:
            KappaCRun.objects.filter(project_id=project_id).update(done=F("done") + 1)
    return "done" if stored else "already done"


def is_current(project_id: int, run_id: int) -> bool:
    """Whether plan `run_id` is still the project's (a newer plan deletes it)."""
    return KappaCRun.objects.filter(pk=run_id, project_id=project_id).exists()


def ready(project_id: int, run_id: int) -> bool:
    """Whether plan `run_id` is still the project's and every one of its parts is computed (the chord's
    callback asks before it combines them)."""
    run = (
        KappaCRun.objects.filter(pk=run_id, project_id=project_id)
        .values_list("fingerprint", flat=True)
        .first()
    )
    return run is not None and chance_results(project_id, run) is not None


def _bytes(values: list[float]) -> bytes:
    return np.asarray(values, dtype="<f8").tobytes()


def _floats(raw: bytes | memoryview | None) -> list[float]:
    if raw is None:
        raise ValueError("a κ_C part marked done has no stored values")
    return np.frombuffer(bytes(raw), dtype="<f8").tolist()
