"""Saving an annotator's work on a pair: pair label, comment, phenomena, alignment links, phrase alignments.

Every change runs in one transaction that (1) locks the annotator's sheet for the pair (`PairLabel`),
(2) checks the version the client based its change on, (3) applies the change, (4) writes history,
(5) increments the sheet version and (6) tells the recompute pipeline after commit. A stale version
raises `ConflictError` carrying the current version, never overwriting another tab's or device's work.
`base_version=None` skips the check (imports, scripted bulk loads).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotator.agreement import record_change
from annotator.annotation import history, recommender
from annotator.core import sql, validation
from annotator.models import (
    AlignmentLink,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
)

PHENOMENON_FIELDS = [
    "ptype_id",
    "scope1",
    "scope2",
    "projection",
    "key1",
    "key2",
    "sense_preserving",
    "comment",
]
LINK_FIELDS = ["i", "j", "sure"]
PHRASE_FIELDS = ["node1", "node2", "sure"]


# The sheet version the save in progress will produce: every history row of one save carries it as its
# `batch`, which is what lets the editor undo a whole save (e.g. a block of links) in one step.
_batch: ContextVar[int | None] = ContextVar("annotation_batch", default=None)


class ConflictError(Exception):
    """The change was based on an outdated version of the annotator's sheet for this pair."""

    def __init__(self, current_version: int, message: str | None = None) -> None:
        self.current_version = current_version
        super().__init__(
            message
            or "This pair was changed in another tab or device since you loaded it "
            f"(now at version {current_version}). Reload to see the latest state."
        )


def _locked_sheet(pair: Pair, annotator: Any, is_gold: bool, *, lock_pair: bool = False) -> PairLabel:
    """Lock the annotator's sheet of the pair and bump its version, in one UPDATE … RETURNING.

    The row lock is held until the transaction ends, so concurrent saves of the same sheet queue up
    here and each sees the version the previous one left. A sheet that does not exist yet is created
    (at version 1) first, in one statement (`annotator.core.sql.create_sheet`). Hand-written (`annotator.core.sql.bump_sheet`): every save runs it, and the
    ORM needs two statements for it. `lock_pair`: on PostgreSQL the same statement locks the pair's
    row first (a label save: its agreement sums read the other annotators' labels of the pair).
    """
    now = timezone.now()
    sheet = sql.bump_sheet(pair.pk, annotator.pk, is_gold, now, lock_pair=lock_pair)
    if sheet is None:
        sql.create_sheet(pair.pk, annotator.pk, is_gold, now)
        sheet = sql.bump_sheet(pair.pk, annotator.pk, is_gold, now, lock_pair=lock_pair)
    assert sheet is not None  # created just above, inside this transaction
    return sheet


def _begin(pair: Pair, annotator: Any, base_version: int | None, is_gold: bool) -> PairLabel:
    """Lock the sheet and check the client's version; the sheet comes back at its new version. A
    non-gold save locks the pair's row first (PostgreSQL): the agreement sums it moves read the other
    annotators' work on the pair, and every save takes the pair's lock before the sheet's."""
    sheet = _locked_sheet(pair, annotator, is_gold, lock_pair=not is_gold)
    current = sheet.version - 1
    if base_version is not None and base_version != current:
        raise ConflictError(current)  # the transaction rolls back, bump included
    _batch.set(sheet.version)
    if not is_gold:
        _start_assignment(pair, annotator)
    return sheet


def _start_assignment(pair: Pair, annotator: Any) -> None:
    """The annotator saved work on the pair: their current assignment (latest round) moves from to do
    (or postponed) to in progress. This is the only way a pair becomes in progress — opening, paging
    past or postponing a pair writes nothing (`worklist`)."""
    sql.start_assignment(pair.pk, annotator.pk, timezone.now())


def _finish(
    sheet: PairLabel,
    pair: Pair,
    *changed: str,
    label_before: str | None = None,
    aligned: bool = False,
    phenomena: bool = False,
    phrases: bool = False,
) -> int:
    """Save any of the sheet's own fields the change set (its version was bumped by `_begin`) and record
    the change for the agreement (`label_before`: the annotator's label before a label save; `aligned`:
    the save changed the sheet's word alignment; `phenomena`: the save changed the sheet's phenomena;
    `phrases`: the save changed the sheet's phrase alignments)."""
    if changed:
        sheet.save(update_fields=["updated_at", *changed])
    label_of = (
        None if label_before is None or sheet.is_gold else (sheet.annotator_id, label_before, sheet.label)
    )
    record_change(
        pair.project_id,
        pair.pk,
        label_of=label_of,
        aligned_by=sheet.annotator_id if aligned and not sheet.is_gold else None,
        phenomena_of=sheet.annotator_id if phenomena and not sheet.is_gold else None,
        phrases=phrases and not sheet.is_gold,
    )
    return sheet.version


def _record(pair: Pair, obj: Any, action: str, actor: Any, owner_id: int, before: Any, after: Any) -> None:
    history.record(
        project_id=pair.project_id,
        pair_id=pair.pk,
        obj=obj,
        action=action,
        actor=actor,
        owner_id=owner_id,
        before=before,
        after=after,
        batch=_batch.get(),
    )


def sheet_version(pair: Pair, annotator: Any, *, is_gold: bool = False) -> int:
    """The current version of the annotator's sheet (0 when nothing has been saved yet)."""
    sheet = PairLabel.objects.filter(pair=pair, annotator=annotator, is_gold=is_gold).only("version").first()
    return sheet.version if sheet else 0


def _normalise_base(base_version: int | None) -> int | None:
    # A client that loaded an empty sheet saw version 0; the sheet row is created at version 1.
    return 1 if base_version == 0 else base_version


@transaction.atomic
def set_pair_label(
    pair: Pair,
    annotator: Any,
    label: str,
    *,
    base_version: int | None,
    actor: Any = None,
    is_gold: bool = False,
) -> int:
    """Set the pair-level decision (paraphrase / non-paraphrase, or "" to clear). Returns the new version."""
    return _set_label(pair, annotator, label, base_version, actor, is_gold).version


@transaction.atomic
def set_comment(
    pair: Pair,
    annotator: Any,
    comment: str,
    *,
    base_version: int | None,
    actor: Any = None,
    is_gold: bool = False,
) -> int:
    """Set the annotator's per-pair comment. Returns the new version."""
    return _set_comment(pair, annotator, comment, base_version, actor, is_gold).version


@transaction.atomic
def set_sheet_fields(
    pair: Pair,
    annotator: Any,
    *,
    base_version: int | None,
    label: str | None = None,
    comment: str | None = None,
) -> PairLabel:
    """Set the annotator's label of the pair, their comment, or both (None: left as it is), in one
    transaction: each change is a version of its own, the comment's checked against the label's.
    Returns the sheet as saved, its version the new one (the API's answer, without reading it again)."""
    if label is None and comment is None:  # the API's serializer refuses such a request with a 400
        raise ValueError("set_sheet_fields: give a label, a comment or both")
    sheet = None
    if label is not None:
        sheet = _set_label(pair, annotator, label, base_version, None, False)
        base_version = sheet.version
    if comment is not None:
        sheet = _set_comment(pair, annotator, comment, base_version, None, False)
    assert sheet is not None  # one of the two was set just above
    return sheet


def _set_label(
    pair: Pair, annotator: Any, label: str, base_version: int | None, actor: Any, is_gold: bool
) -> PairLabel:
    if label not in ("", *PairLabel.Label.values):
        raise ValidationError({"label": f"Label must be paraphrase or non_paraphrase, not {label!r}."})
    sheet = _begin(pair, annotator, _normalise_base(base_version), is_gold)
    before = {"label": sheet.label}
    sheet.label = label
    _record(pair, sheet, "update", actor or annotator, annotator.pk, before, {"label": label})
    changed = before["label"] if before["label"] != label else None  # the same label again: no sums move
    _finish(sheet, pair, "label", label_before=changed)
    return sheet


def _set_comment(
    pair: Pair, annotator: Any, comment: str, base_version: int | None, actor: Any, is_gold: bool
) -> PairLabel:
    sheet = _begin(pair, annotator, _normalise_base(base_version), is_gold)
    before = {"comment": sheet.comment}
    sheet.comment = comment[:10000]
    _record(pair, sheet, "update", actor or annotator, annotator.pk, before, {"comment": sheet.comment})
    _finish(sheet, pair, "comment")
    return sheet


def phenomena_open(project: Project, label: str) -> bool:
    """Whether phenomena may be annotated on a sheet with this pair label: the project annotates
    phenomena, and a paraphrases-only project types a pair once it is labelled paraphrase (Vila et al.)."""
    if not project.layer_phenomena:
        return False
    if label_gates_phenomena(project):
        return label == PairLabel.Label.PARAPHRASE
    return True


def label_gates_phenomena(project: Project) -> bool:
    """Whether the pair label decides if phenomena may be annotated (a paraphrases-only project)."""
    return project.layer_phenomena and project.phenomena_for == Project.PhenomenaFor.PARAPHRASES


def _check_phenomena_layer(project: Project) -> None:
    if not project.layer_phenomena:
        raise ValidationError({"ptype": "This project does not annotate phenomena."})


def _check_phenomena_open(project: Project, sheet: PairLabel) -> None:
    """Adding or changing a phenomenon on an annotator's sheet: the editor's and the API's rule."""
    _check_phenomena_layer(project)
    if not phenomena_open(project, sheet.label):
        raise ValidationError(
            {"ptype": "This project types paraphrases only: label the pair paraphrase first."}
        )


def _begin_phenomena(
    pair: Pair, annotator: Any, base_version: int | None, is_gold: bool, check_open: bool
) -> PairLabel:
    """The sheet a phenomenon is added to or changed on (`_begin`). On an annotator's sheet, unless
    `check_open=False`, the project must annotate phenomena (checked before the sheet's version) and the
    sheet's label must open them (`phenomena_open`)."""
    rule = check_open and not is_gold
    if rule:
        _check_phenomena_layer(pair.project)
    sheet = _begin(pair, annotator, _normalise_base(base_version), is_gold)
    if rule:
        _check_phenomena_open(pair.project, sheet)
    return sheet


def _ptype_for(pair: Pair, ptype: ParaphraseType | int) -> ParaphraseType:
    ptype_id = ptype.pk if isinstance(ptype, ParaphraseType) else ptype
    try:
        number = int(ptype_id)
    except (TypeError, ValueError):
        number = 0
    try:
        tagset_id = pair.project.tagset_id
        if tagset_id is None or not 0 < number < 2**63:  # no tagset, or beyond bigint: no such row
            raise ParaphraseType.DoesNotExist
        return ParaphraseType.objects.get(pk=number, tagset_id=tagset_id)
    except ParaphraseType.DoesNotExist:
        raise ValidationError({"ptype": f"Type {ptype_id!r} is not in this project's tagset."}) from None


@transaction.atomic
def add_phenomenon(
    pair: Pair,
    annotator: Any,
    ptype: ParaphraseType | int,
    *,
    scope1: Sequence[int],
    scope2: Sequence[int],
    projection: str | None = None,
    key1: Sequence[int] = (),
    key2: Sequence[int] = (),
    sense_preserving: bool | None = None,
    comment: str = "",
    base_version: int | None,
    actor: Any = None,
    is_gold: bool = False,
    check_open: bool = True,
) -> tuple[Phenomenon, int]:
    """Validate and store a phenomenon. Returns it with the new sheet version.

    On an annotator's sheet the project must annotate phenomena and, if it types paraphrases only,
    the sheet's label must be paraphrase (`phenomena_open`); `check_open=False` skips that for
    restoring an earlier state (undo) and scripted loads of work done elsewhere.
    `sense_preserving` is ETPC's layer mark: True (+), False (−) or None (not marked).
    """
    sheet = _begin_phenomena(pair, annotator, base_version, is_gold, check_open)
    ptype = _ptype_for(pair, ptype)
    clean = validation.phenomenon_fields(
        ptype,
        pair.tokens1,
        pair.tokens2,
        scope1=scope1,
        scope2=scope2,
        projection=projection,
        key1=key1,
        key2=key2,
    )
    phenomenon = Phenomenon.objects.create(
        pair=pair,
        annotator=annotator,
        is_gold=is_gold,
        ptype=ptype,
        comment=comment,
        sense_preserving=_sense(sense_preserving),
        **clean,
    )
    _record(
        pair,
        phenomenon,
        "create",
        actor or annotator,
        annotator.pk,
        None,
        history.snapshot(phenomenon, PHENOMENON_FIELDS),
    )
    project_id = pair.project_id
    transaction.on_commit(lambda: recommender.maybe_retrain(project_id))  # "every N new pairs"
    return phenomenon, _finish(sheet, pair, phenomena=True)


@transaction.atomic
def update_phenomenon(
    phenomenon: Phenomenon,
    *,
    base_version: int | None,
    actor: Any = None,
    check_open: bool = True,
    **changes: Any,
) -> tuple[Phenomenon, int]:
    """Change a phenomenon's type, scopes, projection, keys, sense-preserving mark or comment
    (validated as a whole).

    The rule of `add_phenomenon` holds on an annotator's sheet (unless `check_open=False`)."""
    pair = phenomenon.pair
    sheet = _begin_phenomena(pair, phenomenon.annotator, base_version, phenomenon.is_gold, check_open)
    ptype = _ptype_for(pair, changes.pop("ptype", phenomenon.ptype_id))
    merged = {
        name: changes.get(name, getattr(phenomenon, name))
        for name in ("scope1", "scope2", "projection", "key1", "key2")
    }
    clean = validation.phenomenon_fields(ptype, pair.tokens1, pair.tokens2, **merged)
    phenomenon = Phenomenon.objects.select_for_update().get(pk=phenomenon.pk)
    before = history.snapshot(phenomenon, PHENOMENON_FIELDS)
    for name, value in clean.items():
        setattr(phenomenon, name, value)
    phenomenon.ptype = ptype
    if "comment" in changes:
        phenomenon.comment = changes["comment"]
    if "sense_preserving" in changes:
        phenomenon.sense_preserving = _sense(changes["sense_preserving"])
    phenomenon.version += 1
    phenomenon.save()
    _record(
        pair,
        phenomenon,
        "update",
        actor or phenomenon.annotator,
        phenomenon.annotator_id,
        before,
        history.snapshot(phenomenon, PHENOMENON_FIELDS),
    )
    return phenomenon, _finish(sheet, pair, phenomena=True)


def _sense(value: Any) -> bool | None:
    """The sense-preserving mark as stored: True, False or None; anything else is refused."""
    if value is None or isinstance(value, bool):
        return value
    raise ValidationError(
        {"sense_preserving": f"Sense-preserving must be yes, no or unmarked, not {value!r}."}
    )


@transaction.atomic
def delete_phenomenon(phenomenon: Phenomenon, *, base_version: int | None, actor: Any = None) -> int:
    pair = phenomenon.pair
    sheet = _begin(pair, phenomenon.annotator, _normalise_base(base_version), phenomenon.is_gold)
    _record(
        pair,
        phenomenon,
        "delete",
        actor or phenomenon.annotator,
        phenomenon.annotator_id,
        history.snapshot(phenomenon, PHENOMENON_FIELDS),
        None,
    )
    phenomenon.delete()
    return _finish(sheet, pair, phenomena=True)


@transaction.atomic
def set_links(
    pair: Pair,
    annotator: Any,
    links: Sequence[tuple[int, int]],
    *,
    sure: bool,
    base_version: int | None,
    actor: Any = None,
    is_gold: bool = False,
) -> int:
    """Add (or re-mark as sure/possible) a block of links i–j. Many-to-many blocks are several pairs."""
    clean = [validation.link_fields(i, j, pair.tokens1, pair.tokens2) for i, j in links]
    sheet = _begin(pair, annotator, _normalise_base(base_version), is_gold)
    existing = {(link.i, link.j): link for link in _links(pair, annotator, is_gold)}
    for i, j in dict.fromkeys(clean):
        link = existing.get((i, j))
        if link is None:
            link = AlignmentLink.objects.create(
                pair=pair, annotator=annotator, is_gold=is_gold, i=i, j=j, sure=sure
            )
            _record(
                pair,
                link,
                "create",
                actor or annotator,
                annotator.pk,
                None,
                history.snapshot(link, LINK_FIELDS),
            )
        elif link.sure != sure:
            before = history.snapshot(link, LINK_FIELDS)
            link.sure = sure
            link.version += 1
            link.save(update_fields=["sure", "version", "updated_at"])
            _record(
                pair,
                link,
                "update",
                actor or annotator,
                annotator.pk,
                before,
                history.snapshot(link, LINK_FIELDS),
            )
    return _finish(sheet, pair, aligned=True)


@transaction.atomic
def toggle_links(
    pair: Pair,
    annotator: Any,
    links: Sequence[tuple[int, int]],
    *,
    base_version: int | None,
    actor: Any = None,
    is_gold: bool = False,
) -> tuple[int, bool]:
    """Switch the existing links among a block between sure and possible: all of them become the
    opposite of the first existing one (links of the block that do not exist are left alone).
    Returns the new version and whether the links are now sure."""
    existing = {(link.i, link.j): link.sure for link in _links(pair, annotator, is_gold)}
    block = [(int(i), int(j)) for i, j in links if (int(i), int(j)) in existing]
    if not block:
        raise ValidationError({"i": "There is no link between the selected tokens to switch."})
    sure = not existing[block[0]]
    version = set_links(
        pair, annotator, block, sure=sure, base_version=base_version, actor=actor, is_gold=is_gold
    )
    return version, sure


def _links(pair: Pair, annotator: Any, is_gold: bool) -> list[AlignmentLink]:
    """The sheet's links, in the model's order."""
    return list(AlignmentLink.objects.filter(pair=pair, annotator=annotator, is_gold=is_gold))


@transaction.atomic
def remove_links(
    pair: Pair,
    annotator: Any,
    links: Sequence[tuple[int, int]],
    *,
    base_version: int | None,
    actor: Any = None,
    is_gold: bool = False,
) -> int:
    sheet = _begin(pair, annotator, _normalise_base(base_version), is_gold)
    wanted = {(int(i), int(j)) for i, j in links}
    for link in AlignmentLink.objects.filter(pair=pair, annotator=annotator, is_gold=is_gold):
        if (link.i, link.j) in wanted:
            _record(
                pair,
                link,
                "delete",
                actor or annotator,
                annotator.pk,
                history.snapshot(link, LINK_FIELDS),
                None,
            )
            link.delete()
    return _finish(sheet, pair, aligned=True)


@transaction.atomic
def add_phrase_alignment(
    pair: Pair,
    annotator: Any,
    node1: int | None,
    node2: int | None,
    *,
    sure: bool = True,
    base_version: int | None,
    actor: Any = None,
    is_gold: bool = False,
) -> tuple[PhraseAlignment, int]:
    """Align a node of tree 1 with a node of tree 2, or one node with no counterpart (null)."""

    n1, n2 = _phrase_nodes(pair, node1, node2)
    sheet = _begin(pair, annotator, _normalise_base(base_version), is_gold)
    alignment = _put_phrase_alignment(pair, annotator, n1, n2, sure, actor or annotator, is_gold)
    return alignment, _finish(sheet, pair, phrases=True)


@transaction.atomic
def add_phrase_alignments(
    pair: Pair,
    annotator: Any,
    node_pairs: Sequence[tuple[int, int]],
    *,
    sure: bool = True,
    base_version: int | None,
    actor: Any = None,
    is_gold: bool = False,
) -> int:
    """Align several node pairs in one save (one version, one undo step). Returns the new version."""
    clean = [_phrase_nodes(pair, n1, n2) for n1, n2 in node_pairs]
    sheet = _begin(pair, annotator, _normalise_base(base_version), is_gold)
    for n1, n2 in dict.fromkeys(clean):
        _put_phrase_alignment(pair, annotator, n1, n2, sure, actor or annotator, is_gold)
    return _finish(sheet, pair, phrases=True)


def _phrase_nodes(pair: Pair, node1: int | None, node2: int | None) -> tuple[int | None, int | None]:
    n1 = validation.node_index(node1, pair.nodes1, field="node1", member=1)
    n2 = validation.node_index(node2, pair.nodes2, field="node2", member=2)
    if n1 is None and n2 is None:
        raise ValidationError({"node1": "Pick a node in at least one of the two trees."})
    return n1, n2


def _put_phrase_alignment(
    pair: Pair, annotator: Any, n1: int | None, n2: int | None, sure: bool, actor: Any, is_gold: bool
) -> PhraseAlignment:
    """Create the alignment, or re-mark an existing one as sure/possible, with its history."""
    alignment, created = PhraseAlignment.objects.get_or_create(
        pair=pair, annotator=annotator, is_gold=is_gold, node1=n1, node2=n2, defaults={"sure": sure}
    )
    if created:
        after = history.snapshot(alignment, PHRASE_FIELDS)
        _record(pair, alignment, "create", actor, annotator.pk, None, after)
    elif alignment.sure != sure:
        before = history.snapshot(alignment, PHRASE_FIELDS)
        alignment.sure = sure
        alignment.version += 1
        alignment.save(update_fields=["sure", "version", "updated_at"])
        _record(
            pair, alignment, "update", actor, annotator.pk, before, history.snapshot(alignment, PHRASE_FIELDS)
        )
    return alignment


@transaction.atomic
def remove_phrase_alignment(
    alignment: PhraseAlignment, *, base_version: int | None, actor: Any = None
) -> int:
    pair = alignment.pair
    sheet = _begin(pair, alignment.annotator, _normalise_base(base_version), alignment.is_gold)
    _record(
        pair,
        alignment,
        "delete",
        actor or alignment.annotator,
        alignment.annotator_id,
        history.snapshot(alignment, PHRASE_FIELDS),
        None,
    )
    alignment.delete()
    return _finish(sheet, pair, phrases=True)
