"""Forms of the lead's tools: planner, reassignment, re-annotation, adjudication edits.

They parse what the page (or the API) sends; the rules are the services' (`planning`, `reannotation`,
`adjudication`), whose errors the views put back on the form (`add_service_errors`)."""

from __future__ import annotations

import random
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from annotator.leadtools import planning
from annotator.models import Project, ReannotationRound


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 1_000_000)


def add_service_errors(form: forms.Form, error: ValidationError) -> None:
    """Put a service's field → message errors on the form (unknown fields go to the form as a whole)."""
    for name, messages in (
        error.message_dict.items() if hasattr(error, "error_dict") else [(None, error.messages)]
    ):
        for message in messages:
            form.add_error(name if name in form.fields else None, message)


def _set_choices(form: forms.Form, name: str, choices: list[tuple[int, str]]) -> None:
    field = form.fields[name]
    if not isinstance(field, forms.ChoiceField):
        raise TypeError(f"{type(form).__name__}.{name} is not a choice field")
    field.choices = choices


class PlanForm(forms.Form):
    selection = forms.ChoiceField(
        choices=[("all", "All pairs"), ("sample", "Random sample"), ("filter", "Filter")],
        widget=forms.RadioSelect,
        initial="all",
    )
    n = forms.IntegerField(label="Pairs in the sample", required=False, min_value=1)
    seed = forms.IntegerField(label="Seed", min_value=0, help_text="Same seed, same sample and split.")
    label_key = forms.CharField(label="Corpus label", required=False, max_length=60)
    label_value = forms.CharField(label="equals", required=False, max_length=120)
    source_prefix = forms.CharField(label="Source id starts with", required=False, max_length=120)
    unannotated = forms.BooleanField(label="No annotations yet", required=False)
    unassigned = forms.BooleanField(label="Not assigned to anyone yet", required=False)
    annotators = forms.TypedMultipleChoiceField(coerce=int, widget=forms.CheckboxSelectMultiple)
    per_pair = forms.ChoiceField(
        label="Annotators per pair",
        choices=[
            ("everyone", "Everyone (training / agreement phase)"),
            ("one", "One each (final phase split)"),
            ("k", "k each, balanced overlap"),
        ],
        widget=forms.RadioSelect,
        initial="everyone",
    )
    k = forms.IntegerField(label="k", required=False, min_value=1, initial=2)
    phase = forms.ChoiceField(choices=Project.Phase.choices)

    def __init__(self, *args: Any, annotators: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _set_choices(self, "annotators", annotators)

    def plan_kwargs(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "annotator_ids": data["annotators"],
            "selection": data["selection"],
            "n": data.get("n"),
            "seed": data["seed"],
            "conditions": planning.PairFilter(
                label_key=data.get("label_key", ""),
                label_value=data.get("label_value", ""),
                source_prefix=data.get("source_prefix", ""),
                unannotated=data.get("unannotated", False),
                unassigned=data.get("unassigned", False),
            ),
            "per_pair": data["per_pair"],
            "k": data.get("k") if data["per_pair"] == "k" else 1,
            "phase": data["phase"],
        }


class ReassignForm(forms.Form):
    from_user = forms.TypedChoiceField(label="Annotator who left", coerce=int)
    to_user = forms.TypedChoiceField(label="Give their unfinished work to", coerce=int)
    remove_member = forms.BooleanField(
        label="Also remove them from the project's annotators (their work leaves agreement)", required=False
    )

    def __init__(self, *args: Any, annotators: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _set_choices(self, "from_user", annotators)
        _set_choices(self, "to_user", annotators)


class ReannotationForm(forms.Form):
    rule = forms.ChoiceField(choices=ReannotationRound.Rule.choices, widget=forms.RadioSelect)
    threshold = forms.FloatField(
        label="DO F1 below", required=False, min_value=0.01, max_value=1.0, initial=0.5
    )
    pairs = forms.CharField(
        label="Pairs (source ids)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Separated by spaces, commas or new lines.",
    )
    seed = forms.IntegerField(min_value=0)

    def pair_ids(self) -> list[str]:
        raw = self.cleaned_data.get("pairs") or ""
        return [part for part in raw.replace(",", " ").split() if part]

    def params(self) -> dict[str, Any]:
        rule = self.cleaned_data["rule"]
        if rule == ReannotationRound.Rule.DO_F1_BELOW:
            return {"threshold": self.cleaned_data["threshold"]}
        if rule == ReannotationRound.Rule.SELECTED:
            return {"pairs": self.pair_ids()}
        return {}


class IndexListField(forms.Field):
    """Token indices typed as "0 1 2" or "0,1,2"; an empty field is the empty list."""

    def to_python(self, value: Any) -> list[int]:
        text = "" if value in self.empty_values else str(value)
        out = []
        for part in text.replace(",", " ").split():
            if not part.lstrip("-").isdigit():
                raise ValidationError(f"{part!r} is not a token number.")
            out.append(int(part))
        return out


class GoldPhenomenonForm(forms.Form):
    ptype = forms.TypedChoiceField(label="Type", coerce=int)
    scope1 = IndexListField(label="Scope in member 1", required=False)
    scope2 = IndexListField(label="Scope in member 2", required=False)
    projection = forms.ChoiceField(
        choices=[("", "—"), ("local", "local"), ("global", "global")], required=False
    )
    key1 = IndexListField(label="Key in member 1", required=False)
    key2 = IndexListField(label="Key in member 2", required=False)
    sense_preserving = forms.TypedChoiceField(
        label="Sense-preserving",
        choices=[("", "—"), ("yes", "+"), ("no", "−")],
        coerce=lambda value: {"yes": True, "no": False}.get(value),
        empty_value=None,
        required=False,
    )

    def __init__(self, *args: Any, types: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _set_choices(self, "ptype", types)


class GoldLinkForm(forms.Form):
    i = forms.IntegerField(label="Token in member 1", min_value=0)
    j = forms.IntegerField(label="Token in member 2", min_value=0)
    sure = forms.TypedChoiceField(
        choices=[("1", "sure"), ("0", "possible")],
        coerce=lambda v: v in ("1", True),
        initial="1",
        label="Link kind",
        widget=forms.Select(attrs={"aria-label": "Link kind"}),
    )
