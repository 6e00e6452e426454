"""The gold layer: a lead builds the adjudicated annotation of a pair from the annotators' versions.

Gold rows are ordinary annotation rows with `is_gold=True`, written through
`annotator.annotation.services` (validation, the gold sheet's version check, history with the lead as
actor). Their `annotator` is the gold sheet's owner: the lead who adjudicated the pair first; a later
lead edits the same sheet (as actor), so a pair never has two gold versions. Gold never enters
agreement (`annotator.agreement`); the ETPC exporter writes it as the gold annotation.

Operations: take one annotator's version wholesale (replacing the gold), merge selected phenomena,
links and phrase alignments from several versions (skipping what gold already has), edit (pair label,
remove or change single rows, add a link or a phenomenon).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet

from annotator.annotation import services as annotation_services
from annotator.annotation.services import ConflictError
from annotator.models import (
    AlignmentLink,
    Assignment,
    Membership,
    Pair,
    PairLabel,
    Phenomenon,
    PhraseAlignment,
)
from annotator.models.annotations import AnnotationBase


@dataclass
class Version:
    """One annotator's (or the gold) annotation of a pair."""

    owner_id: int | None
    username: str
    label: str = ""
    comment: str = ""
    sheet_version: int = 0
    phenomena: list[Phenomenon] = field(default_factory=list)
    links: list[AlignmentLink] = field(default_factory=list)
    phrases: list[PhraseAlignment] = field(default_factory=list)


def gold_owner(pair: Pair) -> Any | None:
    """The user whose gold sheet holds the pair's gold layer (None before adjudication starts)."""
    sheet = (
        PairLabel.objects.filter(pair=pair, is_gold=True).select_related("annotator").order_by("pk").first()
    )
    return sheet.annotator if sheet else None


def versions(pair: Pair, annotator_ids: Sequence[int]) -> tuple[list[Version], Version]:
    """The annotators' versions (in the given order) and the gold version, in four queries."""
    by_owner: dict[tuple[int, bool], Version] = {}
    names = dict(_usernames(annotator_ids))
    for user_id in annotator_ids:
        by_owner[user_id, False] = Version(user_id, names.get(user_id, str(user_id)))
    gold = Version(None, "gold")
    for sheet in PairLabel.objects.filter(pair=pair).select_related("annotator"):
        target = gold if sheet.is_gold else by_owner.get((sheet.annotator_id, False))
        if target is None:
            continue
        target.label, target.comment, target.sheet_version = sheet.label, sheet.comment, sheet.version
        if sheet.is_gold:
            target.owner_id, target.username = sheet.annotator_id, sheet.annotator.get_username()
    layers: tuple[tuple[QuerySet[AnnotationBase], str], ...] = (
        (Phenomenon.objects.filter(pair=pair).select_related("ptype"), "phenomena"),
        (AlignmentLink.objects.filter(pair=pair), "links"),
        (PhraseAlignment.objects.filter(pair=pair), "phrases"),
    )
    for qs, attr in layers:
        for row in qs:
            target = gold if row.is_gold else by_owner.get((row.annotator_id, False))
            if target is not None:
                getattr(target, attr).append(row)
    return [by_owner[user_id, False] for user_id in annotator_ids], gold


def pair_versions(pair: Pair) -> tuple[list[Version], Version]:
    """What adjudication shows: the versions of the project's annotators who hold an assignment for the
    pair or have a sheet of it (username order), and the gold version."""

    annotators = (
        Membership.objects.filter(project_id=pair.project_id, role=Membership.Role.ANNOTATOR)
        .order_by("user__username")
        .values_list("user_id", flat=True)
    )
    ids = list(dict.fromkeys(annotators))
    worked = set(Assignment.objects.filter(pair=pair).values_list("annotator_id", flat=True))
    version_list, gold = versions(pair, ids)
    return [v for v in version_list if v.owner_id in worked or v.sheet_version], gold


def rows_in_gold(version_list: Iterable[Version], gold: Version) -> dict[str, set[int]]:
    """Ids of the annotators' rows that gold already has (same type, scopes, …; same link; same nodes)."""
    keys = {
        "phenomena": {phenomenon_key(x) for x in gold.phenomena},
        "links": {link_key(x) for x in gold.links},
        "phrases": {phrase_key(x) for x in gold.phrases},
    }
    out: dict[str, set[int]] = {"phenomena": set(), "links": set(), "phrases": set()}
    for v in version_list:
        out["phenomena"] |= {x.pk for x in v.phenomena if phenomenon_key(x) in keys["phenomena"]}
        out["links"] |= {x.pk for x in v.links if link_key(x) in keys["links"]}
        out["phrases"] |= {x.pk for x in v.phrases if phrase_key(x) in keys["phrases"]}
    return out


def project_annotator(pair: Pair, user_id: int | None, *, field: str = "source") -> Any:
    """The user `user_id` if they are an annotator of the pair's project; otherwise a ValidationError
    on `field` (takes and label copies come only from the project's annotators)."""

    user = get_user_model().objects.filter(pk=user_id).first() if user_id is not None else None
    if (
        user is None
        or not Membership.objects.filter(
            project_id=pair.project_id, user=user, role=Membership.Role.ANNOTATOR
        ).exists()
    ):
        raise ValidationError({field: "Choose one of the project's annotators."})
    return user


def _usernames(ids: Iterable[int]) -> list[tuple[int, str]]:

    User = get_user_model()
    return list(User.objects.filter(pk__in=list(ids)).values_list("pk", User.USERNAME_FIELD))


# ---- identity of rows (what counts as "already in gold") ----------------------------------------------


def phenomenon_key(x: Phenomenon) -> tuple[Any, ...]:
    return (
        x.ptype_id,
        tuple(x.scope1),
        tuple(x.scope2),
        x.projection or "",
        tuple(x.key1),
        tuple(x.key2),
        x.sense_preserving,
    )


def link_key(link: AlignmentLink) -> tuple[int, int]:
    return (link.i, link.j)


def phrase_key(alignment: PhraseAlignment) -> tuple[int | None, int | None]:
    return (alignment.node1, alignment.node2)


# ---- writing ------------------------------------------------------------------------------------------


def _owner(pair: Pair, lead: Any) -> Any:
    # Locking the pair row serialises adjudications of the pair, so two leads starting at once
    # cannot both become the owner of a gold sheet.
    Pair.objects.select_for_update().filter(pk=pair.pk).first()
    return gold_owner(pair) or lead


def _check(pair: Pair, owner: Any, base_version: int | None) -> None:
    """One version check for a whole operation (its steps then run unchecked inside one transaction)."""
    if base_version is None:
        return
    sheet = PairLabel.objects.select_for_update().filter(pair=pair, annotator=owner, is_gold=True).first()
    current = sheet.version if sheet else 0
    if current != base_version:
        raise ConflictError(
            current,
            "The gold annotation of this pair was changed by someone else since you loaded it "
            f"(now at version {current}). Reload to see the latest state.",
        )


def _gold_rows(pair: Pair, owner: Any) -> tuple[list[Phenomenon], list[AlignmentLink], list[PhraseAlignment]]:
    return (
        list(Phenomenon.objects.filter(pair=pair, annotator=owner, is_gold=True)),
        list(AlignmentLink.objects.filter(pair=pair, annotator=owner, is_gold=True)),
        list(PhraseAlignment.objects.filter(pair=pair, annotator=owner, is_gold=True)),
    )


def _copy_phenomenon(pair: Pair, owner: Any, lead: Any, x: Phenomenon) -> None:
    annotation_services.add_phenomenon(
        pair,
        owner,
        x.ptype_id,
        scope1=x.scope1,
        scope2=x.scope2,
        projection=x.projection or None,
        key1=x.key1,
        key2=x.key2,
        sense_preserving=x.sense_preserving,
        comment=x.comment,
        base_version=None,
        actor=lead,
        is_gold=True,
    )


def _copy_links(pair: Pair, owner: Any, lead: Any, links: Iterable[AlignmentLink]) -> None:
    links = list(links)
    for sure in (True, False):
        block = [(link.i, link.j) for link in links if link.sure == sure]
        if block:
            annotation_services.set_links(
                pair, owner, block, sure=sure, base_version=None, actor=lead, is_gold=True
            )


def _copy_phrase(pair: Pair, owner: Any, lead: Any, alignment: PhraseAlignment) -> None:
    annotation_services.add_phrase_alignment(
        pair,
        owner,
        alignment.node1,
        alignment.node2,
        sure=alignment.sure,
        base_version=None,
        actor=lead,
        is_gold=True,
    )


Row = TypeVar("Row", Phenomenon, AlignmentLink, PhraseAlignment)


def _source_rows(pair: Pair, model: type[Row], ids: Iterable[int]) -> list[Row]:
    """Non-gold rows of this pair with the given ids (anything else is refused with a message)."""
    ids = [int(pk) for pk in ids]
    rows = list(model.objects.filter(pair=pair, is_gold=False, pk__in=ids))
    missing = set(ids) - {row.pk for row in rows}
    if missing:
        raise ValidationError(
            {
                model._meta.model_name
                or "rows": f"{model.__name__} {min(missing)} is not an annotator's row of this pair."
            }
        )
    return rows


@transaction.atomic
def take_version(pair: Pair, source: Any, lead: Any, *, base_version: int | None) -> int:
    """Replace the gold annotation of the pair with a copy of `source`'s annotation. Returns the gold version."""
    owner = _owner(pair, lead)
    _check(pair, owner, base_version)
    phenomena, links, phrases = _gold_rows(pair, owner)
    for x in phenomena:
        annotation_services.delete_phenomenon(x, base_version=None, actor=lead)
    if links:
        annotation_services.remove_links(
            pair, owner, [link_key(link) for link in links], base_version=None, actor=lead, is_gold=True
        )
    for alignment in phrases:
        annotation_services.remove_phrase_alignment(alignment, base_version=None, actor=lead)
    sheet = PairLabel.objects.filter(pair=pair, annotator=source, is_gold=False).first()
    annotation_services.set_pair_label(
        pair, owner, sheet.label if sheet else "", base_version=None, actor=lead, is_gold=True
    )
    for x in Phenomenon.objects.filter(pair=pair, annotator=source, is_gold=False):
        _copy_phenomenon(pair, owner, lead, x)
    _copy_links(pair, owner, lead, AlignmentLink.objects.filter(pair=pair, annotator=source, is_gold=False))
    for alignment in PhraseAlignment.objects.filter(pair=pair, annotator=source, is_gold=False):
        _copy_phrase(pair, owner, lead, alignment)
    return annotation_services.sheet_version(pair, owner, is_gold=True)


@transaction.atomic
def merge_into_gold(
    pair: Pair,
    lead: Any,
    *,
    phenomenon_ids: Iterable[int] = (),
    link_ids: Iterable[int] = (),
    phrase_ids: Iterable[int] = (),
    label_from: Any = None,
    base_version: int | None,
) -> int:
    """Add the selected annotators' rows to gold (rows gold already has are skipped; a link already in
    gold takes the selected sure/possible mark). `label_from` also copies that annotator's pair label."""
    owner = _owner(pair, lead)
    _check(pair, owner, base_version)
    phenomena, links, phrases = _gold_rows(pair, owner)
    have = {phenomenon_key(x) for x in phenomena}
    for x in _source_rows(pair, Phenomenon, phenomenon_ids):
        if phenomenon_key(x) not in have:
            _copy_phenomenon(pair, owner, lead, x)
            have.add(phenomenon_key(x))
    _copy_links(pair, owner, lead, _source_rows(pair, AlignmentLink, link_ids))
    have_phrases = {phrase_key(a) for a in phrases}
    for alignment in _source_rows(pair, PhraseAlignment, phrase_ids):
        if phrase_key(alignment) not in have_phrases:
            _copy_phrase(pair, owner, lead, alignment)
            have_phrases.add(phrase_key(alignment))
    if label_from is not None:
        sheet = PairLabel.objects.filter(pair=pair, annotator=label_from, is_gold=False).first()
        annotation_services.set_pair_label(
            pair, owner, sheet.label if sheet else "", base_version=None, actor=lead, is_gold=True
        )
    if annotation_services.sheet_version(pair, owner, is_gold=True) == 0:
        # Nothing selected yet on an empty gold: still open the gold sheet, so the lead owns it.
        annotation_services.set_pair_label(pair, owner, "", base_version=None, actor=lead, is_gold=True)
    return annotation_services.sheet_version(pair, owner, is_gold=True)


def _gold_row(pair: Pair, model: type[Row], pk: int) -> Row:
    row = model.objects.filter(pair=pair, is_gold=True, pk=pk).first()
    if row is None:
        raise ValidationError(
            {model._meta.model_name or "row": f"{model.__name__} {pk} is not in this pair's gold."}
        )
    return row


@transaction.atomic
def set_gold_label(pair: Pair, lead: Any, label: str, *, base_version: int | None) -> int:
    owner = _owner(pair, lead)
    _check(pair, owner, base_version)
    return annotation_services.set_pair_label(pair, owner, label, base_version=None, actor=lead, is_gold=True)


@transaction.atomic
def remove_gold_phenomenon(pair: Pair, lead: Any, pk: int, *, base_version: int | None) -> int:
    _owner(pair, lead)
    row = _gold_row(pair, Phenomenon, pk)
    _check(pair, row.annotator, base_version)
    return annotation_services.delete_phenomenon(row, base_version=None, actor=lead)


@transaction.atomic
def update_gold_phenomenon(
    pair: Pair, lead: Any, pk: int, *, base_version: int | None, **changes: Any
) -> int:
    """Change a gold phenomenon's type, scopes, projection, keys, sense-preserving mark or comment
    (validated as a whole)."""
    _owner(pair, lead)
    row = _gold_row(pair, Phenomenon, pk)
    _check(pair, row.annotator, base_version)
    _, version = annotation_services.update_phenomenon(row, base_version=None, actor=lead, **changes)
    return version


@transaction.atomic
def add_gold_phenomenon(pair: Pair, lead: Any, ptype: Any, *, base_version: int | None, **fields: Any) -> int:
    owner = _owner(pair, lead)
    _check(pair, owner, base_version)
    _, version = annotation_services.add_phenomenon(
        pair, owner, ptype, base_version=None, actor=lead, is_gold=True, **fields
    )
    return version


@transaction.atomic
def remove_gold_link(pair: Pair, lead: Any, pk: int, *, base_version: int | None) -> int:
    _owner(pair, lead)
    row = _gold_row(pair, AlignmentLink, pk)
    _check(pair, row.annotator, base_version)
    return annotation_services.remove_links(
        pair, row.annotator, [link_key(row)], base_version=None, actor=lead, is_gold=True
    )


@transaction.atomic
def set_gold_link(pair: Pair, lead: Any, i: int, j: int, *, sure: bool, base_version: int | None) -> int:
    """Add the link i–j to gold, or re-mark it sure/possible."""
    owner = _owner(pair, lead)
    _check(pair, owner, base_version)
    return annotation_services.set_links(
        pair, owner, [(i, j)], sure=sure, base_version=None, actor=lead, is_gold=True
    )


@transaction.atomic
def remove_gold_phrase(pair: Pair, lead: Any, pk: int, *, base_version: int | None) -> int:
    _owner(pair, lead)
    row = _gold_row(pair, PhraseAlignment, pk)
    _check(pair, row.annotator, base_version)
    return annotation_services.remove_phrase_alignment(row, base_version=None, actor=lead)
