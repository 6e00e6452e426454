"""IAPTA agreement of a document's phenomena: :class:`PhenomenaAgreement`.

It builds, for every annotator pair, the per-(pair, type) sufficient statistics of
:mod:`metrics.iapta` and the per-pair rows of :mod:`metrics.multi`, and aggregates them into the
``iapta.*`` report keys; :meth:`PhenomenaAgreement.resampled` gives a bootstrap resample's measures
from the same tables (:mod:`metrics.intervals`). :func:`metrics.report.build_report` uses this class
for the ``iapta.*`` keys.

Example::

    state = PhenomenaAgreement(doc.phenomena, annotators=doc.annotators, tagset=doc.tagset,
                               pairs=[p.id for p in doc.pairs])
    entries = state.report()          # {"iapta.do.f1": {"value": …, "by_pair": {…}}, …}
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from metrics.alignment import mean_defined
from metrics.iapta import PairMeasures, PairTables, aggregate_many, index_phenomena, pair_tables
from metrics.multi import MultiTables, aggregate_multi, multi_tables
from metrics.types import Phenomenon, Tagset

__all__ = ["PhenomenaAgreement", "gc_paused", "multi_entries", "pair_entries"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large acyclic tables.

    Building the statistics allocates some 10⁵ small objects while the document itself holds
    10⁵–10⁶ more; each automatic collection would traverse all of them, which roughly doubles
    the run time. Reference counting still frees everything; the previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class PhenomenaAgreement:
    """All ``iapta.*`` measures of a document.

    ``phenomena`` maps annotator → phenomena; only ``annotators`` present in it take part, in
    ``annotators`` order (docs/measures.md#document). ``tagset`` must define every type; ``pairs`` lists every pair
    id (document order).
    """

    def __init__(
        self,
        phenomena: Mapping[str, Sequence[Phenomenon]],
        *,
        annotators: Sequence[str],
        tagset: Tagset | None,
        pairs: Sequence[str],
    ) -> None:
        with gc_paused():
            self._build(phenomena, annotators=annotators, tagset=tagset, pairs=pairs)

    def _build(
        self,
        phenomena: Mapping[str, Sequence[Phenomenon]],
        *,
        annotators: Sequence[str],
        tagset: Tagset | None,
        pairs: Sequence[str],
    ) -> None:
        self.annotators = tuple(a for a in annotators if a in phenomena)
        self.tagset = tagset if tagset is not None else Tagset(())
        self.pairs = tuple(pairs)
        self._pair_pos = {pid: p for p, pid in enumerate(self.pairs)}
        self._type_index = {t.name: i for i, t in enumerate(self.tagset.types)}
        self._counts = {a: len(phenomena[a]) for a in self.annotators}
        for a in self.annotators:
            unknown = {x.pair for x in phenomena[a]} - self._pair_pos.keys()
            if unknown:
                raise ValueError(f"phenomena[{a!r}]: unknown pair {sorted(unknown)[0]!r}")
        self._index = {a: index_phenomena(phenomena[a], self._type_index) for a in self.annotators}
        # Each annotator's phenomena per pair (their numbers per pair are what a resample counts).
        self._given: dict[str, dict[str, tuple[Phenomenon, ...]]] = {a: {} for a in self.annotators}
        for a in self.annotators:
            grouped: dict[str, list[Phenomenon]] = {}
            for x in phenomena[a]:
                grouped.setdefault(x.pair, []).append(x)
            self._given[a] = {pid: tuple(xs) for pid, xs in grouped.items()}
        self._pairs_of_annotators = [
            (self.annotators[i], self.annotators[j])
            for i in range(len(self.annotators))
            for j in range(i + 1, len(self.annotators))
        ]
        self._tables: dict[tuple[str, str], PairTables] = {
            (a, b): pair_tables(
                self._index[a],
                self._index[b],
                pairs=self.pairs,
                types=self.tagset.names,
                pair_positions=self._pair_pos,
            )
            for a, b in self._pairs_of_annotators
        }
        # aggregate() of each annotator pair, computed when the report is first asked for.
        self._measures: dict[tuple[str, str], PairMeasures] = {}
        self._multi: MultiTables | None = None
        if len(self.annotators) >= 3:
            indexes = [self._index[a] for a in self.annotators]
            self._multi = multi_tables(indexes, annotators=self.annotators, pairs=self.pairs)

    def resampled(self, drawn: npt.NDArray[np.int64]) -> PhenomenaAgreement:
        """The measures of the document made of the pairs ``drawn`` (indices into ``pairs``; a pair drawn
        k times counts k times, as the copy ``<id>\x1f<k>``), from the kept tables' rows instead of
        matching the phenomena again: a bootstrap resample in time linear in the pairs. Only
        :meth:`report` may be read from the result (it keeps no phenomena to update)."""
        out = object.__new__(PhenomenaAgreement)
        out.annotators, out.tagset = self.annotators, self.tagset
        out.pairs = tuple(f"{self.pairs[p]}\x1f{k}" for k, p in enumerate(drawn.tolist()))
        out._pair_pos = {pid: p for p, pid in enumerate(out.pairs)}
        out._type_index = self._type_index
        out._counts = {a: int(self._pair_counts(a)[drawn].sum()) for a in self.annotators}
        out._index, out._given = {}, {a: {} for a in self.annotators}
        out._pairs_of_annotators = self._pairs_of_annotators
        out._tables = {ab: t.resampled(drawn, out.pairs) for ab, t in self._tables.items()}
        out._measures = {}
        out._multi = None
        if self._multi is not None:
            out._multi = MultiTables(self._multi.annotators, out.pairs, self._multi.rows[drawn])
        return out

    def _pair_counts(self, a: str) -> npt.NDArray[np.int64]:
        """Annotator ``a``'s number of phenomena per pair (document order)."""
        given = self._given[a]
        return np.array([len(given.get(pid, ())) for pid in self.pairs], dtype=np.int64)

    @property
    def tables(self) -> dict[tuple[str, str], PairTables]:
        """The sufficient-statistics tables by annotator pair ``(a, b)`` (read-only use)."""
        return dict(self._tables)

    def report(self) -> dict[str, dict[str, Any]]:
        """The ``iapta.*`` entries of the report (docs/measures.md#report): plain dicts with str keys and
        int / float / None values (no numpy scalar, no NaN), stored as they are."""
        entries: dict[str, dict[str, Any]] = {"iapta.phenomena.count": {"by_annotator": dict(self._counts)}}
        stale = [ab for ab in self._pairs_of_annotators if ab not in self._measures]
        for ab, aggregated in zip(stale, aggregate_many([self._tables[ab] for ab in stale]), strict=True):
            self._measures[ab] = aggregated
        # in annotator-pair order: the means below must add up in the same order as a fresh build
        entries.update(pair_entries({(a, b): self._measures[a, b] for a, b in self._pairs_of_annotators}))
        entries.update(multi_entries(aggregate_multi(self._multi) if self._multi is not None else None))
        return dict(sorted(entries.items()))


def pair_entries(measures: Mapping[tuple[str, str], PairMeasures]) -> dict[str, dict[str, Any]]:
    """The ``iapta.*`` entries of the annotator pairs' measures: each value by annotator pair with its
    mean over the pairs where it is defined (summed in the mapping's order, which must be the
    annotator-pair order of the document), the per-type values and the directional ones."""
    entries: dict[str, dict[str, Any]] = {}
    for key in _VALUE_KEYS:
        by_pair = {f"{a}|{b}": m.values[key] for (a, b), m in measures.items()}
        entries[f"iapta.{key}"] = {"value": mean_defined(by_pair.values()), "by_pair": by_pair}
    for key in ("n.ph", "n.w", "do.f1"):
        entries[f"iapta.{key}.by_type"] = {
            "by_pair": {f"{a}|{b}": m.by_type[key] for (a, b), m in measures.items()}
        }
    for key in _DIRECTIONAL_KEYS:
        ordered: dict[str, Any] = {}
        for (a, b), m in measures.items():
            ordered[f"{a}>{b}"], ordered[f"{b}>{a}"] = m.directional[key]
        entries[f"iapta.{key}"] = {"by_ordered_pair": ordered}
    return entries


def multi_entries(
    multi: Mapping[str, tuple[float | None, float | None, dict[str, Any]]] | None,
) -> dict[str, dict[str, Any]]:
    """The TPO (union, gold) entries from `metrics.multi.aggregate_multi`'s result (None: fewer than
    three annotators take part, the entries are undefined)."""
    entries: dict[str, dict[str, Any]] = {}
    for crit in ("partial", "total"):
        union, gold, by_annotator = multi[crit] if multi is not None else (None, None, {})
        entries[f"iapta.tpo.{crit}.union"] = {"value": union}
        entries[f"iapta.tpo.{crit}.gold"] = {"value": gold, "by_annotator": by_annotator}
    return entries


_VALUE_KEYS = tuple(
    [f"n.{u}{v}" for u in ("ph", "w") for v in ("", ".typewise", ".pairwise", ".pairwise_typewise")]
    + [f"tpo.{c}.{f}" for c in ("partial", "total") for f in ("f1", "f1_alt")]
    + [f"do.f1{v}" for v in ("", ".typewise", ".pairwise", ".pairwise_typewise")]
)
_DIRECTIONAL_KEYS = (
    "do.k",
    "tpo.partial.count",
    "tpo.partial.f1_directional",
    "tpo.total.count",
    "tpo.total.f1_directional",
)
