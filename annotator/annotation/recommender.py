"""Training a project's phenomena recommender and asking it for suggestions (the Django side).

`configure` records which project's phenomena train the recommender (the project itself or another,
e.g. an imported ETPC) and whether it retrains by itself every N newly annotated pairs. `start_training`
records a `RecommenderRun` (the project's next version) and enqueues `annotator.train_recommender`;
`run_training` (the task body) reads the training project's phenomena — per pair the gold layer when
there is one, else every annotator's — trains `annotator.annotation.phenomena_recommender` on them and
stores the model on the run, writing progress as it goes. The pairs' labels (paraphrase or not) go with
them: the gold layer's, else the annotators' when they agree. A failed run keeps the previous version in
use. `suggestions` proposes phenomena for one pair from the latest succeeded run; nothing is written:
a suggestion becomes someone's phenomenon only through `services.add_phenomenon`, when they accept it.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections import defaultdict
from functools import lru_cache
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotator import taskqueue
from annotator.annotation import phenomena_recommender as rec
from annotator.core.aligner import suggested_alignment
from annotator.models import (
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    Project,
    RecommenderRun,
    RecommenderSettings,
)

log = logging.getLogger(__name__)
BUSY = (RecommenderRun.Status.QUEUED, RecommenderRun.Status.RUNNING)


class TrainingError(ValueError):
    """A run or a setting that cannot be, said in the lead's words."""


def settings_of(project: Project) -> RecommenderSettings:
    found, _ = RecommenderSettings.objects.get_or_create(project=project)
    return found


def configure(
    project: Project, *, training_project: Project | None, retrain_every: int | None
) -> RecommenderSettings:
    """Set the training project (None = the project itself) and the automatic retraining (None = off)."""
    source = training_project or project
    if source.tagset_id is None or project.tagset_id is None:
        raise TrainingError("Both projects need a tagset before the recommender can learn types.")
    ours = set(ParaphraseType.objects.filter(tagset_id=project.tagset_id).values_list("code", "name"))
    theirs = set(ParaphraseType.objects.filter(tagset_id=source.tagset_id).values_list("code", "name"))
    if not ours & theirs:
        raise TrainingError(
            f"{source.name}'s tagset shares no type code with {project.name}'s (same code and name): "
            "its phenomena cannot be suggested here."
        )
    if retrain_every is not None and retrain_every < 1:
        raise TrainingError("Retrain every N pairs: N must be at least 1 (or empty for 'only on request').")
    found = settings_of(project)
    found.training_project = (
        training_project if training_project and training_project.pk != project.pk else None
    )
    found.retrain_every = retrain_every
    found.save(update_fields=["training_project", "retrain_every"])
    return found


def annotated_pairs(project: Project) -> int:
    """Pairs of the project with at least one phenomenon (anyone's, or gold)."""
    return Phenomenon.objects.filter(pair__project=project).values("pair").distinct().count()


@transaction.atomic
def create_run(project: Project, user: Any) -> RecommenderRun:
    """The project's next recommender version, queued. One run at a time per project."""
    Project.objects.select_for_update().filter(pk=project.pk).first()
    busy = RecommenderRun.objects.filter(project=project, status__in=BUSY).first()
    if busy is not None:
        raise TrainingError(
            f"Version {busy.version} of the recommender is still {busy.get_status_display().lower()}."
        )
    source = settings_of(project).source
    n = annotated_pairs(source)
    if n == 0:
        raise TrainingError(f"{source.name} has no phenomena yet: there is nothing to learn from.")
    last = RecommenderRun.objects.filter(project=project).aggregate(v=Max("version"))["v"] or 0
    return RecommenderRun.objects.create(
        project=project,
        version=last + 1,
        training_project=source,
        annotated_pairs=n,
        created_by=user if getattr(user, "pk", None) else None,
    )


def start_training(project: Project, user: Any) -> RecommenderRun:
    """Record the run and enqueue it on a worker (in-process without a broker)."""
    run = create_run(project, user)
    transaction.on_commit(lambda: _send(run.pk))
    return run


def _send(run_id: int) -> None:
    """Hand the run to a worker; if the queue is unreachable the run fails now, saying so."""
    try:
        taskqueue.enqueue("annotator.train_recommender", run_id)
    except taskqueue.QueueUnavailable as exc:
        RecommenderRun.objects.filter(pk=run_id, status=RecommenderRun.Status.QUEUED).update(
            status=RecommenderRun.Status.FAILED,
            finished_at=timezone.now(),
            report={
                "summary": f"{exc} The previous version stays in use; train again once the queue is back."
            },
        )


def maybe_retrain(project_id: int) -> list[RecommenderRun]:
    """Start the runs due because ``project_id`` gained annotated pairs: every project whose recommender
    learns from it with "retrain every N pairs" and at least N more annotated pairs than its last run."""
    due = RecommenderSettings.objects.filter(retrain_every__isnull=False).select_related(
        "project", "training_project"
    )
    due = due.filter(training_project_id=project_id) | due.filter(
        training_project__isnull=True, project_id=project_id
    )
    started = []
    for found in due:
        last = RecommenderRun.objects.filter(project=found.project).order_by("-version").first()
        if last is not None and last.status in BUSY:
            continue
        before = last.annotated_pairs if last is not None else 0
        if annotated_pairs(found.source) - before >= (found.retrain_every or 0):
            try:
                started.append(start_training(found.project, None))
            except TrainingError as exc:
                log.info("recommender of project %s not retrained: %s", found.project_id, exc)
    return started


def _training_data(
    source: Project,
) -> tuple[list[tuple[str, list[str], list[str], Any]], dict[str, list[rec.Annotated]], dict[str, str]]:
    """Pairs with phenomena, their phenomena (per pair the gold layer if any, else everyone's) and their
    labels (the gold layer's, else the annotators' when all who labelled the pair agree)."""
    by_pair: dict[int, dict[bool, list[rec.Annotated]]] = defaultdict(lambda: {True: [], False: []})
    rows = Phenomenon.objects.filter(pair__project=source).values_list(
        "pair_id", "is_gold", "ptype__code", "scope1", "scope2"
    )
    for pair_id, is_gold, code, s1, s2 in rows.iterator(chunk_size=2000):
        by_pair[pair_id][is_gold].append(rec.Annotated(code, frozenset(s1), frozenset(s2)))
    pairs = Pair.objects.filter(pk__in=list(by_pair)).order_by("position", "pk")
    inputs = [(str(p.pk), p.tokens1, p.tokens2, suggested_alignment(p)[0]) for p in pairs]
    annotated = {str(pk): layers[True] or layers[False] for pk, layers in by_pair.items()}
    given: dict[int, dict[bool, set[str]]] = defaultdict(lambda: {True: set(), False: set()})
    label_rows = PairLabel.objects.filter(pair__project=source, pair_id__in=list(by_pair)).exclude(label="")
    for pair_id, is_gold, label in label_rows.values_list("pair_id", "is_gold", "label").iterator(
        chunk_size=2000
    ):
        given[pair_id][is_gold].add(label)
    labels = {
        str(pk): next(iter(found))
        for pk, layers in given.items()
        for found in [layers[True] or layers[False]]
        if len(found) == 1
    }
    return inputs, annotated, labels


def _roles(project: Project) -> rec.TypeRoles:
    return rec.roles_from_types(
        ParaphraseType.objects.filter(tagset__project=project).values_list("code", "name", "scope_sides")
    )


def run_training(run_id: int) -> str | None:
    """Train and store (the task body). Returns the final status; a deleted run is logged and skipped."""
    run = RecommenderRun.objects.select_related("project", "training_project").filter(pk=run_id).first()
    if run is None:
        log.warning("recommender run %s no longer exists; skipped", run_id)
        return None
    if run.status in (RecommenderRun.Status.SUCCEEDED, RecommenderRun.Status.FAILED):
        return run.status  # a re-delivered task of a finished run
    source = run.training_project or run.project
    RecommenderRun.objects.filter(pk=run.pk).update(status=RecommenderRun.Status.RUNNING, stage="loading")
    started = time.perf_counter()

    def progress(stage: str, share: float) -> None:
        RecommenderRun.objects.filter(pk=run.pk).update(stage=stage, progress=int(100 * share))

    try:
        inputs, annotated, labels = _training_data(source)
        progress("analysing", 0.05)
        pairs = rec.pair_inputs(inputs, labels)
        progress("training", 0.3)
        model = rec.train(
            pairs, annotated, _roles(source), progress=lambda s: progress("training", 0.3 + 0.7 * s)
        )
    except ValueError as exc:  # nothing to learn: said on the run, the previous version stays in use
        RecommenderRun.objects.filter(pk=run.pk).update(
            status=RecommenderRun.Status.FAILED, finished_at=timezone.now(), report={"summary": str(exc)}
        )
        return RecommenderRun.Status.FAILED
    except Exception as exc:  # a bug: recorded on the run, then the task fails loudly
        RecommenderRun.objects.filter(pk=run.pk).update(
            status=RecommenderRun.Status.FAILED,
            finished_at=timezone.now(),
            report={"summary": f"Internal error: {exc.__class__.__name__}: {exc}"},
        )
        raise
    progress("scoring", 0.95)
    report = _report(run, source, model, score_against_people(run.project, model), started)
    RecommenderRun.objects.filter(pk=run.pk).update(
        status=RecommenderRun.Status.SUCCEEDED,
        stage="done",
        progress=100,
        finished_at=timezone.now(),
        model=rec.dumps(model),
        report=report,
    )
    return RecommenderRun.Status.SUCCEEDED


def _report(
    run: RecommenderRun, source: Project, model: rec.Recommender, scores: list[dict[str, Any]], started: float
) -> dict[str, Any]:
    """What a succeeded run stores about itself (docs/recommender.md, "Training runs")."""
    seconds = round(time.perf_counter() - started, 2)
    return {
        "summary": (
            f"Version {run.version}: learnt from {model.trained_on} annotated pairs of {source.name} "
            f"({model.examples} candidate spans) in {seconds} s."
        ),
        "pairs": model.trained_on,
        "candidates": model.examples,
        "trusted_rules": sorted(model.trusted_rules),
        "thresholds": {k: round(v, 3) for k, v in sorted(model.thresholds.items())},
        "label_gate": model.label_gate,
        "seconds": seconds,
        "scores": scores,
        "in_sample": source.pk == run.project_id,
    }


def score_against_people(project: Project, model: rec.Recommender) -> list[dict[str, Any]]:
    """The recommender scored like an annotator: its suggestions on the pairs each annotator (and the
    gold layer) annotated, against that person's phenomena — agr_ph, DO F1 (`metrics.iapta`) and, per
    type, precision and recall by the IAPTA partial-overlap rule (as `bench/bench_recommender.py`)."""
    from metrics.iapta import agr_ph, do_f1
    from metrics.types import Phenomenon as MPhenomenon

    people: dict[tuple[bool, int], list[MPhenomenon]] = defaultdict(list)
    names: dict[tuple[bool, int], str] = {}
    rows = Phenomenon.objects.filter(pair__project=project).values_list(
        "pair_id", "annotator_id", "annotator__username", "is_gold", "ptype__name", "scope1", "scope2"
    )
    for pair_id, who, username, is_gold, type_name, s1, s2 in rows.iterator(chunk_size=2000):
        key = (is_gold, 0 if is_gold else who)
        names[key] = "gold" if is_gold else username
        people[key].append(MPhenomenon(str(pair_id), type_name, frozenset(s1), frozenset(s2)))
    if not people:
        return []
    pair_ids = {int(p.pair) for found in people.values() for p in found}
    pairs = Pair.objects.filter(pk__in=pair_ids).order_by("pk")
    inputs = rec.pair_inputs([(str(p.pk), p.tokens1, p.tokens2, suggested_alignment(p)[0]) for p in pairs])
    type_names = dict(ParaphraseType.objects.filter(tagset__project=project).values_list("code", "name"))

    def scored(found: list[rec.Suggestion]) -> list[MPhenomenon]:
        return [
            MPhenomenon(s.pair, type_names[s.type], frozenset(s.scope1), frozenset(s.scope2))
            for s in found
            if s.type in type_names
        ]

    suggested = scored(model.suggest(inputs))
    labelled = _non_paraphrase_labels(project, pair_ids) if model.label_gate is not None else {}
    gated = {
        p.pair: scored(model.suggest([dataclasses.replace(p, label=rec.NON_PARAPHRASE)]))
        for p in inputs
        if any(p.pair in found for found in labelled.values())
    }
    out = []
    for key in sorted(people, key=lambda k: (not k[0], names[k])):
        theirs = people[key]
        annotated = {p.pair for p in theirs}
        theirs_np = labelled.get(key, set())  # the label gates those pairs
        mine = [p for p in suggested if p.pair in annotated and p.pair not in theirs_np]
        mine += [p for pid in sorted(theirs_np & annotated) for p in gated[pid]]
        out.append(
            {
                "reference": names[key],
                "pairs": len(annotated),
                "agr_ph": agr_ph(mine, theirs),
                "do_f1": do_f1(mine, theirs),
                "by_type": _by_type(mine, theirs),
            }
        )
    return out


def _by_type(mine: list[Any], theirs: list[Any]) -> list[dict[str, Any]]:
    """Per type, the suggestions' precision and the reference's recall by the IAPTA partial-overlap
    rule, with the number of suggested and annotated phenomena."""
    from metrics.iapta import tpo_scores

    by_type = []
    for type_name in sorted({p.type for p in theirs} | {p.type for p in mine}):
        x = [p for p in mine if p.type == type_name]
        y = [p for p in theirs if p.type == type_name]
        t = tpo_scores(x, y)
        by_type.append(
            {
                "type": type_name,
                "suggested": len(x),
                "annotated": len(y),
                "precision": t.count_xy / len(x) if x else None,
                "recall": t.count_yx / len(y) if y else None,
            }
        )
    return by_type


def _non_paraphrase_labels(project: Project, pair_ids: set[int]) -> dict[tuple[bool, int], set[str]]:
    """Per reference (gold, or an annotator), the pairs they labelled non-paraphrase: the label gates
    the suggestions on those pairs, as in their editor."""
    labelled: dict[tuple[bool, int], set[str]] = defaultdict(set)
    label_rows = PairLabel.objects.filter(
        pair__project=project, pair_id__in=pair_ids, label=PairLabel.Label.NON_PARAPHRASE
    ).values_list("pair_id", "annotator_id", "is_gold")
    for pair_id, who, is_gold in label_rows:
        labelled[(is_gold, 0 if is_gold else who)].add(str(pair_id))
    return labelled


def latest_run(project: Project) -> RecommenderRun | None:
    return RecommenderRun.objects.filter(project=project).order_by("-version").first()


def current_run(project: Project) -> RecommenderRun | None:
    """The latest succeeded run: the version whose suggestions annotators see."""
    return (
        RecommenderRun.objects.filter(project=project, status=RecommenderRun.Status.SUCCEEDED)
        .select_related("training_project")
        .defer("model")
        .order_by("-version")
        .first()
    )


@lru_cache(maxsize=8)
def _model(run_pk: int, finished_at: Any) -> rec.Recommender:
    """The run's stored model, loaded once per process; `finished_at` is in the key for the reason
    `_suggested`'s key holds it: a row id used again never returns another run's model."""
    data = RecommenderRun.objects.filter(pk=run_pk).values_list("model", flat=True).get()
    if data is None:
        raise ValueError(f"recommender run {run_pk} has no stored model")
    return rec.loads(bytes(data))


_SUGGESTED: dict[tuple[Any, ...], tuple[rec.Suggestion, ...]] = {}
_SUGGESTED_KEPT = 256


def _suggested(run: RecommenderRun, pair: Pair, label: str = "") -> tuple[rec.Suggestion, ...]:
    """What the run suggests for the pair, computed once per process (spaCy and the model take tens of
    milliseconds, and the editor asks again after every save of the phenomena). The key holds the run's
    finishing time and the pair's tokens and stored alignment, so a row id used again (a database
    restored, a test) never returns another pair's suggestions. ``label``: the annotator's pair label
    (a non-paraphrase label may gate the suggestions, `Recommender.label_gate`)."""
    content = hash((tuple(pair.tokens1), tuple(pair.tokens2), repr(pair.initial_alignment)))
    key = (run.pk, run.finished_at, pair.pk, content, label)
    found = _SUGGESTED.get(key)
    if found is None:
        links, _ = suggested_alignment(pair)
        (item,) = rec.pair_inputs([(str(pair.pk), pair.tokens1, pair.tokens2, links)], {str(pair.pk): label})
        found = tuple(_model(run.pk, run.finished_at).suggest([item]))
        if len(_SUGGESTED) >= _SUGGESTED_KEPT:
            _SUGGESTED.pop(next(iter(_SUGGESTED)))
        _SUGGESTED[key] = found
    return found


def suggestions(pair: Pair, annotator: Any, *, is_gold: bool = False) -> list[dict[str, Any]]:
    """The current version's suggestions for ``pair`` that ``annotator`` has not already annotated
    (same type and scopes), as ``{"ptype", "scope1", "scope2", "source", "score"}`` rows; [] when the
    project has no trained recommender. The annotator's pair label goes with the pair: labelled
    non-paraphrase, it may be offered the whole-pair type only (`Recommender.label_gate`). Writes
    nothing."""
    run = current_run(pair.project)
    if run is None or pair.project.tagset_id is None:
        return []
    types = {t.code: t for t in ParaphraseType.objects.filter(tagset_id=pair.project.tagset_id)}
    have = {
        (code, tuple(s1), tuple(s2))
        for code, s1, s2 in Phenomenon.objects.filter(
            pair=pair, annotator=annotator, is_gold=is_gold
        ).values_list("ptype__code", "scope1", "scope2")
    }
    out = []
    label = (
        PairLabel.objects.filter(pair=pair, annotator=annotator, is_gold=is_gold)
        .values_list("label", flat=True)
        .first()
    )
    for s in _suggested(run, pair, label or ""):
        ptype = types.get(s.type)
        if ptype is None or (s.type, s.scope1, s.scope2) in have:
            continue
        out.append(
            {
                "ptype": ptype,
                "scope1": list(s.scope1),
                "scope2": list(s.scope2),
                "source": s.source,
                "score": s.score,
            }
        )
    return out
