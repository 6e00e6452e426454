"""Model fields of the project's own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import orjson
from django import forms
from django.db import models


def _plain(value: Any) -> Any:
    """What orjson cannot write itself: numpy scalars (as their Python value)."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"value of type {type(value).__name__} is not JSON-serialisable")


def dumps(value: Any) -> str:
    """JSON text of `value` (NaN and infinities are written as null, as the report's convention has them;
    floats in their shortest round-trip form, as `json.dumps` writes them)."""
    return orjson.dumps(value, default=_plain, option=orjson.OPT_NON_STR_KEYS).decode()


class JSONTextField(models.TextField):  # type: ignore[type-arg]
    """A JSON value kept as text: the database stores and returns it without parsing it (PostgreSQL's
    jsonb parses and rebuilds a value on every write, ~0.1 s for the 3 MB an agreement section of 50
    annotators holds). For values read and written whole, never queried by key."""

    if TYPE_CHECKING:  # the Python value is any JSON value, not the column's text
        _pyi_private_set_type: Any
        _pyi_private_get_type: Any

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else orjson.loads(value)

    def to_python(self, value: Any) -> Any:
        return orjson.loads(value) if isinstance(value, str | bytes) else value

    def get_prep_value(self, value: Any) -> str | None:
        return None if value is None else dumps(value)

    def value_to_string(self, obj: models.Model) -> str:
        return dumps(self.value_from_object(obj))

    def formfield(self, **kwargs: Any) -> forms.Field:
        return forms.JSONField(**kwargs)
