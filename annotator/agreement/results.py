"""From an interchange document to the report sections of the stored agreement (pure; no database).

`report_sections(doc, previous)` returns (report, section fingerprints, each section's report keys,
pending sections); the report is exactly what `python -m metrics report` prints for `doc`.

The report is assembled section by section: a section (phenomena, word alignments, κ_C, phrase
alignments, evaluations, pair labels — every top-level section of the document) whose inputs — the section itself plus annotators, options, tagset and
pairs — have the fingerprint stored in the previous snapshot is copied from it; the others are computed
with `metrics.report.build_report` on a document holding only that section (the phenomena section
includes ETPC's per-layer `iapta.sense.*` keys when a phenomenon is marked sense-preserving or not). The sections of the
report are independent of each other (each reads only its own section and the shared parts), so the
assembly equals `build_report` of the whole document; a test holds this against the CLI.

κ_C (spec §5.4) is a Monte Carlo estimate whose cost grows with pairs × samples; with
`defer_kappa_c=True` the word-alignment P/R/F1 is computed now and κ_C is carried over from the
previous snapshot and listed in `pending`, so the caller can store a provisional snapshot at once and
the exact one when κ_C is done.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Callable, Collection, Mapping
from typing import Any

import numpy as np

from metrics.alignment import alignment_report
from metrics.chance import kappa_c_report, kappa_c_work
from metrics.document import parse_document
from metrics.layers import sense_layer_report
from metrics.phenomena import PhenomenaAgreement, gc_paused
from metrics.report import build_report, report_confidence_intervals
from metrics.types import (
    Document,
    Evaluations,
    Judgement,
    Options,
    Pair,
    Phenomenon,
    PhraseAlignment,
    Tagset,
    TypeDef,
    WordAlignment,
)

INTERVALS = "intervals"  # the report section of the `<key>.ci95` entries (report_sections)


def canonical_json(value: Any) -> str:
    """The one serialisation used for fingerprints: sorted keys, no spaces, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def fingerprint(value: Any) -> str:
    """sha256 of the canonical JSON of `value`."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


SHARED = ("format", "annotators", "options", "tagset", "pairs")
#: κ_C is split from the rest of the word-alignment section because only it is expensive (spec §5.4).
KAPPA_C = "kappa_c"
#: The report sections whose keys the database keeps as sums (`annotator.agreement.sums`; every key but
#: the phenomena's sense layers, `iapta.sense.*`): a project's computation passes them as `kept` to
#: `report_sections`, which leaves them to those sums instead of computing them from the document.
KEPT_SECTIONS = ("pair_labels", "word_alignments", "phenomena", "phrase_alignments")


def report_section_names(doc: Mapping[str, Any]) -> list[str]:
    """The report's sections: every document section (also extensions such as `pair_labels`), with κ_C
    split from the word-alignment section."""
    names = [key for key in doc if key not in SHARED]
    if "word_alignments" in names:
        names.append(KAPPA_C)
    return names


def _source(name: str) -> str:
    return "word_alignments" if name == KAPPA_C else name


@dataclasses.dataclass(frozen=True)
class Fingerprints:
    """`fingerprint(doc)` (`document`), the shared parts' fingerprint and each report section's."""

    document: str
    shared: str
    sections: dict[str, str]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def document_fingerprints(doc: Mapping[str, Any]) -> Fingerprints:
    """The document's and its sections' fingerprints from one serialisation of each top-level value.

    Canonical JSON of an object is `{"key":value,…}` in sorted key order, so the text of the whole
    document and of each section's inputs `[shared, name, section]` are assembled from the same parts:
    the digests equal `fingerprint(doc)` and `fingerprint([fingerprint(shared parts), name, section])`
    (a test holds this) at the cost of one serialisation instead of three.
    """
    parts = {key: canonical_json(value) for key, value in doc.items()}

    def text_of(keys: Any) -> str:
        return "{" + ",".join(f"{canonical_json(k)}:{parts.get(k, 'null')}" for k in sorted(keys)) + "}"

    shared = _sha256(text_of(SHARED))
    prefix = canonical_json(shared)
    sections = {
        name: _sha256(f"[{prefix},{canonical_json(name)},{parts[_source(name)]}]")
        for name in report_section_names(doc)
    }
    return Fingerprints(_sha256(text_of(parts)), shared, sections)


def section_fingerprints(doc: Mapping[str, Any]) -> dict[str, str]:
    """Fingerprint of each report section's inputs (its document section plus the shared parts)."""
    return document_fingerprints(doc).sections


# ---- the document as metrics types, without re-validation ----------------------------------------

_DOCUMENT_SECTIONS = (
    "phenomena",
    "word_alignments",
    "phrase_alignments",
    "evaluations",
    "pair_labels",
)


def trusted_document(doc: Mapping[str, Any], *, sections: tuple[str, ...] | None = None) -> Document:
    """`metrics.types.Document` of a document that `annotator.agreement.project_document` built.

    Equals `metrics.document.parse_document(doc)` (a test holds this) without its validation, which costs
    more than the measures at MSRP-A scale: every value comes from rows the services validated. Only
    the `sections` given (default: all) are converted; the others are left out (None), as in a document
    without them. A document with keys this builder does not know goes through `parse_document`.
    """
    wanted = [s for s in (_DOCUMENT_SECTIONS if sections is None else sections) if s in doc]
    if not doc.keys() <= {*SHARED, *_DOCUMENT_SECTIONS} or doc.get("format") != "paraphrase-agreement/1":
        return parse_document({**{k: doc[k] for k in SHARED if k in doc}, **{s: doc[s] for s in wanted}})
    raw_options = doc.get("options") or {}
    defaults = Options()
    options = Options(
        raw_options.get("identical_match", defaults.identical_match),
        raw_options.get("mc_samples", defaults.mc_samples),
        raw_options.get("mc_seed", defaults.mc_seed),
        raw_options.get("reeval_seed", defaults.reeval_seed),
        float(raw_options.get("reeval_fraction", defaults.reeval_fraction)),
    )
    tagset = None
    if "tagset" in doc:
        tagset = Tagset(tuple(TypeDef(t["name"], t.get("one_sided", False)) for t in doc["tagset"]["types"]))
    converters: dict[str, Callable[[Any], Any]] = {
        "phenomena": _trusted_phenomena,
        "word_alignments": _trusted_word_alignments,
        "phrase_alignments": _trusted_phrase_alignments,
        "evaluations": _trusted_evaluations,
        "pair_labels": lambda raw: {a: dict(labels) for a, labels in raw.items()},
    }
    return Document(
        annotators=tuple(doc["annotators"]),
        options=options,
        tagset=tagset,
        pairs=tuple(trusted_pair(p) for p in doc.get("pairs", ())),
        **{name: converters[name](doc[name]) for name in wanted},
    )


def trusted_pair(p: Mapping[str, Any]) -> Pair:
    """`metrics.types.Pair` of a document pair entry (`trusted_document`'s, without validation)."""
    initial = p.get("initial_alignment")
    return Pair(
        p["id"],
        tuple(p["tokens1"]),
        tuple(p["tokens2"]),
        frozenset((i, j) for i, j in initial) if initial is not None else None,
    )


def _trusted_phenomena(raw: Mapping[str, list[dict[str, Any]]]) -> dict[str, tuple[Phenomenon, ...]]:
    return {a: tuple(_phenomenon(x) for x in xs) for a, xs in raw.items()}


def _trusted_word_alignments(raw: Mapping[str, Any]) -> dict[str, dict[str, WordAlignment]]:
    return {
        a: {
            pid: WordAlignment(
                frozenset((i, j) for i, j in entry.get("sure", ())),
                frozenset((i, j) for i, j in entry.get("possible", ())),
            )
            for pid, entry in entries.items()
        }
        for a, entries in raw.items()
    }


def _trusted_phrase_alignments(raw: Mapping[str, Any]) -> dict[str, tuple[PhraseAlignment, ...]]:
    def side(value: list[int] | None) -> frozenset[int] | None:
        return frozenset(value) if value is not None else None

    return {
        a: tuple(PhraseAlignment(x["pair"], side(x.get("s1")), side(x.get("s2")), x.get("label")) for x in xs)
        for a, xs in raw.items()
    }


def _trusted_evaluations(raw: Mapping[str, Any]) -> Evaluations:
    ratings = raw.get("ratings", [])
    raters = raw["raters"] if "raters" in raw else dict.fromkeys(x["rater"] for x in ratings)

    def judgements(xs: list[dict[str, Any]]) -> tuple[Judgement, ...]:
        return tuple(Judgement(x["item"], x["rater"], x.get("G"), x.get("M")) for x in xs)

    return Evaluations(tuple(raters), judgements(ratings), judgements(raw.get("revisions", [])))


# ---- phenomena ------------------------------------------------------------------------------------


def phenomena_agreement(doc: Mapping[str, Any]) -> PhenomenaAgreement:
    """The `PhenomenaAgreement` of `doc["phenomena"]` (every IAPTA key but the sense layers')."""
    document = trusted_document(doc, sections=("phenomena",))
    return PhenomenaAgreement(
        document.phenomena or {},
        annotators=document.annotators,
        tagset=document.tagset,
        pairs=[p.id for p in document.pairs],
    )


# ---- the report, section by section ----------------------------------------------------------------


def _only(document: Document, source: str) -> Document:
    fields = (*_DOCUMENT_SECTIONS, "system_phrase_alignments")
    cleared: dict[str, Any] = {f: None for f in fields if f != source}
    return dataclasses.replace(document, **cleared)


def _section_measures(
    name: str,
    doc: Mapping[str, Any],
    fingerprints: Fingerprints,
    documents: dict[str, Document],
    kappa_c_chance: Mapping[str, tuple[list[float], list[float]]] | None = None,
) -> dict[str, Any]:
    """The report keys of section `name`, as `build_report` of a document with only its source section
    gives them (the metrics call each section makes inside `build_report`, then the same JSON-safe copy)."""
    source = _source(name)
    if name == "phenomena":
        return {**json_safe(phenomena_agreement(doc).report()), **_sense_layers(doc, documents)}
    if source not in documents:
        documents[source] = trusted_document(doc, sections=(source,))
    document = documents[source]
    with gc_paused():
        if name == "word_alignments":
            return json_safe(alignment_report(document))
        if name == KAPPA_C:  # the parts the workers computed are what is reused (`kappa_c_chunks`)
            return json_safe(kappa_c_report(document, chance=kappa_c_chance))
        return _split(name, build_report(_only(document, source))["measures"])


def _sense_layers(doc: Mapping[str, Any], documents: dict[str, Document]) -> dict[str, Any]:
    """The phenomena section's sense-layer keys (`iapta.sense.*`; none without a sense mark)."""
    if not _any_sense_mark(doc["phenomena"]):
        return {}
    if "phenomena" not in documents:
        documents["phenomena"] = trusted_document(doc, sections=("phenomena",))
    return json_safe(sense_layer_report(documents["phenomena"]))


def _any_sense_mark(raw: Mapping[str, list[dict[str, Any]]]) -> bool:
    """True iff a phenomenon carries ETPC's sense-preserving mark: the report then has the per-layer
    `iapta.sense.*` keys (`metrics.layers`, docs/measures.md#sense-layers)."""
    return any(x.get("sense_preserving") is not None for xs in raw.values() for x in xs)


def kappa_c_pending_work(
    doc: Mapping[str, Any],
    fingerprints: Fingerprints,
    previous: Mapping[str, Any] | None = None,
    documents: dict[str, Document] | None = None,
) -> int:
    """Monte Carlo work (items × samples) a κ_C computation of `doc` would do now: none when the
    previous snapshot's κ_C section has the same inputs (it is copied), else its whole Monte Carlo
    (`metrics.chance.kappa_c_work`). `documents` (shared with
    `report_sections`) keeps the converted word-alignment section for the computation that follows."""
    if not doc.get("word_alignments"):
        return 0
    if _reusable(KAPPA_C, fingerprints.sections.get(KAPPA_C), previous or {}):
        return 0
    documents = documents if documents is not None else {}
    if "word_alignments" not in documents:
        documents["word_alignments"] = trusted_document(doc, sections=("word_alignments",))
    return kappa_c_work(documents["word_alignments"])


def _split(name: str, measures: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of report section `name` among the measures computed from its document section."""
    if name == "word_alignments":
        return {k: v for k, v in measures.items() if not k.startswith(KAPPA_C)}
    if name == KAPPA_C:
        return {k: v for k, v in measures.items() if k.startswith(KAPPA_C)}
    return dict(measures)


def report_sections(
    doc: Mapping[str, Any],
    previous: Mapping[str, Any] | None = None,
    *,
    defer_kappa_c: bool = False,
    fingerprints: Fingerprints | None = None,
    documents: dict[str, Document] | None = None,
    kappa_c_chance: Mapping[str, tuple[list[float], list[float]]] | None = None,
    intervals_seed: int | None = None,
    kept: Collection[str] = (),
) -> tuple[dict[str, Any], dict[str, str], dict[str, list[str]], list[str]]:
    """(report, section fingerprints, keys of each section, pending sections) of `doc`.

    `kept`: sections (of `KEPT_SECTIONS`) whose keys the caller reads from the sums the database keeps:
    they are listed with their fingerprint but not computed (of the phenomena section only the sense
    layers' keys are, the sums do not keep them).

    `intervals_seed` (the project's seed) asks for the 95 % interval of every measure (`<key>.ci95`,
    `metrics.report.report_confidence_intervals`), listed as the section `intervals`; they are added
    only when no section is pending (a provisional report has none).

    Sections whose fingerprint equals the one in `previous` (an earlier snapshot's results) are copied
    from it; `fingerprints` (of `doc`, from `document_fingerprints`) saves serialising it again. Raises
    `metrics.types.DocumentError` / `ValueError` for an invalid document (a bug in the document builder:
    the services validate every annotation). `kappa_c_chance` gives κ_C's Monte Carlo results computed
    in chunks by the workers (`annotator.agreement.kappa_c_chunks`; same report bit for bit).
    """
    fingerprints = fingerprints or document_fingerprints(doc)
    sections = fingerprints.sections
    previous = previous or {}
    old_keys = previous.get("section_keys", {})
    old_measures = previous.get("report", {}).get("measures", {})
    measures: dict[str, Any] = {}
    keys: dict[str, list[str]] = {}
    pending: list[str] = []
    documents = documents if documents is not None else {}  # section → its metrics Document, built once
    for name, digest in sections.items():
        if _reusable(name, digest, previous):
            part = {k: old_measures[k] for k in old_keys[name] if k in old_measures}
        elif name in kept:
            part = _sense_layers(doc, documents) if name == "phenomena" else {}
        elif name == KAPPA_C and defer_kappa_c:
            part = {k: old_measures[k] for k in old_keys.get(name, []) if k in old_measures}
            pending.append(name)
        else:
            part = _section_measures(name, doc, fingerprints, documents, kappa_c_chance)
        measures.update(part)
        keys[name] = sorted(part)
    if intervals_seed is not None and not pending:  # separate step: reads the assembled measures only
        intervals = report_confidence_intervals(trusted_document(doc), measures, seed=intervals_seed)
        measures.update(intervals)
        keys[INTERVALS] = sorted(intervals)
    report = {"format": "paraphrase-agreement-report/1", "measures": dict(sorted(measures.items()))}
    return report, sections, keys, pending


def _reusable(name: str, digest: str | None, previous: Mapping[str, Any]) -> bool:
    """Whether report section `name` can be copied from the `previous` snapshot's results: same inputs
    (fingerprint `digest`), stored complete (not pending) and with its keys listed."""
    return (
        previous.get("sections", {}).get(name) == digest
        and name not in previous.get("pending", [])
        and name in previous.get("section_keys", {})
    )


def json_safe(value: Any) -> Any:
    """Plain-Python, JSON-safe copy (numpy scalars converted; NaN/±inf → None), as `build_report` does.

    Exact-type checks first (a report of 50 annotators holds ~10⁵ values): plain dicts, floats, ints,
    strings and None take one dictionary lookup each; anything else goes through `_json_safe_other`.
    """
    kind = type(value)
    if kind is dict:
        return {k if type(k) is str else str(k): json_safe(v) for k, v in value.items()}
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is int or kind is str or kind is bool or value is None:
        return value
    return _json_safe_other(value)


def _json_safe_other(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    raise ValueError(f"value of type {type(value).__name__} is not JSON-serialisable")


# ---- phenomena as metrics types ---------------------------------------------------------------------


def _phenomenon(x: Mapping[str, Any]) -> Phenomenon:
    return Phenomenon(
        x["pair"],
        x["type"],
        frozenset(x["s1"]),
        frozenset(x["s2"]),
        x.get("projection"),
        frozenset(x.get("key1", ())),
        frozenset(x.get("key2", ())),
        x.get("sense_preserving"),
    )


# ---- pair labels (paraphrase / non-paraphrase) -----------------------------------------------------


def pair_label_agreement(doc: Mapping[str, Any], measures: Mapping[str, Any]) -> dict[str, Any] | None:
    """Pair-label agreement for the dashboard: Cohen's κ per annotator pair and Fleiss' κ as the metrics
    report gives them (`pair_labels.cohen`, `pair_labels.fleiss`; `metrics.pair_labels`), plus each
    annotator's label counts and the number of pairs labelled both ways. None without `pair_labels`."""
    labels: dict[str, dict[str, str]] | None = doc.get("pair_labels")
    if labels is None:
        return None
    names = [a for a in doc["annotators"] if a in labels]
    counts = {
        a: {
            "paraphrase": sum(1 for v in labels[a].values() if v == "paraphrase"),
            "non_paraphrase": sum(1 for v in labels[a].values() if v == "non_paraphrase"),
        }
        for a in names
    }
    return pair_label_summary(measures, counts)


def pair_label_summary(measures: Mapping[str, Any], counts: dict[str, dict[str, int]]) -> dict[str, Any]:
    """`pair_label_agreement` from the report keys and each annotator's label counts."""
    cohen = dict(measures.get("pair_labels.cohen") or {"value": None})
    cohen.setdefault("by_pair", {})
    cohen.setdefault("n_items", {})
    return {
        "cohen": cohen,
        "fleiss": measures.get("pair_labels.fleiss") or {"value": None, "n_items": 0},
        "disagreeing_pairs": (measures.get("pair_labels.disagreeing") or {}).get("value", 0),
        "counts": counts,
    }
