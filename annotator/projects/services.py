"""A project's settings: creating and editing a project with validation and sensible defaults.

Every entry point (the settings page, the REST API, the import of a new project, the demo, the test
world) calls these functions, so the rules are written once. Errors are `ValidationError({field: message})`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from annotator.agreement import record_change
from annotator.core.tagsets import ETPC_NAME, VILA_NAME
from annotator.models import Membership, Phenomenon, Project, ReannotationRound, Tagset
from annotator.projects.roles import grant_role

LAYERS = ("pair_label", "phenomena", "word_alignment", "phrase_alignment", "evaluation")
EDITABLE = (
    "name",
    "description",
    "language",
    "tagset",
    *(f"layer_{layer}" for layer in LAYERS),
    "phenomena_for",
    "phase",
    "reannotation_rules",
)
# At creation a project may also get its first guidelines text; later versions are published
# (`annotator.projects.guidelines.publish`).
CREATABLE = (*EDITABLE, "guidelines")
REANNOTATION_DEFAULTS: dict[str, Any] = {"rule": "label_disagreement", "threshold": 0.5, "fraction": 0.1}


def default_tagset(language: str) -> Tagset | None:
    """Vila et al.'s typology for Spanish and Catalan (the languages of its corpora), ETPC's for English."""
    return Tagset.objects.filter(
        builtin=True, name=VILA_NAME if language in ("es", "ca") else ETPC_NAME
    ).first()


def reannotation_rules(project: Project) -> dict[str, Any]:
    """The project's re-annotation defaults, completed with the built-in ones."""
    return {**REANNOTATION_DEFAULTS, **(project.reannotation_rules or {})}


def clean_reannotation_rules(value: Any) -> dict[str, Any]:
    if value in (None, ""):
        return dict(REANNOTATION_DEFAULTS)
    if not isinstance(value, dict):
        raise ValidationError({"reannotation_rules": "Give an object with rule, threshold and fraction."})
    unknown = sorted(set(value) - set(REANNOTATION_DEFAULTS))
    if unknown:
        raise ValidationError(
            {"reannotation_rules": f"Unknown setting {unknown[0]!r}; known: rule, threshold, fraction."}
        )
    rules = {**REANNOTATION_DEFAULTS, **value}
    if rules["rule"] not in (ReannotationRound.Rule.LABEL_DISAGREEMENT, ReannotationRound.Rule.DO_F1_BELOW):
        raise ValidationError({"reannotation_rules": "rule: label_disagreement or do_f1_below."})
    for key in ("threshold", "fraction"):
        number = rules[key]
        if isinstance(number, bool) or not isinstance(number, int | float) or not 0 <= number <= 1:
            raise ValidationError({"reannotation_rules": f"{key}: a number from 0 to 1, not {number!r}."})
    return rules


def _field_default(name: str) -> Any:
    """The model's default for one of the project's own fields."""
    field = Project._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise TypeError(f"Project.{name} is a relation, not a field of its own")
    return field.default


def _validate(fields: dict[str, Any], project: Project | None) -> dict[str, Any]:
    errors: dict[str, str] = {}
    name = str(fields.get("name", project.name if project else "")).strip()
    if not name:
        errors["name"] = "Give the project a name."
    elif Project.objects.filter(name=name).exclude(pk__in=[project.pk] if project else []).exists():
        errors["name"] = f"A project named {name!r} exists; choose another name."
    fields["name"] = name
    language = fields.get("language", project.language if project else "en")
    if language not in Project.Language.values:
        errors["language"] = (
            f"Unknown language {language!r}; choose one of {', '.join(Project.Language.values)}."
        )
    layers = {
        layer: fields.get(f"layer_{layer}", getattr(project, f"layer_{layer}", None)) for layer in LAYERS
    }
    if project is None:
        layers = {k: (v if v is not None else _field_default(f"layer_{k}")) for k, v in layers.items()}
    if not any(layers.values()):
        errors["layer_pair_label"] = "Choose at least one layer to annotate."
    if "reannotation_rules" in fields:
        try:
            fields["reannotation_rules"] = clean_reannotation_rules(fields["reannotation_rules"])
        except ValidationError as error:
            errors.update({k: v[0] for k, v in error.message_dict.items()})
    if project is not None and "tagset" in fields and fields["tagset"] != project.tagset:
        used = Phenomenon.objects.filter(pair__project=project).count()
        if used:
            errors["tagset"] = (
                f"{used} phenomena use types of {project.tagset}; the tagset cannot change under them. "
                "Edit the project's own copy of the tagset instead (rename or merge types)."
            )
    if errors:
        raise ValidationError(errors)
    return fields


@transaction.atomic
def create_project(lead: Any | None, *, annotators: Iterable[Any] = (), **fields: Any) -> Project:
    """A new project with `lead` as its lead (None: no lead yet, for projects the test world and the
    benches build before naming one) and `annotators` as its annotators. Unset fields take the
    defaults: English, the language's built-in tagset, pair label + phenomena + word alignment,
    training phase, label-disagreement re-annotation of 10 % agreeing pairs. Fields other than the
    project's settings (`CREATABLE`) are ignored."""
    fields = {k: v for k, v in fields.items() if k in CREATABLE}
    fields = _validate(fields, None)
    fields.setdefault("reannotation_rules", dict(REANNOTATION_DEFAULTS))
    if fields.get("tagset") is None:
        fields["tagset"] = default_tagset(fields.get("language", "en"))
    project = Project.objects.create(**fields)
    if lead is not None:
        grant_role(project, lead, Membership.Role.LEAD)
    for user in annotators:
        grant_role(project, user, Membership.Role.ANNOTATOR)
    return project


@transaction.atomic
@transaction.atomic
def update_project(project: Project, **fields: Any) -> Project:
    """Change the given settings of a project (the rest stay). A layer switched on or off or another
    tagset changes which agreement sums the project keeps: they are rebuilt from its annotations."""
    fields = {k: v for k, v in fields.items() if k in EDITABLE}
    fields = _validate(fields, project)
    reshaped = any(
        (key.startswith("layer_") or key == "tagset") and getattr(project, key) != value
        for key, value in fields.items()
    )
    for key, value in fields.items():
        setattr(project, key, value)
    project.save()
    if reshaped:
        record_change(project.pk, relabelled=True)
    return project
