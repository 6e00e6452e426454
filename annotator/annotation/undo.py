"""Undo an annotator's last saves on a pair by applying the inverse changes through the services.

Every save writes history rows that share a `batch` (the sheet version the save produced). Undo finds
the newest batch that is neither an undo itself nor already undone, and replays its rows backwards as
ordinary service calls (`annotator.annotation.services`), so the undo is version-checked, written to
history and followed by a recompute like any other change. The rows an undo writes carry
`reverts = <the batch undone>`; pressing undo again therefore steps further back instead of redoing.

Redo undoes an undo: it replays the undo's rows backwards the same way, and the rows it writes carry
`reverts = <the undo's last batch>`. The history then reads as operations, newest first: a save
(`reverts` empty), an undo (reverts a save) or a redo (reverts an undo); an undo or redo may span
several consecutive batches, one per service call. An operation reverted by a later one no longer
counts. Undo takes the newest save still in effect; redo takes the newest undo still in effect, as long
as no new save came after it (a new save ends what can be redone, as in every editor).
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


@dataclass(frozen=True)
class _Operation:
    batches: tuple[int, ...]  # newest first
    reverts: int | None


def _operations(pair: Pair, annotator: Any) -> list[_Operation]:
    """The annotator's history on the pair as operations, newest first (consecutive batches that revert
    the same batch are one undo or one redo)."""
    rows = _history(pair, annotator).order_by("-batch").values_list("batch", "reverts").distinct()
    operations: list[_Operation] = []
    for batch, reverts in rows:
        last = operations[-1] if operations else None
        if last is not None and reverts is not None and last.reverts == reverts:
            operations[-1] = _Operation((*last.batches, batch), reverts)
        else:
            operations.append(_Operation((batch,), reverts))
    return operations


def _in_effect(pair: Pair, annotator: Any) -> list[tuple[_Operation, str]]:
    """Operations not reverted by a later one, newest first, each with its kind: save, undo or redo."""
    operations = _operations(pair, annotator)
    reverting = {batch: op.reverts for op in operations for batch in op.batches}
    reverted: set[int] = set()
    out = []
    for op in operations:
        if reverted.intersection(op.batches):
            continue
        if op.reverts is None:
            out.append((op, "save"))
            continue
        reverted.add(op.reverts)
        out.append((op, "redo" if reverting.get(op.reverts) is not None else "undo"))
    return out


def undoable_batch(pair: Pair, annotator: Any) -> int | None:
    """The newest batch of the annotator's saves on the pair that can still be undone."""
    return next((op.batches[0] for op, kind in _in_effect(pair, annotator) if kind == "save"), None)


def redoable(pair: Pair, annotator: Any) -> _Operation | None:
    """The newest undo still in effect with no save after it, or None."""
    for op, kind in _in_effect(pair, annotator):
        if kind == "save":
            return None
        if kind == "undo":
            return op
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
            fields: dict[str, Any] = {k: before.get(k) for k in PHENOMENON_KEYS}
            fields["comment"] = fields["comment"] or ""
            _, version = annotation_services.add_phenomenon(
                self.pair,
                self.annotator,
                before["ptype_id"],
                base_version=self.version,
                check_open=False,  # restoring what was there
                **fields,
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
                current,
                base_version=self.version,
                ptype=before["ptype_id"],
                check_open=False,  # restoring what was there
                **changes,
            )
            self._saved(version)

    def links(self, rows: list[AnnotationHistory]) -> None:
        remove: list[tuple[int, int]] = []
        restore: dict[bool, list[tuple[int, int]]] = defaultdict(list)
        for row in rows:
            state = row.before if row.action != "create" else row.after
            if state is None:  # pragma: no cover - a link's history row always holds the link
                raise ValueError(f"history row {row.pk} holds no link")
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


def _replay(pair: Pair, annotator: Any, base_version: int | None, rows: list[AnnotationHistory]) -> _Replay:
    """Apply the inverse of `rows` (newest first): the links as blocks, then the rest row by row."""
    replay = _Replay(pair, annotator, base_version)
    link_rows = [row for row in rows if row.model == "alignmentlink"]
    if link_rows:
        replay.links(link_rows)
    for row in rows:
        handler = getattr(replay, row.model, None)
        if row.model != "alignmentlink" and handler is not None:
            handler(row)
    return replay


@transaction.atomic
def undo_last(pair: Pair, annotator: Any, *, base_version: int | None) -> Undone:
    """Undo the annotator's newest not-yet-undone save on the pair. Raises ConflictError when stale."""
    batch = undoable_batch(pair, annotator)
    if batch is None:
        raise ValidationError({"undo": "Nothing to undo on this pair."})
    rows = list(_history(pair, annotator).filter(batch=batch).order_by("-id"))
    replay = _replay(pair, annotator, base_version, rows)
    if not replay.batches:
        raise ValidationError({"undo": f"{describe(rows).capitalize()} can no longer be undone."})
    _history(pair, annotator).filter(batch__in=replay.batches).update(reverts=batch)
    return Undone(batch=batch, description=describe(rows), version=replay.version or 0)


@transaction.atomic
def redo_last(pair: Pair, annotator: Any, *, base_version: int | None) -> Undone:
    """Redo the annotator's newest undo on the pair (if no save came after it). Raises ConflictError when
    stale. `Undone.batch` is the save that is back in effect, its description what that save did."""
    undo_op = redoable(pair, annotator)
    if undo_op is None:
        raise ValidationError({"undo": "Nothing to redo on this pair."})
    rows = list(_history(pair, annotator).filter(batch__in=undo_op.batches).order_by("-id"))
    original = list(_history(pair, annotator).filter(batch=undo_op.reverts).order_by("id"))
    description = describe(original) if original else describe(rows)
    replay = _replay(pair, annotator, base_version, rows)
    if not replay.batches:
        raise ValidationError({"undo": f"{description.capitalize()} can no longer be redone."})
    _history(pair, annotator).filter(batch__in=replay.batches).update(reverts=undo_op.batches[0])
    return Undone(batch=undo_op.reverts or 0, description=description, version=replay.version or 0)
