"""Tagsets in the app: clone a built-in typology, edit the copy, or build one from scratch.

Built-in tagsets (Vila et al. 2015, ETPC) are read-only; a project edits its own clone. A type that
phenomena use is never deleted with them: deleting it is refused with what would be lost, and the
lead can rename it or merge it into another type of the same tagset (its phenomena move there).
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max

from annotator.agreement import record_change
from annotator.core.tagsets import PALETTE
from annotator.models import ParaphraseType, Phenomenon, Project, Tagset

TYPE_FIELDS = (
    "code",
    "name",
    "type_class",
    "subclass",
    "scope_sides",
    "projection_required",
    "keys_allowed",
    "colour",
    "shortcut",
    "description",
    "examples",
)
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


def _free_name(name: str) -> str:
    candidate, n = name, 2
    while Tagset.objects.filter(name=candidate).exists():
        candidate, n = f"{name} ({n})", n + 1
    return candidate


@transaction.atomic
def clone_tagset(tagset: Tagset, user: Any, *, name: str = "", project: Project | None = None) -> Tagset:
    """A copy of `tagset` with all its types, owned by `user`; with `project` (that has no phenomena
    yet) the project switches to the copy."""
    name = name.strip() or _free_name(f"{project.name if project else tagset.name} — {tagset.name}")
    if Tagset.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A tagset named {name!r} exists; choose another name."})
    if project is not None and Phenomenon.objects.filter(pair__project=project).exists():
        raise ValidationError(
            {
                "tagset": "The project has phenomena already; it keeps its tagset (edit it if it is not built-in)."
            }
        )
    copy = Tagset.objects.create(
        name=name, description=tagset.description, owner=user, cloned_from=tagset, builtin=False
    )
    ParaphraseType.objects.bulk_create(
        ParaphraseType(
            tagset=copy,
            position=t.position,
            sense_preserving=t.sense_preserving,
            **{field: getattr(t, field) for field in TYPE_FIELDS},
        )
        for t in tagset.types.all()
    )
    if project is not None:
        project.tagset = copy
        project.save(update_fields=["tagset"])
    return copy


@transaction.atomic
def create_tagset(user: Any, name: str, *, description: str = "", project: Project | None = None) -> Tagset:
    name = name.strip()
    if not name:
        raise ValidationError({"name": "Give the tagset a name."})
    if Tagset.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A tagset named {name!r} exists; choose another name."})
    tagset = Tagset.objects.create(name=name, description=description, owner=user)
    if project is not None:
        if Phenomenon.objects.filter(pair__project=project).exists():
            raise ValidationError({"tagset": "The project has phenomena already; it keeps its tagset."})
        project.tagset = tagset
        project.save(update_fields=["tagset"])
    return tagset


def _clean_type(tagset: Tagset, ptype: ParaphraseType | None, fields: dict[str, Any]) -> dict[str, Any]:
    errors: dict[str, str] = {}
    values = {f: fields.get(f, getattr(ptype, f) if ptype else None) for f in TYPE_FIELDS}
    values["name"] = (values["name"] or "").strip()
    values["type_class"] = (values["type_class"] or "").strip()
    values["subclass"] = (values["subclass"] or "").strip()
    others = tagset.types.exclude(pk__in=[ptype.pk] if ptype else [])
    if not values["name"]:
        errors["name"] = "Give the type a name."
    elif others.filter(name=values["name"]).exists():
        errors["name"] = f"The tagset has a type named {values['name']!r} already."
    if not values["type_class"]:
        errors["type_class"] = "Give the type's class (e.g. Morpholexicon-based changes)."
    code = (values["code"] or "").strip() or str((others.count() + 1) if not ptype else ptype.code)
    while others.filter(code=code).exists() and not fields.get("code"):
        code = str(int(code) + 1) if code.isdigit() else f"{code}-2"
    if others.filter(code=code).exists():
        errors["code"] = f"The tagset has a type with code {code!r} already."
    values["code"] = code
    if values["scope_sides"] not in ParaphraseType.ScopeSides.values:
        values["scope_sides"] = values["scope_sides"] or ParaphraseType.ScopeSides.BOTH
        if values["scope_sides"] not in ParaphraseType.ScopeSides.values:
            errors["scope_sides"] = "Scope sides: both, one or any."
    colour = values["colour"] or PALETTE[others.count() % len(PALETTE)]
    if not COLOUR.match(colour):
        errors["colour"] = f"A colour is #rrggbb, not {colour!r}."
    values["colour"] = colour
    shortcut = (values["shortcut"] or "").strip()
    if len(shortcut) > 1:
        errors["shortcut"] = "A shortcut is one key."
    elif shortcut and others.filter(shortcut=shortcut).exists():
        errors["shortcut"] = (
            f"Key {shortcut!r} is the shortcut of {others.filter(shortcut=shortcut).first()} already."
        )
    values["shortcut"] = shortcut
    for flag in ("projection_required", "keys_allowed"):
        values[flag] = bool(values[flag])
    values["description"] = values["description"] or ""
    values["examples"] = values["examples"] or ""
    if errors:
        raise ValidationError(errors)
    return values


@transaction.atomic
def save_type(tagset: Tagset, ptype: ParaphraseType | None = None, **fields: Any) -> ParaphraseType:
    """Add a type to an editable tagset (ptype None) or change one; returns the saved type."""
    if tagset.builtin:
        raise ValidationError({"tagset": "Built-in tagsets are read-only: clone it and edit the copy."})
    values = _clean_type(tagset, ptype, fields)
    if ptype is None:
        position = (tagset.types.aggregate(m=Max("position"))["m"] or 0) + 1
        ptype = ParaphraseType.objects.create(tagset=tagset, position=position, **values)
    else:
        for key, value in values.items():
            setattr(ptype, key, value)
        ptype.save()
    _changed(tagset)
    return ptype


def _changed(tagset: Tagset) -> None:
    """Flags and names feed the agreement (one-sided types, type names): recompute the projects."""
    for project_id in Project.objects.filter(tagset=tagset).values_list("pk", flat=True):
        record_change(project_id)


def usage(ptype: ParaphraseType) -> dict[str, Any]:
    """How many phenomena use the type, of how many annotators (gold counted apart), in which projects."""
    rows = Phenomenon.objects.filter(ptype=ptype)
    return {
        "phenomena": rows.count(),
        "annotators": rows.filter(is_gold=False).values("annotator").distinct().count(),
        "gold": rows.filter(is_gold=True).count(),
        "projects": list(rows.values_list("pair__project__name", flat=True).distinct()),
    }


def usage_by_type(tagset: Tagset) -> dict[int, int]:
    return dict(
        Phenomenon.objects.filter(ptype__tagset=tagset)
        .values("ptype")
        .annotate(n=Count("id"))
        .values_list("ptype", "n")
    )


@transaction.atomic
def delete_type(ptype: ParaphraseType, *, merge_into: ParaphraseType | None = None) -> int:
    """Delete a type. A type in use is refused (nothing is lost) unless `merge_into`, another type of the
    same tagset, takes its phenomena over. Returns how many phenomena moved."""
    tagset = ptype.tagset
    if tagset.builtin:
        raise ValidationError({"tagset": "Built-in tagsets are read-only: clone it and edit the copy."})
    used = usage(ptype)
    if merge_into is None and used["phenomena"]:
        raise ValidationError(
            {
                "type": f"{used['phenomena']} phenomena ({used['annotators']} annotators"
                f"{', ' + str(used['gold']) + ' gold' if used['gold'] else ''}) in {', '.join(used['projects'])} "
                f"use {ptype.name!r}; deleting it would delete them. Rename the type, or merge it into "
                "another type (its phenomena move there)."
            }
        )
    if merge_into is not None and (merge_into.tagset_id != tagset.pk or merge_into.pk == ptype.pk):
        raise ValidationError({"merge_into": "Merge into another type of the same tagset."})
    moved = Phenomenon.objects.filter(ptype=ptype).update(ptype=merge_into) if merge_into else 0
    ptype.delete()
    if moved:
        _changed(tagset)
    return moved
