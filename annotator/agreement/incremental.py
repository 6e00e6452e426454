"""Agreement updated pair by pair from the stored state (`AgreementPairState`, `AgreementSection`).

Every save records the pair it changed (`AgreementChange`, `annotator.agreement.changes`). When all
changes waiting for a project name a pair and the stored state matches the project's shared parts
(annotators, tagset, layers), `update` reads only those pairs' annotations and state rows, moves the
section totals (`annotator.agreement.pairstate`) by what the pairs changed, recomputes the sections
they touch from the totals, and rewrites only those section rows. Otherwise (no state yet, a change
without a pair, someone joins or starts a section, phrase alignments or registered systems, ETPC's
sense marks) it answers None and the caller runs the full computation, which stores the state afresh
(`store_full_state`). Both store the same report: a test holds incremental = full on random edits.

Section rows: one per report section (`measures`: its report keys, `fingerprint`), `state`
(`totals`: the shared parts' fingerprint, the layers, the summed statistics) and the summary every
computation rewrites (`current.SUMMARY`, read with the sections by `current.current`). The explorer's per-pair
values (`results.pair_results`' entries) are kept on each pair's state row (`AgreementPairState.entry`,
read by `pair_entries`): an update writes the entries of the pairs it changed, never the whole corpus's.
"""

from __future__ import annotations

import dataclasses
import gc
import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from annotator.agreement.current import INTERVALS, SUMMARY
from annotator.agreement.document import project_annotators
from annotator.agreement.machine_agreement import aligner_from_totals
from annotator.agreement.pairstate import (
    BY_PAIR,
    SectionTotals,
    all_contributions,
    build_totals,
    contributions,
    normalised,
    split_by_pair,
)
from annotator.agreement.results import (
    KAPPA_C,
    fingerprint,
    phenomenon_from_entry,
    report_section_names,
)
from annotator.models import (
    AgreementChange,
    AgreementPairState,
    AgreementSection,
    AlignmentSystem,
    ParaphraseType,
    Project,
)
from metrics.alignment import alignment_report_from_counts
from metrics.incremental import PhenomenaAgreement
from metrics.pair_labels import PairLabelCounts, pair_label_report_from_counts
from metrics.types import Options, Tagset, TypeDef

log = logging.getLogger(__name__)
STATE = "state"
#: The section row that held every pair's entry before they moved to `AgreementPairState.entry`: a state
#: stored with it is recomputed in full once (which stores the entries per pair and drops the row).
LEGACY_PAIRS = "pairs"


def take_changes(project_id: int) -> list[tuple[int, int | None]]:
    """(row id, pair pk or None) of the changes waiting for the project."""
    return list(AgreementChange.objects.filter(project_id=project_id).values_list("pk", "pair_id"))


def forget_changes(ids: list[int]) -> None:
    AgreementChange.objects.filter(pk__in=ids).delete()


def shared_key(project: Project, names: list[str]) -> dict[str, Any]:
    """What the stored state assumes about the project: annotators, tagset, layers (cheap queries)."""
    types: list[list[Any]] = []
    if project.tagset_id is not None:
        rows = ParaphraseType.objects.filter(tagset_id=project.tagset_id).order_by("position", "pk")
        types = [[n, s == ParaphraseType.ScopeSides.ONE] for n, s in rows.values_list("name", "scope_sides")]
    return {"annotators": names, "types": types, "layers": list(project.layers)}


# ---- phenomena: PhenomenaAgreement per project, rebuilt from the stored inputs when missing ----------


@dataclasses.dataclass
class _Phenomena:
    digest: str  # the phenomena digest (pairstate) `agreement` reflects
    pair_ids: tuple[str, ...]
    agreement: PhenomenaAgreement


_KEPT: OrderedDict[int, _Phenomena] = OrderedDict()
_KEPT_LOCK = threading.Lock()
KEPT_PROJECTS = 2


#: Kept statistics of at least this many pairs × annotators are frozen out of the cyclic collector.
SETTLE_CELLS = 50_000


def _settled(agreement: PhenomenaAgreement) -> None:
    """With large kept statistics (10⁵–10⁶ long-lived objects), collect once and freeze every object
    alive (`gc.freeze`), so that the cyclic collector stops traversing them during each later update (at
    50 annotators × 3,900 pairs it took 0.4 s of a 1.2 s update); unfreezing first lets the collection
    free what an earlier freeze held that is garbage now."""
    if len(agreement.pairs) * len(agreement.annotators) < SETTLE_CELLS:
        return
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def forget_kept() -> None:
    """Drop the phenomena statistics this process keeps (a restart; tests use it)."""
    with _KEPT_LOCK:
        _KEPT.clear()


def keep(project_id: int, agreement: PhenomenaAgreement, totals: SectionTotals) -> None:
    """Keep the full computation's phenomena statistics for the next incremental update (the caller
    hands it over: nobody else may change it)."""
    with _KEPT_LOCK:
        _KEPT[project_id] = _Phenomena(
            totals.digest("phenomena") + totals.digest("done"), tuple(agreement.pairs), agreement
        )
        while len(_KEPT) > KEPT_PROJECTS:
            _KEPT.popitem(last=False)
    _settled(agreement)


def _tagset(types: list[list[Any]]) -> Tagset:
    return Tagset(tuple(TypeDef(name, one_sided) for name, one_sided in types))


def _phenomena_of(inputs: Mapping[str, Any]) -> dict[str, list[Any]]:
    return {a: [phenomenon_from_entry(x) for x in xs] for a, xs in (inputs.get("phenomena") or {}).items()}


def _rebuilt(project_id: int, shared: Mapping[str, Any], participants: tuple[str, ...]) -> _Phenomena:
    """PhenomenaAgreement from every stored pair input (after a restart: no statistics in the process)."""
    rows = (
        AgreementPairState.objects.filter(project_id=project_id)
        .order_by("pair__position", "pair_id")
        .values_list("pair__source_id", "inputs")
    )
    pair_ids: list[str] = []
    by_annotator: dict[str, list[Any]] = {a: [] for a in participants}
    for pid, inputs in rows:
        pair_ids.append(pid)
        for a, xs in _phenomena_of(inputs).items():
            by_annotator.setdefault(a, []).extend(xs)
    agreement = PhenomenaAgreement(
        {a: by_annotator[a] for a in participants},
        annotators=participants,
        tagset=_tagset(shared["types"]),
        pairs=pair_ids,
    )
    return _Phenomena("", tuple(pair_ids), agreement)


# ---- the incremental update ---------------------------------------------------------------------------


@dataclasses.dataclass
class Update:
    """What `update` computed, for the caller to store as a snapshot."""

    digest: str
    measures: dict[str, dict[str, Any]]  # section → its report keys, for the sections computed again
    sections: dict[str, str]  # section → fingerprint (every section; the others keep their stored keys)
    pending: list[str]
    extras: dict[str, Any]
    write: Any  # callable: persist the state rows (inside the caller's transaction)


def updatable(project: Project) -> bool:
    """Whether the project's agreement can be updated from the per-pair state: not with phrase alignments
    (they depend on the trees) or registered systems, which only a full computation reads."""
    return not (project.layer_phrase_alignment or AlignmentSystem.objects.filter(project=project).exists())


def _full(project: Project, reason: str) -> Update | None:
    """None (only a full computation can tell), saying why in the log."""
    log.info("agreement of project %s: full computation (%s)", project.pk, reason)
    return None


def update(project: Project, changes: list[tuple[int, int | None]]) -> Update | None:
    """The agreement after `changes` (all naming a pair), from the stored state; None when only a full
    computation can tell (see the module docstring)."""
    if not changes or any(pk is None for _, pk in changes):
        return _full(project, "a change names no pair")
    if not updatable(project):
        return _full(project, "phrase alignments or registered systems")
    # the sections' measures are read only where needed: an update computes the sections it touches afresh
    rows = {
        r.name: r
        for r in AgreementSection.objects.filter(project=project)
        .exclude(name__in=(SUMMARY, INTERVALS))  # not report sections: the update leaves them alone
        .defer("measures")
    }
    state = rows.get(STATE)
    if state is None or LEGACY_PAIRS in rows:
        return _full(project, "no stored state")
    annotators = project_annotators(project)
    names = [name for _, name in annotators]
    shared = shared_key(project, names)
    if state.totals.get("shared") != shared:
        return _full(project, "the annotators, tagset or layers changed")
    pair_pks = sorted({pk for _, pk in changes if pk is not None})
    from annotator.agreement.document import pairs_document

    doc = pairs_document(project, dict(annotators), pair_pks)
    new_inputs = split_by_pair(doc, doc["done"])
    pairs_by_id = {p["id"]: p for p in doc["pairs"]}
    old_rows = {
        r.pair_id: r for r in AgreementPairState.objects.filter(project=project, pair_id__in=pair_pks)
    }
    if len(old_rows) != len(pairs_by_id):
        return _full(project, "a pair without state (added since the last full computation)")
    totals = SectionTotals(names, state.totals["totals"])
    before = totals.participants()
    match = state.totals["identical_match"]
    changed = _move_totals(totals, pairs_by_id, old_rows, new_inputs, names, match)
    if not changed:
        return Update("", {}, {}, [], {}, None)
    if totals.participants() != before or totals.sense_marks:
        return _full(project, "someone started a section" if not totals.sense_marks else "ETPC sense marks")
    touched = {
        s
        for s in (*BY_PAIR, "done")
        if totals.digest(s) != state.totals["totals"]["digests"].get(s, "0" * 64)
    }
    participants = totals.participants()
    sections = {name: r.fingerprint for name, r in rows.items() if name != STATE}
    digests = _section_fingerprints(state.totals["shared_fp"], totals)
    previous = {pid: row.entry for pid, (row, _, _) in changed.items()}
    entries = {
        pid: _pair_entry(inputs, names, pid, None, previous[pid]) for pid, (_, inputs, _) in changed.items()
    }
    new_people = any(entries[pid]["annotators"] != previous[pid].get("annotators") for pid in changed)
    agreement: PhenomenaAgreement | None = None
    if "phenomena" in sections and ("phenomena" in touched or new_people):
        agreement = _phenomena_update(project.pk, state, totals, participants["phenomena"], changed)
    measures, pending = _touched_measures(sections, touched, totals, participants, agreement)
    label_measures = measures.get("pair_labels")
    if label_measures is None and "pair_labels" in sections:
        label_measures = rows["pair_labels"].measures  # small: read for the label summary
    sections = {name: digests.get(name, fingerprint) for name, fingerprint in sections.items()}
    if agreement is not None:
        for pid, (_, inputs, _) in changed.items():
            entries[pid] = _pair_entry(inputs, names, pid, agreement, previous[pid])
    extras = _extras(project, names, participants, totals, label_measures)
    extras["kappa_c_work"] = _kappa_c_work(totals, changed, old_rows, pairs_by_id, names)
    digest = state_fingerprint(state.totals["shared_fp"], totals)

    def write() -> None:
        for pid, (row, inputs, contrib) in changed.items():
            row.inputs, row.contributions, row.entry = inputs, contrib, entries[pid]
            row.save(update_fields=["inputs", "contributions", "entry"])
        _write_sections(rows, measures, sections)
        state.totals = {**state.totals, "totals": totals.as_json()}
        state.fingerprint = digest
        state.save(update_fields=["totals", "fingerprint", "updated_at"])

    return Update(digest, measures, sections, pending, extras, write)


def _extras(
    project: Project,
    names: list[str],
    participants: dict[str, Any],
    totals: SectionTotals,
    label_measures: dict[str, Any] | None,
) -> dict[str, Any]:
    """The summary's annotators, pair-label summary and humans against the aligner."""
    return {
        "annotators": names,
        "pair_labels": _label_summary(participants["pair_labels"], totals, label_measures)
        if project.layer_pair_label
        else None,
        "machine": {
            "aligner": aligner_from_totals(totals.machine, list(participants["word_alignments"])),
            "systems": [],
        }
        if project.layer_word_alignment
        else {},
    }


def _move_totals(
    totals: SectionTotals,
    pairs_by_id: dict[str, dict[str, Any]],
    old_rows: dict[int, AgreementPairState],
    new_inputs: dict[str, dict[str, Any]],
    names: list[str],
    match: Any,
) -> dict[str, tuple[Any, dict[str, Any], dict[str, Any]]]:
    """Move the totals by each changed pair's difference; pid → (its state row, new inputs, new
    contributions) of the pairs whose inputs changed."""
    changed: dict[str, tuple[Any, dict[str, Any], dict[str, Any]]] = {}
    for pid, pair in pairs_by_id.items():
        row = old_rows[pair["pk"]]
        old = normalised(row.inputs, names)
        new = new_inputs[pid]
        if old == new:
            continue
        if old.get("word_alignments") == new.get("word_alignments") and "kappa_c" in row.contributions:
            # what the pair adds reads its word alignments only (its tokens change only by a full
            # computation): a phenomenon, label or "done" change keeps it
            contrib = row.contributions
        else:
            contrib = contributions(pair, new, identical_match=match)
        totals.add(pid, old, row.contributions, -1)
        totals.add(pid, new, contrib)
        changed[pid] = (row, new, contrib)
    return changed


def _touched_measures(
    sections: dict[str, str],
    touched: set[str],
    totals: SectionTotals,
    participants: dict[str, Any],
    agreement: PhenomenaAgreement | None,
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The measures of the report sections the change touched, from the moved totals, and the
    sections left pending (κ_C, run by the caller)."""
    measures: dict[str, dict[str, Any]] = {}
    pending: list[str] = []
    if agreement is not None and "phenomena" in touched:
        measures["phenomena"] = agreement.report()  # plain JSON values (metrics' report contract)
    if "word_alignments" in sections and "word_alignments" in touched:
        measures["word_alignments"] = alignment_report_from_counts(
            totals.alignment_counts(), participants["word_alignments"]
        )
        pending.append(KAPPA_C)  # κ_C reads the word alignments: the caller runs it (opaque section)
    if "pair_labels" in sections and "pair_labels" in touched:
        counts = PairLabelCounts.from_json(participants["pair_labels"], totals.labels.as_json())
        measures["pair_labels"] = pair_label_report_from_counts(counts)
    return measures, pending


def _write_sections(
    rows: dict[str, Any], measures: dict[str, dict[str, Any]], sections: dict[str, str]
) -> None:
    """Rewrite the sections with new measures, and the fingerprints of the others that moved."""
    for name, r in rows.items():
        if name in measures:
            r.measures, r.fingerprint = measures[name], sections[name]
            r.save(update_fields=["measures", "fingerprint", "updated_at"])
        elif name != STATE and r.fingerprint != sections[name]:  # e.g. κ_C, computed after this
            r.fingerprint = sections[name]
            r.save(update_fields=["fingerprint", "updated_at"])


def _phenomena_update(
    project_id: int,
    state: AgreementSection,
    totals: SectionTotals,
    participants: tuple[str, ...],
    changed: Mapping[str, tuple[Any, dict[str, Any], dict[str, Any]]],
) -> PhenomenaAgreement:
    old_digest = state.totals["totals"]["digests"].get("phenomena", "0" * 64) + state.totals["totals"][
        "digests"
    ].get("done", "0" * 64)
    with _KEPT_LOCK:
        kept = _KEPT.pop(project_id, None)
    if kept is None or kept.digest != old_digest or kept.agreement.annotators != participants:
        # Rebuilt from the stored inputs as they were before these changes, then updated like a kept one.
        kept = _rebuilt(project_id, state.totals["shared"], participants)
        _settled(kept.agreement)
    for pid, (_, inputs, _) in changed.items():
        kept.agreement.update_pair(pid, _phenomena_of(inputs))
    kept.digest = totals.digest("phenomena") + totals.digest("done")
    with _KEPT_LOCK:
        _KEPT[project_id] = kept
        while len(_KEPT) > KEPT_PROJECTS:
            _KEPT.popitem(last=False)
    return kept.agreement


def _pair_entry(
    inputs: Mapping[str, Any],
    names: list[str],
    pid: str,
    agreement: PhenomenaAgreement | None,
    previous: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The explorer's values of one pair (`results.pair_results`, computed for this pair only);
    `agreement` None: the pair's DO F1 is the `previous` entry's (same phenomena, same people)."""
    from annotator.agreement.results import pair_do_f1

    workers: set[str] = set()
    for section in BY_PAIR:
        workers |= set(inputs.get(section) or {})
    workers |= set(inputs.get("done") or [])
    who = [a for a in names if a in workers]
    labels = inputs.get("pair_labels") or {}
    given = {labels[a] for a in who if a in labels}
    do_f1 = previous.get("do_f1") if previous is not None else None
    if agreement is not None:
        do_f1 = pair_do_f1(agreement.tables, agreement.pairs.index(pid), who)
    return {"do_f1": do_f1, "label_disagreement": len(given) > 1, "annotators": who}


def _label_summary(
    names: tuple[str, ...], totals: SectionTotals, measures: Mapping[str, Any] | None
) -> dict[str, Any]:
    """`results.pair_label_agreement` from the totals (label counts kept per annotator)."""
    from annotator.agreement.results import pair_label_summary

    counts = {
        a: {
            "paraphrase": totals.label_counts.get(a, {}).get("paraphrase", 0),
            "non_paraphrase": totals.label_counts.get(a, {}).get("non_paraphrase", 0),
        }
        for a in names
    }
    return pair_label_summary(measures or {}, counts)


def _section_fingerprints(shared_fp: str, totals: SectionTotals) -> dict[str, str]:
    def of(*parts: str) -> str:
        return fingerprint([shared_fp, *parts])

    phenomena = totals.digest("phenomena") + totals.digest("done")
    words = totals.digest("word_alignments") + totals.digest("done")
    return {
        "phenomena": of("phenomena", phenomena),
        "word_alignments": of("word_alignments", words),
        KAPPA_C: of(KAPPA_C, words),
        "pair_labels": of("pair_labels", totals.digest("pair_labels")),
    }


def state_fingerprint(shared_fp: str, totals: SectionTotals) -> str:
    """The snapshot's fingerprint: the shared parts and every per-pair section's summed digest."""
    return fingerprint([shared_fp, *(totals.digest(s) for s in (*BY_PAIR, "done"))])


# ---- the full computation's state -----------------------------------------------------------------------


def full_state(
    project: Project, doc: Mapping[str, Any], done: Mapping[str, set[str]], outside: str
) -> tuple[str, str, dict[str, str], SectionTotals, Any]:
    """(snapshot fingerprint, shared parts' fingerprint, report sections' fingerprints, totals, writer of
    the whole state) of `doc`."""
    names = list(doc["annotators"])
    inputs = split_by_pair(doc, done)
    contrib = all_contributions(doc, inputs)
    totals = build_totals(names, inputs, contrib)
    shared = shared_key(project, names)
    shared_fp = _shared_fingerprint(shared, doc, outside)
    digest = state_fingerprint(shared_fp, totals)
    sections = _section_fingerprints(shared_fp, totals)
    for name in report_section_names(doc):
        if name not in sections:
            sections[name] = fingerprint([shared_fp, name, doc[name]])
    sections = {name: sections[name] for name in report_section_names(doc)}
    match = (doc.get("options") or {}).get("identical_match", "exact")

    def write(measures_by_section: Mapping[str, Mapping[str, Any]], pairs: Mapping[str, Any]) -> None:
        pks = dict(project.pairs.values_list("source_id", "pk"))
        AgreementPairState.objects.filter(project=project).delete()
        AgreementPairState.objects.bulk_create(
            (
                AgreementPairState(
                    project=project,
                    pair_id=pks[pid],
                    inputs=inputs[pid],
                    contributions=contrib.get(pid, {}),
                    entry=pairs.get(pid) or {},
                )
                for pid in inputs
            ),
            batch_size=2000,
        )
        AgreementSection.objects.filter(project=project).exclude(name=SUMMARY).delete()
        rows = [
            AgreementSection(
                project=project, name=name, fingerprint=fp, measures=dict(measures_by_section[name])
            )
            for name, fp in _all_sections(sections, measures_by_section).items()
        ]
        rows.append(
            AgreementSection(
                project=project,
                name=STATE,
                fingerprint=digest,
                totals={
                    "shared": shared,
                    "shared_fp": shared_fp,
                    "identical_match": match,
                    "totals": totals.as_json(),
                },
            )
        )
        AgreementSection.objects.bulk_create(rows)
        with _KEPT_LOCK:
            _KEPT.pop(project.pk, None)

    return digest, shared_fp, sections, totals, write


def _all_sections(
    sections: Mapping[str, str], measures_by_section: Mapping[str, Mapping[str, Any]]
) -> dict[str, str]:
    return {name: sections.get(name, fingerprint([name, dict(m)])) for name, m in measures_by_section.items()}


def _shared_fingerprint(shared: Mapping[str, Any], doc: Mapping[str, Any], outside: str) -> str:
    """The parts every section reads (annotators, tagset, layers, options, pairs), the sections that are
    not kept per pair (evaluations, phrase alignments, systems' phrase alignments) and `outside`."""
    whole = {k: doc[k] for k in ("evaluations", "phrase_alignments", "system_phrase_alignments") if k in doc}
    return fingerprint([shared, doc.get("options"), doc["pairs"], whole, outside])


def snapshot_fingerprint(
    project: Project, doc: Mapping[str, Any], done: Mapping[str, set[str]], outside: str
) -> str:
    """The fingerprint a snapshot of `doc` is stored under (`full_state`'s, without the counts)."""
    names = list(doc["annotators"])
    totals = build_totals(names, split_by_pair(doc, done), {})
    return state_fingerprint(_shared_fingerprint(shared_key(project, names), doc, outside), totals)


def _kappa_c_work(
    totals: SectionTotals,
    changed: Mapping[str, tuple[Any, dict[str, Any], dict[str, Any]]],
    old_rows: Mapping[int, AgreementPairState],
    pairs_by_id: Mapping[str, Mapping[str, Any]],
    names: list[str],
) -> int:
    """κ_C's Monte Carlo work after these changes (`metrics.chance.kappa_c_work` with the worker's memo):
    the items of every annotator pair with a member whose word alignments changed × samples."""
    who: set[str] = set()
    for pid, (_, new, _) in changed.items():
        old = normalised(old_rows[pairs_by_id[pid]["pk"]].inputs, names).get("word_alignments") or {}
        mine = new.get("word_alignments") or {}
        who |= {a for a in old.keys() | mine.keys() if old.get(a) != mine.get(a)}
    items = sum(n for key, n in totals.items.items() if set(key.split("|", 1)) & who)
    return items * Options().mc_samples


def in_transaction(write: Any, *args: Any) -> None:
    with transaction.atomic():
        write(*args)
