"""Forms of the project set-up pages. They only shape input; the rules are in the services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from annotator import access
from annotator.core.forms import OwnIds
from annotator.models import Membership, ParaphraseType, Project, Tagset
from annotator.projects.services import LAYERS, REANNOTATION_DEFAULTS, reannotation_rules


def add_service_errors(form: forms.Form, error: ValidationError) -> None:
    """A service's ValidationError shown at the form's fields (unknown fields: at the top)."""
    for field, messages in error.message_dict.items():
        form.add_error(field if field in form.fields else None, messages)


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=120)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    language = forms.ChoiceField(
        choices=Project.Language.choices,
        initial="en",
        help_text="Decides how members are tokenized at import.",
    )
    tagset = forms.ModelChoiceField(
        queryset=Tagset.objects.none(),
        required=False,
        empty_label="The language's built-in typology (Vila 2015 for Spanish/Catalan, ETPC for English)",
    )
    layer_pair_label = forms.BooleanField(
        required=False, initial=True, label="Pair label (paraphrase or not)"
    )
    layer_phenomena = forms.BooleanField(required=False, initial=True, label="Phenomena (paraphrase types)")
    layer_word_alignment = forms.BooleanField(required=False, initial=True, label="Word alignment")
    layer_phrase_alignment = forms.BooleanField(required=False, label="Phrase alignment (needs parse trees)")
    layer_evaluation = forms.BooleanField(required=False, label="Evaluation of paraphrase substitutions")
    phenomena_for = forms.ChoiceField(
        choices=Project.PhenomenaFor.choices,
        initial=Project.PhenomenaFor.ALL,
        label="Pairs that take phenomena",
    )
    phase = forms.ChoiceField(choices=Project.Phase.choices, initial=Project.Phase.TRAINING)
    reannotation_rule = forms.ChoiceField(
        choices=[
            ("label_disagreement", "Pair-label disagreement"),
            ("do_f1_below", "Phenomena DO F1 below the threshold"),
        ],
        initial=REANNOTATION_DEFAULTS["rule"],
        label="Re-annotation: pairs to queue again",
    )
    reannotation_threshold = forms.FloatField(
        min_value=0, max_value=1, initial=REANNOTATION_DEFAULTS["threshold"], label="DO F1 threshold"
    )
    reannotation_fraction = forms.FloatField(
        min_value=0,
        max_value=1,
        initial=REANNOTATION_DEFAULTS["fraction"],
        label="Share of agreeing pairs mixed in",
    )

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)

        field = self.fields["tagset"]
        if isinstance(field, forms.ModelChoiceField):
            field.queryset = access.usable_tagsets(user) if user is not None else Tagset.objects.none()

    @classmethod
    def initial_of(cls, project: Project) -> dict[str, Any]:

        rules = reannotation_rules(project)
        return {
            "name": project.name,
            "description": project.description,
            "language": project.language,
            "tagset": project.tagset_id,
            **{f"layer_{layer}": getattr(project, f"layer_{layer}") for layer in project_layers()},
            "phenomena_for": project.phenomena_for,
            "phase": project.phase,
            "reannotation_rule": rules["rule"],
            "reannotation_threshold": rules["threshold"],
            "reannotation_fraction": rules["fraction"],
        }

    def project_fields(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        data["reannotation_rules"] = {
            "rule": data.pop("reannotation_rule"),
            "threshold": data.pop("reannotation_threshold"),
            "fraction": data.pop("reannotation_fraction"),
        }
        return data


def project_layers() -> tuple[str, ...]:

    return LAYERS


class MemberAddForm(OwnIds, forms.Form):
    ids = "add"
    username = forms.CharField(max_length=150, label="User name")
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.ANNOTATOR)


class AccountForm(forms.Form):
    username = forms.CharField(max_length=150, label="User name")
    email = forms.EmailField(required=False)
    password = forms.CharField(
        widget=forms.PasswordInput(render_value=False),
        help_text="At least 8 characters, not only digits, not a common password.",
    )


class MemberCreateForm(OwnIds, AccountForm):
    ids = "create"
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.ANNOTATOR)


class UserCreateForm(AccountForm):
    is_admin = forms.BooleanField(required=False, label="Administrator (may do everything)")
    may_create_projects = forms.BooleanField(
        required=False, initial=True, label="May create projects (and lead them)"
    )


class InvitationForm(OwnIds, forms.Form):
    ids = "invite"
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.ANNOTATOR)
    note = forms.CharField(max_length=200, required=False, label="For whom (only leads see this)")
    days = forms.IntegerField(min_value=1, max_value=60, initial=7, label="Valid for (days)")


class RolesForm(OwnIds, forms.Form):
    ids = "roles"
    roles = forms.MultipleChoiceField(
        choices=Membership.Role.choices, widget=forms.CheckboxSelectMultiple, required=False
    )


class RemoveMemberForm(OwnIds, forms.Form):
    ids = "remove"
    reassign_to = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=None, label="Move their unfinished pairs to"
    )

    def __init__(self, *args: Any, annotators: list[tuple[int, str]] = (), **kwargs: Any) -> None:  # type: ignore[assignment]
        super().__init__(*args, **kwargs)
        field = self.fields["reassign_to"]
        if isinstance(field, forms.ChoiceField):
            field.choices = [("", "— nobody (they stay unassigned to anyone active) —"), *annotators]


class TagsetCreateForm(forms.Form):
    name = forms.CharField(max_length=120)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


class TagsetCloneForm(forms.Form):
    name = forms.CharField(
        max_length=120, required=False, help_text="Empty: the project's name and the original's."
    )


class TypeForm(forms.Form):
    name = forms.CharField(max_length=120)
    code = forms.CharField(max_length=40, required=False, help_text="External id; empty: the next number.")
    type_class = forms.CharField(max_length=120, label="Class")
    subclass = forms.CharField(max_length=120, required=False)
    scope_sides = forms.ChoiceField(choices=ParaphraseType.ScopeSides.choices, initial="both")
    projection_required = forms.BooleanField(required=False)
    keys_allowed = forms.BooleanField(required=False)
    colour = forms.CharField(max_length=7, required=False, widget=forms.TextInput(attrs={"type": "color"}))
    shortcut = forms.CharField(max_length=1, required=False, label="Shortcut key")
    description = forms.CharField(
        required=False, label="Definition", widget=forms.Textarea(attrs={"rows": 2})
    )
    examples = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text="One per line."
    )


class TypeDeleteForm(forms.Form):
    merge_into = forms.TypedChoiceField(coerce=int, required=False, empty_value=None)


class GuidelinesForm(forms.Form):
    text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 16}), label="Guidelines (Markdown)", required=False
    )
    note = forms.CharField(max_length=200, required=False, label="What changed (annotators see this)")


class SignUpForm(AccountForm):
    pass
