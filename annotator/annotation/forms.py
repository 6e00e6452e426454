"""Forms of the annotation editor: they parse what the page posts; the rules live in `validation`.

Token and node indices travel as comma-separated numbers ("3,4,9"), the shape the token-selection
module produces. Every save form carries `base_version`, the sheet version the page was showing.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from annotator.models import PairLabel

KIND_CHOICES = [("sure", "Sure"), ("possible", "Possible")]
FIELD_NAMES = {
    "scope1": "Scope in member 1",
    "scope2": "Scope in member 2",
    "key1": "Keys in member 1",
    "key2": "Keys in member 2",
    "projection": "Projection",
    "sense_preserving": "Sense-preserving",
    "ptype": "Type",
    "i": "Member 1 token",
    "j": "Member 2 token",
    "node1": "Tree 1 node",
    "node2": "Tree 2 node",
    "label": "Pair label",
    "comment": "Comment",
    "base_version": "Version",
    "undo": "Undo",
    "suggestion": "Suggestion",
    "key": "Suggestion",
    "__all__": "",
}


class IndexListField(forms.Field):
    """ "3, 4,9" → [3, 4, 9] (order kept; range and duplicate checks are `validation`'s job)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> list[int]:
        text = "" if value in self.empty_values else str(value)
        indices = []
        for part in (p for p in re.split(r"[\s,]+", text) if p):
            if not part.isdigit():
                raise ValidationError(f"{part!r} is not a token number.")
            indices.append(int(part))
        return indices


class OptionalIndexField(forms.IntegerField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, min_value=0, **kwargs)


class SaveForm(forms.Form):
    base_version = forms.IntegerField(
        min_value=0, error_messages={"required": "The page did not say which version it was showing; reload."}
    )


class LabelForm(SaveForm):
    label = forms.ChoiceField(choices=[("", "None"), *PairLabel.Label.choices], required=False)


class CommentForm(SaveForm):
    comment = forms.CharField(required=False, max_length=10000, strip=False)


class PhenomenonForm(SaveForm):
    ptype = forms.IntegerField(error_messages={"required": "Choose a type from the palette."})
    scope1 = IndexListField()
    scope2 = IndexListField()
    key1 = IndexListField()
    key2 = IndexListField()
    projection = forms.ChoiceField(
        choices=[("", "None"), ("local", "Local"), ("global", "Global")], required=False
    )
    sense_preserving = forms.TypedChoiceField(
        choices=[("", "Unmarked"), ("yes", "Yes (+)"), ("no", "No (−)")],
        coerce=lambda value: {"yes": True, "no": False}.get(value),
        empty_value=None,
        required=False,
    )
    comment = forms.CharField(required=False, max_length=2000)


class LinkForm(SaveForm):
    """A block of links: every token of `i` (member 1) with every token of `j` (member 2)."""

    i = IndexListField()
    j = IndexListField()
    kind = forms.ChoiceField(choices=KIND_CHOICES, required=False)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not self.errors and (not data.get("i") or not data.get("j")):
            side = "member 1" if not data.get("i") else "member 2"
            raise ValidationError(
                {"i" if side == "member 1" else "j": f"Select at least one token in {side}."}
            )
        return data

    @property
    def block(self) -> list[tuple[int, int]]:
        return [(i, j) for i in self.cleaned_data["i"] for j in self.cleaned_data["j"]]

    @property
    def sure(self) -> bool:
        return self.cleaned_data.get("kind") != "possible"


class SuggestionForm(SaveForm):
    """Accept the automatic suggestions: one (`i` and `j` given) or all of them (neither given)."""

    i = forms.IntegerField(required=False, min_value=0)
    j = forms.IntegerField(required=False, min_value=0)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not self.errors and (data.get("i") is None) != (data.get("j") is None):
            raise ValidationError({"j" if data.get("j") is None else "i": "Give both tokens of the link."})
        return data

    @property
    def only(self) -> list[tuple[int, int]] | None:
        i, j = self.cleaned_data.get("i"), self.cleaned_data.get("j")
        return None if i is None or j is None else [(int(i), int(j))]


class PhraseSuggestionForm(SaveForm):
    """Accept the automatic phrase suggestions: one (`node1` and `node2` given) or all (neither given)."""

    node1 = forms.IntegerField(required=False, min_value=0)
    node2 = forms.IntegerField(required=False, min_value=0)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not self.errors and (data.get("node1") is None) != (data.get("node2") is None):
            missing = "node2" if data.get("node2") is None else "node1"
            raise ValidationError({missing: "Give both nodes of the phrase alignment."})
        return data

    @property
    def only(self) -> list[tuple[int, int]] | None:
        n1, n2 = self.cleaned_data.get("node1"), self.cleaned_data.get("node2")
        return None if n1 is None or n2 is None else [(int(n1), int(n2))]


class PhenomenonSuggestionForm(SaveForm):
    """Accept or reject a phenomena suggestion, named by its key (``type id|scope 1|scope 2``); accepting
    without a key accepts all. ``projection``: the one chosen in the editor, for types that need one.
    ``corrected``: accept the suggestion with the annotator's scopes ``scope1`` / ``scope2``."""

    key = forms.RegexField(
        regex=r"^\d+\|[\d,]*\|[\d,]*$",
        required=False,
        max_length=4000,
        error_messages={"invalid": "Name the suggestion as type id|scope 1|scope 2, e.g. 12|3,4|2."},
    )
    projection = forms.ChoiceField(
        choices=[("", "None"), ("local", "Local"), ("global", "Global")], required=False
    )
    corrected = forms.BooleanField(required=False)  # accepted with the scopes below
    scope1 = IndexListField()
    scope2 = IndexListField()


class PhraseAlignmentForm(SaveForm):
    node1 = OptionalIndexField()
    node2 = OptionalIndexField()
    kind = forms.ChoiceField(choices=KIND_CHOICES, required=False)

    @property
    def sure(self) -> bool:
        return self.cleaned_data.get("kind") != "possible"


class TimeForm(forms.Form):
    seconds = forms.IntegerField(min_value=0)


def error_messages(errors: Any) -> list[dict[str, str]]:
    """Form errors or a ValidationError's dict as [{field, label, message}] for the inline message."""
    if isinstance(errors, ValidationError):
        items = (
            errors.message_dict.items() if hasattr(errors, "error_dict") else [("__all__", errors.messages)]
        )
    else:
        items = errors.items()
    return [
        {"field": name, "label": FIELD_NAMES.get(name, name), "message": str(message)}
        for name, messages in items
        for message in messages
    ]
