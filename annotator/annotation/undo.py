"""Undo an annotator's last saves on a pair by applying the inverse changes through the services.

Every save writes history rows that share a `batch` (the sheet version the save produced). Undo finds
the newest batch that is neither an undo itself nor already undone, and replays its rows backwards as
ordinary service calls (`annotator.annotation.services`), so the undo is version-checked, written to
history and followed by a recompute like any other change. The rows an undo writes carry
`reverts = <the batch undone>`; pressing undo again therefore steps further back instead of redoing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.annotation import services as annotation_services
from annotator.models import AnnotationHistory, Pair, Phenomenon, PhraseAlignment

PHENOMENON_KEYS = ("scope1", "scope2", "projection", "key1", "key2", "sense_preserving", "comment")


@dataclass(frozen=True)
class Undone:
    batch: int
    description: str
    version: int


def _history(pair: Pair, annotator: Any) -> Any:
    return AnnotationHistory.objects.filter(pair=pair, owner=annotator, batch__isnull=False)


def undoable_batch(pair: Pair, annotator: Any) -> int | None:
    """The newest batch of the annotator's saves on the pair that can still be undone."""
    undone: set[int] = set()
    rows = _history(pair, annotator).order_by("-batch").values_list("batch", "reverts").distinct()
    for batch, reverts in rows:
        if reverts is not None:
            undone.add(reverts)
        elif batch not in undone:
            return batch
    return None


def describe(rows: list[AnnotationHistory]) -> str:
    """A short phrase for what a batch did, e.g. "2 new links" or "the pair label change"."""
    first = rows[0]
    n = len(rows)
    if first.model == "pairlabel":
        return "the comment edit" if "comment" in (first.after or {}) else "the pair label change"
    noun = {"phenomenon": "phenomenon", "alignmentlink": "link", "phrasealignment": "phrase alignment"}.get(
        first.model, first.model
    )
    plural = noun if n == 1 else ("phenomena" if noun == "phenomenon" else f"{noun}s")
    count = "" if n == 1 else f"{n} "
    verb = {"create": "new", "update": "changed", "delete": "removed"}[first.action]
    return f"{count}{verb} {plural}" if n > 1 else f"the {verb} {noun}"


def _phenomenon_now(pair: Pair, annotator: Any, object_id: int) -> Phenomenon | None:
    """The phenomenon a history row meant, following re-creations by earlier undos of its deletion."""
    seen: set[int] = set()
    while object_id not in seen:
        seen.add(object_id)
        found = Phenomenon.objects.filter(pk=object_id, pair=pair, annotator=annotator, is_gold=False).first()
        if found is not None:
            return found
        deleted_in = (
            _history(pair, annotator)
            .filter(model="phenomenon", object_id=object_id, action="delete")
            .values_list("batch", flat=True)
            .last()
        )
        recreated = (
            _history(pair, annotator)
            .filter(model="phenomenon", action="create", reverts=deleted_in)
            .order_by("-id")
            .first()
        )
        if deleted_in is None or recreated is None:
            return None
        object_id = recreated.object_id
    return None


class _Replay:
    """Applies inverse changes one service call at a time, threading the sheet version through."""

    def __init__(self, pair: Pair, annotator: Any, base_version: int | None) -> None:
        self.pair, self.annotator, self.version = pair, annotator, base_version
        self.batches: list[int] = []

    def _saved(self, version: int) -> None:
        self.version = version
        self.batches.append(version)

    def pairlabel(self, row: AnnotationHistory) -> None:
        before = row.before or {}
        if "label" in before:
            self._saved(
                annotation_services.set_pair_label(
                    self.pair, self.annotator, before["label"], base_version=self.version
                )
            )
        if "comment" in before:
            self._saved(
                annotation_services.set_comment(
                    self.pair, self.annotator, before["comment"], base_version=self.version
                )
            )

    def phenomenon(self, row: AnnotationHistory) -> None:
        if row.action == "delete":
            before = row.before or {}
            fields = {k: before.get(k) for k in PHENOMENON_KEYS}
            fields["comment"] = fields["comment"] or ""
            _, version = annotation_services.add_phenomenon(
                self.pair, self.annotator, before["ptype_id"], base_version=self.version, **fields
            )
            self._saved(version)
            return
        current = _phenomenon_now(self.pair, self.annotator, row.object_id)
        if current is None:
            return
        if row.action == "create":
            self._saved(annotation_services.delete_phenomenon(current, base_version=self.version))
        else:
            before = row.before or {}
            changes = {k: before.get(k) for k in PHENOMENON_KEYS}
            changes["comment"] = changes["comment"] or ""
            _, version = annotation_services.update_phenomenon(
                current, base_version=self.version, ptype=before["ptype_id"], **changes
            )
            self._saved(version)

    def links(self, rows: list[AnnotationHistory]) -> None:
        remove: list[tuple[int, int]] = []
        restore: dict[bool, list[tuple[int, int]]] = defaultdict(list)
        for row in rows:
            state = row.before if row.action != "create" else row.after
            link = (state["i"], state["j"])
            if row.action == "create":
                remove.append(link)
            else:
                restore[bool(state["sure"])].append(link)
        if remove:
            self._saved(
                annotation_services.remove_links(self.pair, self.annotator, remove, base_version=self.version)
            )
        for sure, block in restore.items():
            self._saved(
                annotation_services.set_links(
                    self.pair, self.annotator, block, sure=sure, base_version=self.version
                )
            )

    def phrasealignment(self, row: AnnotationHistory) -> None:
        state = (row.after if row.action == "create" else row.before) or {}
        if row.action == "create":
            alignment = PhraseAlignment.objects.filter(
                pair=self.pair,
                annotator=self.annotator,
                is_gold=False,
                node1=state["node1"],
                node2=state["node2"],
            ).first()
            if alignment is not None:
                self._saved(annotation_services.remove_phrase_alignment(alignment, base_version=self.version))
            return
        _, version = annotation_services.add_phrase_alignment(
            self.pair,
            self.annotator,
            state["node1"],
            state["node2"],
            sure=bool(state["sure"]),
            base_version=self.version,
        )
        self._saved(version)


@transaction.atomic
def undo_last(pair: Pair, annotator: Any, *, base_version: int | None) -> Undone:
    """Undo the annotator's newest not-yet-undone save on the pair. Raises ConflictError when stale."""
    batch = undoable_batch(pair, annotator)
    if batch is None:
        raise ValidationError({"undo": "Nothing to undo on this pair."})
    rows = list(_history(pair, annotator).filter(batch=batch).order_by("-id"))
    replay = _Replay(pair, annotator, base_version)
    link_rows = [row for row in rows if row.model == "alignmentlink"]
    if link_rows:
        replay.links(link_rows)
    for row in rows:
        handler = getattr(replay, row.model, None)
        if row.model != "alignmentlink" and handler is not None:
            handler(row)
    if not replay.batches:
        raise ValidationError({"undo": f"{describe(rows).capitalize()} can no longer be undone."})
    _history(pair, annotator).filter(batch__in=replay.batches).update(reverts=batch)
    return Undone(batch=batch, description=describe(rows), version=replay.version or 0)
