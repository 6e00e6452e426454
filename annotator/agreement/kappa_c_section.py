"""κ_C alone, from the stored per-pair parts: how a computation whose other sections are current
finishes κ_C (spec §5.4).

After an incremental update that changed word alignments (`annotator.agreement.incremental`), every
section of the report is current except κ_C, which is pending. κ_C reads of each pair only what
`pairstate.kappa_c_part` keeps in the pair's state row (who aligned it, its shape, whether it has an
initial alignment, each annotator's edits against it, the observed concordance of each two annotators),
so `finish` computes the κ_C section from those rows, without the document:

- π̂ per annotator pair from the stored concordances of the pairs both aligned (document order);
- per annotator the edit model, the OLS fit of `e_ri / (N_i·M_i)` against `L_i = N_i + M_i` over the
  pairs they aligned that have an initial alignment;
- the Monte Carlo of each annotator pair whose items all have an initial alignment, planned in parts
  (`metrics.chance.split_items`, the plan `metrics.chance.kappa_c_chunks` makes from the document)
  that a Celery chord computes (`kappa_c_chunks.start_plan`; a part's digest covers its items and edit
  probabilities, so the parts of annotator pairs without the changed annotator are reused); the
  chord's callback runs the recompute that calls `finish` again;
- the combination into π̂0, κ_C and pi0_se (`metrics.chance.kappa_c_from_items`).

The κ_C section equals the full computation's bit for bit (a test holds this after random link edits):
the same items, the same edit probabilities, the same random streams, the same correctly rounded sums.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import timezone

from annotator.agreement import incremental, kappa_c_chunks
from annotator.agreement.document import document_pairs, project_annotators
from annotator.agreement.results import KAPPA_C, json_safe, trusted_pair
from annotator.models import AgreementPairState, AgreementSection, Project
from metrics.chance import (
    ChanceChunk,
    EditModel,
    KappaC,
    fit_edit_model,
    kappa_c_from_items,
    kappa_c_measures,
    split_items,
)
from metrics.types import Options

#: One pair's κ_C part (`pairstate.kappa_c_part`) with its id.
Part = tuple[str, Mapping[str, Any]]

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Finished:
    """The κ_C section computed from the stored parts (`measures`, its report keys), or, while parts of
    its Monte Carlo are still to compute, `measures` None and the plan's `done` / `total` parts."""

    section_id: int
    measures: dict[str, Any] | None
    done: int = 0
    total: int = 0


def _declined(project: Project, reason: str) -> Finished | None:
    """None (the full computation finishes κ_C), saying why in the log."""
    log.info("κ_C of project %s: full computation (%s)", project.pk, reason)
    return None


def finish(project: Project, latest: tuple[str, list[str]] | None, *, here: bool = False) -> Finished | None:
    """The κ_C section of the project's stored state, when `latest` (the project's current agreement's
    fingerprint and pending sections, `current.summary_state`) is that state's with only κ_C pending;
    None when only the full computation can tell (no such agreement, inputs outside the per-pair state,
    the shared parts changed, state rows without κ_C parts). `here`: the Monte Carlo parts still to
    compute (a small Monte Carlo) are computed in this process, not sent to the workers."""
    if latest is None or latest[1] != [KAPPA_C] or not project.layer_word_alignment:
        return _declined(project, "no current agreement with only κ_C pending")
    if not incremental.updatable(project):
        return _declined(project, "phrase alignments or registered systems")
    rows = {
        r.name: r
        for r in AgreementSection.objects.filter(project=project, name__in=[incremental.STATE, KAPPA_C])
    }
    state, section = rows.get(incremental.STATE), rows.get(KAPPA_C)
    if state is None or section is None or state.fingerprint != latest[0]:
        return _declined(project, "the stored state is not the current agreement's")
    names = [name for _, name in project_annotators(project)]
    if state.totals["shared"] != incremental.shared_key(project, names):  # e.g. someone joined since
        return _declined(project, "the annotators, tagset or layers changed")
    if (waiting := kappa_c_chunks.waiting(project.pk, section.fingerprint)) is not None:
        # the workers compute this plan's parts: its chord's callback finishes κ_C
        return Finished(section.pk, None, *waiting)
    parts = _parts(project)
    if parts is None:
        return _declined(project, "pair states stored before κ_C's parts were kept")
    options = dataclasses.replace(Options(), identical_match=state.totals["identical_match"])
    return _section(project, section, names, parts, options, here=here)


def store(finished: Finished) -> None:
    """Rewrite the κ_C section row with the finished measures (the caller's transaction)."""
    AgreementSection.objects.filter(pk=finished.section_id).update(
        measures=finished.measures, updated_at=timezone.now()
    )


def _parts(project: Project) -> list[Part] | None:
    """Every pair's κ_C part in document order; None if a row has none (stored before parts were kept)."""
    rows = list(
        AgreementPairState.objects.filter(project=project)
        .order_by("pair__position", "pair_id")
        .values_list("pair__source_id", "contributions__kappa_c")
    )
    if any(part is None for _, part in rows):
        return None
    return rows


def _section(
    project: Project,
    section: AgreementSection,
    names: list[str],
    parts: list[Part],
    options: Options,
    *,
    here: bool = False,
) -> Finished:
    aligned = {a for _, part in parts for a in part["aligned"]}
    annotators = [a for a in names if a in aligned]
    by_key: dict[str, list[Part]] = {}  # annotator pair → its items in document order, in one pass
    for item in parts:
        for key in item[1]["conc"]:
            by_key.setdefault(key, []).append(item)
    conc: dict[str, list[float]] = {}
    sampled: dict[str, list[Part]] = {}
    for k, a in enumerate(annotators):
        for b in annotators[k + 1 :]:
            key = f"{a}|{b}"
            items = by_key.get(key, [])
            conc[key] = [hits / smaller for hits, smaller in (part["conc"][key] for _, part in items)]
            if items and all(part["initial"] for _, part in items):
                sampled[key] = items
    chance = kappa_c_chunks.chance_results(project.pk, section.fingerprint) if sampled else {}
    models = edit_models(parts, annotators)
    if chance is None:
        done_total = _monte_carlo(project, section.fingerprint, sampled, models, options, here=here)
        if isinstance(done_total, tuple):
            return Finished(section.pk, None, *done_total)
        chance = done_total
    results: dict[str, KappaC] = {
        key: kappa_c_from_items(
            values, chance[key] if key in sampled else None, mc_samples=options.mc_samples
        )
        for key, values in conc.items()
    }
    measures = kappa_c_measures(results, models, with_pairs=len(annotators) >= 2)
    return Finished(section.pk, json_safe(measures))


def edit_models(parts: Sequence[Part], annotators: Sequence[str]) -> dict[str, EditModel | None]:
    """Each annotator's edit model (`metrics.chance.fit_edit_model`) from the stored edits, in one pass
    over the pairs: for `r`, over the pairs `r` aligned that have an initial alignment and cells,
    `q = e_ri / (N_i·M_i)`, `L = N_i + M_i`."""
    q: dict[str, list[float]] = {r: [] for r in annotators}
    lengths: dict[str, list[int]] = {r: [] for r in annotators}
    for _, part in parts:
        n, m = part["shape"]
        if not (part["initial"] and n * m):
            continue
        for r in part["aligned"]:
            if r in q:
                q[r].append(part["edits"][r] / (n * m))
                lengths[r].append(n + m)
    return {r: fit_edit_model(q[r], lengths[r]) for r in annotators}


def _monte_carlo(
    project: Project,
    fingerprint: str,
    sampled: Mapping[str, list[Part]],
    models: Mapping[str, EditModel | None],
    options: Options,
    *,
    here: bool = False,
) -> kappa_c_chunks.Chance | tuple[int, int]:
    """The Monte Carlo's per-item results of the `sampled` annotator pairs, or (done, total) parts once
    its plan is handed to the workers."""
    plan = _plan(project, sampled, models, options, kappa_c_chunks.max_draws())
    done, total = kappa_c_chunks.start_plan(project, plan, fingerprint, here=here)
    chance = kappa_c_chunks.chance_results(project.pk, fingerprint)
    return chance if chance is not None else (done, total)


def _plan(
    project: Project,
    sampled: Mapping[str, list[Part]],
    models: Mapping[str, EditModel | None],
    options: Options,
    max_draws: int,
) -> dict[str, list[ChanceChunk]]:
    """Per sampled annotator pair, its items in chunks of at most `max_draws` uniform draws, with the
    edit probabilities of the two annotators' models (no model: nothing to flip)."""
    pairs = {p["id"]: trusted_pair(p) for p in document_pairs(project)}
    no_cells = EditModel(0.0, 0.0, 0)
    out: dict[str, list[ChanceChunk]] = {}
    for key, items in sampled.items():
        a, b = key.split("|", 1)
        model_a, model_b = models[a] or no_cells, models[b] or no_cells
        lengths = [sum(part["shape"]) for _, part in items]
        out[key] = split_items(
            key,
            [pairs[pid] for pid, _ in items],
            [model_a.pr_edit(length) for length in lengths],
            [model_b.pr_edit(length) for length in lengths],
            max_draws=max_draws,
            mc_samples=options.mc_samples,
            mc_seed=options.mc_seed,
            identical_match=options.identical_match,
        )
    return out
