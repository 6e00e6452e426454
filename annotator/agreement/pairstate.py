"""The agreement state kept per pair and per section, so that a change to one pair costs one pair (pure).

A project's document (`annotator.agreement.document`) is split by pair (`split_by_pair`): for every pair
its phenomena, word alignments and pair labels by annotator, and who finished it (`done`). Each section
keeps, over all pairs (`SectionTotals`):

- a fingerprint that is a sum modulo 2²⁵⁶ of the pairs' digests (`pair_digest`), so replacing one
  pair's slice updates it without reading the others;
- per annotator, on how many pairs they appear (`present`): who takes part in a section is a
  project-wide fact, and a change in it needs a full computation;
- the sufficient statistics of the additive measures, all integer counts:
  word alignments — per annotator pair the `metrics.alignment.AlignmentCounts` of each measure summed over
  the pairs both aligned (`alignment_report_from_counts`); humans vs the automatic alignment — per
  annotator word and phrase counts and pairs compared (`annotator.agreement.machine_agreement`); pair labels
  — `metrics.pair_labels.PairLabelCounts` (confusion counts per annotator pair for Cohen's κ, the
  multiset of rating rows for Fleiss' κ, disagreeing pairs) and each annotator's label counts.

Phenomena (IAPTA) are not additive in this sense (pairwise means, per-type ratios); their statistics are
`metrics.incremental.PhenomenaAgreement`'s per-pair rows, rebuilt from the stored per-pair inputs when a
process has none and then updated pair by pair. κ_C is not additive either (its Monte Carlo depends on
every item of an annotator pair), but each pair keeps what κ_C reads of it (`kappa_c_part`: observed
concordances, edits against the initial alignment, shape), so that κ_C can be finished from the stored
parts without the document (`annotator.agreement.kappa_c_section`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from annotator.agreement.machine_agreement import pair_machine_counts
from annotator.agreement.results import canonical_json
from metrics.alignment import (
    AlignmentCounts,
    alignment_counts_by_pair,
    alignment_pair_counts,
    non_identical_atomic_pairs_many,
)
from metrics.chance import concordance_fraction
from metrics.pair_labels import PairLabelCounts
from metrics.types import Pair, WordAlignment

#: The document sections kept per pair; `done` (annotators who finished the pair) rides along.
BY_PAIR = ("phenomena", "word_alignments", "pair_labels")
_MOD = 1 << 256


def pair_digest(pair_id: str, section: str, value: Any) -> int:
    """The digest of one pair's slice of a section, as an integer (summed into the section's)."""
    return int(hashlib.sha256(canonical_json([pair_id, section, value]).encode()).hexdigest(), 16)


def split_by_pair(doc: Mapping[str, Any], done: Mapping[str, set[str]]) -> dict[str, dict[str, Any]]:
    """Pair id → `{section: {annotator: value}, "done": [annotators]}` (sections the pair has values in)."""
    order = doc["annotators"]
    out: dict[str, dict[str, Any]] = {p["id"]: {} for p in doc["pairs"]}
    for a, xs in (doc.get("phenomena") or {}).items():
        for x in xs:
            out[x["pair"]].setdefault("phenomena", {}).setdefault(a, []).append(x)
    for a, entries in (doc.get("word_alignments") or {}).items():
        for pid, entry in entries.items():
            out[pid].setdefault("word_alignments", {})[a] = entry
    for a, labels in (doc.get("pair_labels") or {}).items():
        for pid, label in labels.items():
            out[pid].setdefault("pair_labels", {})[a] = label
    for a in order:
        for pid in done.get(a, ()):
            if pid in out:
                out[pid].setdefault("done", []).append(a)
    return {pid: normalised(value, order) for pid, value in out.items()}


def normalised(inputs: Mapping[str, Any], order: Sequence[str]) -> dict[str, Any]:
    """`inputs` with annotators in document order (a JSON column may return keys in another order)."""
    out: dict[str, Any] = {}
    for section in BY_PAIR:
        given = inputs.get(section)
        if given:
            out[section] = {a: given[a] for a in order if a in given}
    if inputs.get("done"):
        out["done"] = [a for a in order if a in inputs["done"]]
    return out


def _word_alignment(entry: Mapping[str, Any]) -> WordAlignment:
    return WordAlignment(
        frozenset((i, j) for i, j in entry.get("sure", ())),
        frozenset((i, j) for i, j in entry.get("possible", ())),
    )


def _counts_json(counts: Mapping[tuple[str, str], Mapping[str, AlignmentCounts]]) -> dict[str, Any]:
    return {
        f"{a}|{b}": {
            name: [c.precision_hits, c.n_test, c.recall_hits, c.n_reference] for name, c in by.items()
        }
        for (a, b), by in counts.items()
    }


def kappa_c_part(
    pair: Mapping[str, Any], sheets: Mapping[str, Any], atomic: Mapping[str, set[Any]]
) -> dict[str, Any]:
    """What κ_C reads of one pair (spec §5.4), for the annotators with a word alignment of it (`sheets`,
    document order; none on a pair nobody aligned) and their non-identical atomic phrase pairs of the P
    level (`atomic`)::

        {"aligned": [annotators], "shape": [N, M], "initial": whether the pair has an initial alignment,
         "edits": {r: e_ri = |P_ri △ I|} (with an initial alignment),
         "conc": {"a|b": [hits, smaller]}}   conc(A, B) = hits / smaller (`concordance_fraction`)
    """
    names = list(sheets)
    n, m = len(pair["tokens1"]), len(pair["tokens2"])
    initial = pair.get("initial_alignment")
    part: dict[str, Any] = {"aligned": names, "shape": [n, m], "initial": initial is not None, "conc": {}}
    if initial is not None:
        cells = frozenset((i, j) for i, j in initial)
        part["edits"] = {a: len(_word_alignment(e).P ^ cells) for a, e in sheets.items()}
    for k, a in enumerate(names):
        for b in names[k + 1 :]:
            part["conc"][f"{a}|{b}"] = list(concordance_fraction(atomic[a], atomic[b]))
    return part


def _atomic_by_annotator(
    pairs: Sequence[Mapping[str, Any]], sheets: Sequence[Mapping[str, Any]], identical_match: str
) -> list[dict[str, set[Any]]]:
    """Per pair, each annotator's non-identical atomic phrase pairs of the P level, in one batch."""
    items, tokens, where = [], [], []
    for k, (pair, by) in enumerate(zip(pairs, sheets, strict=True)):
        shape = (len(pair["tokens1"]), len(pair["tokens2"]))
        for a, entry in by.items():
            items.append((_word_alignment(entry).P, *shape))
            tokens.append((pair["tokens1"], pair["tokens2"]))
            where.append((k, a))
    atomic = non_identical_atomic_pairs_many(items, tokens, identical_match=identical_match)
    out: list[dict[str, set[Any]]] = [{} for _ in pairs]
    for (k, a), found in zip(where, atomic, strict=True):
        out[k][a] = found
    return out


def contributions(
    pair: Mapping[str, Any], inputs: Mapping[str, Any], *, identical_match: str
) -> dict[str, Any]:
    """What the pair adds to the additive totals: word-alignment counts per annotator pair and, when the
    pair has an automatic alignment, each annotator's counts against it; and what κ_C reads of it."""
    out: dict[str, Any] = {}
    sheets = inputs.get("word_alignments") or {}
    atomic = _atomic_by_annotator([pair], [sheets], identical_match)[0] if sheets else {}
    out["kappa_c"] = kappa_c_part(pair, sheets, atomic)
    if len(sheets) >= 2:
        metrics_pair = Pair(pair["id"], tuple(pair["tokens1"]), tuple(pair["tokens2"]))
        out["word_alignments"] = _counts_json(
            alignment_pair_counts(
                metrics_pair,
                {a: _word_alignment(e) for a, e in sheets.items()},
                identical_match=identical_match,
            )
        )
    if sheets and pair.get("initial_alignment") is not None:
        out["machine"] = {
            a: pair_machine_counts(pair["initial_alignment"], e, pair["tokens1"], pair["tokens2"])
            for a, e in sheets.items()
        }
    return out


def all_contributions(
    doc: Mapping[str, Any], inputs: Mapping[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """`contributions` of every pair, the word-alignment counts and atomic phrase pairs prepared in one
    batch each (full computation)."""
    from annotator.agreement.results import trusted_document

    by_pair: dict[str, dict[tuple[str, str], dict[str, AlignmentCounts]]] = {}
    if doc.get("word_alignments"):
        by_pair = alignment_counts_by_pair(trusted_document(doc, sections=("word_alignments",)))
    aligned = [p for p in doc["pairs"] if inputs[p["id"]].get("word_alignments")]
    match = (doc.get("options") or {}).get("identical_match", "exact")
    atomic = _atomic_by_annotator(aligned, [inputs[p["id"]]["word_alignments"] for p in aligned], match)
    atomic_of = {p["id"]: found for p, found in zip(aligned, atomic, strict=True)}
    out: dict[str, dict[str, Any]] = {}
    for p in doc["pairs"]:
        pid = p["id"]
        entry: dict[str, Any] = {}
        entry["kappa_c"] = kappa_c_part(p, inputs[pid].get("word_alignments") or {}, atomic_of.get(pid, {}))
        if by_pair.get(pid):
            entry["word_alignments"] = _counts_json(by_pair[pid])
        sheets = inputs[pid].get("word_alignments") or {}
        if sheets and p.get("initial_alignment") is not None:
            entry["machine"] = {
                a: pair_machine_counts(p["initial_alignment"], e, p["tokens1"], p["tokens2"])
                for a, e in sheets.items()
            }
        out[pid] = entry
    return out


class SectionTotals:
    """The summed state of all pairs (see the module docstring); `add(pair id, inputs, contributions,
    sign)` adds one pair (sign 1) or takes it out (sign −1)."""

    def __init__(self, annotators: Sequence[str], value: Mapping[str, Any] | None = None) -> None:
        value = value or {}
        self.annotators = tuple(annotators)
        self.digests: dict[str, int] = {s: int(h, 16) for s, h in (value.get("digests") or {}).items()}
        self.present: dict[str, dict[str, int]] = {
            s: dict(v) for s, v in (value.get("present") or {}).items()
        }
        self.sense_marks = int(value.get("sense_marks", 0))
        self.alignment: dict[str, dict[str, list[int]]] = {
            k: {m: list(c) for m, c in v.items()} for k, v in (value.get("alignment") or {}).items()
        }
        self.items: dict[str, int] = dict(value.get("items") or {})  # pairs both aligned, per annotator pair
        self.machine: dict[str, list[int]] = {a: list(v) for a, v in (value.get("machine") or {}).items()}
        self.labels = PairLabelCounts.from_json(self.annotators, value.get("labels") or {})
        self.label_counts: dict[str, dict[str, int]] = {
            a: dict(v) for a, v in (value.get("label_counts") or {}).items()
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "digests": {s: format(h, "064x") for s, h in sorted(self.digests.items())},
            "present": self.present,
            "sense_marks": self.sense_marks,
            "alignment": self.alignment,
            "items": self.items,
            "machine": self.machine,
            "labels": self.labels.as_json(),
            "label_counts": self.label_counts,
        }

    def participants(self) -> dict[str, tuple[str, ...]]:
        """Per section, the annotators who take part (on ≥ 1 pair), in document order."""
        return {s: tuple(a for a in self.annotators if self.present.get(s, {}).get(a)) for s in BY_PAIR}

    def add(self, pid: str, inputs: Mapping[str, Any], contrib: Mapping[str, Any], sign: int = 1) -> None:
        for section in (*BY_PAIR, "done"):
            value = inputs.get(section)
            if value:
                digest = (self.digests.get(section, 0) + sign * pair_digest(pid, section, value)) % _MOD
                self.digests[section] = digest
        done = inputs.get("done") or []
        for section in BY_PAIR:
            given = inputs.get(section) or {}
            who = set(given) | (set(done) if section == "phenomena" else set())
            counts = self.present.setdefault(section, {})
            for a in who:
                counts[a] = counts.get(a, 0) + sign
                if not counts[a]:
                    del counts[a]
        for xs in (inputs.get("phenomena") or {}).values():
            self.sense_marks += sign * sum(1 for x in xs if x.get("sense_preserving") is not None)
        for key, by in (contrib.get("word_alignments") or {}).items():
            self.items[key] = self.items.get(key, 0) + sign
            if not self.items[key]:
                del self.items[key]
            cell = self.alignment.setdefault(key, {})
            for name, counts_ in by.items():
                old = cell.get(name, [0, 0, 0, 0])
                cell[name] = [x + sign * y for x, y in zip(old, counts_, strict=True)]
        for a, counts_ in (contrib.get("machine") or {}).items():
            old = self.machine.get(a, [0] * len(counts_))
            self.machine[a] = [x + sign * y for x, y in zip(old, counts_, strict=True)]
        labels = inputs.get("pair_labels") or {}
        if labels:
            self.labels.add(labels, sign)
            for a, label in labels.items():
                mine = self.label_counts.setdefault(a, {})
                mine[label] = mine.get(label, 0) + sign

    def digest(self, section: str) -> str:
        return format(self.digests.get(section, 0), "064x")

    def alignment_counts(self) -> dict[tuple[str, str], dict[str, AlignmentCounts]]:
        return {
            tuple(key.split("|", 1)): {name: AlignmentCounts(*c) for name, c in by.items()}  # type: ignore[misc]
            for key, by in self.alignment.items()
        }


def build_totals(
    annotators: Sequence[str],
    inputs: Mapping[str, Mapping[str, Any]],
    contrib: Mapping[str, Mapping[str, Any]],
) -> SectionTotals:
    totals = SectionTotals(annotators)
    for pid, value in inputs.items():
        totals.add(pid, value, contrib.get(pid, {}))
    return totals
