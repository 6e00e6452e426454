"""The rules of annotation, as plain functions shared by models, forms, services and the API.

Each rule broken raises `django.core.exceptions.ValidationError` with a dict of field → message that a
user understands ("Token 31 is outside member 1, which has 24 tokens (0–23)").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import ValidationError

from annotator.models import ParaphraseType


def token_indices(value: Any, *, field: str, member: int, n_tokens: int) -> list[int]:
    """Validate a token-index list (0-based, no duplicates, in range); return it sorted."""
    if value is None:
        return []
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ValidationError({field: f"Expected a list of token indices, got {value!r}."})
    indices: list[int] = []
    for raw in value:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise ValidationError({field: f"Token index {raw!r} is not a whole number."})
        if raw < 0 or raw >= n_tokens:
            span = f"0–{n_tokens - 1}" if n_tokens else "none"
            raise ValidationError(
                {field: f"Token {raw} is outside member {member}, which has {n_tokens} tokens ({span})."}
            )
        indices.append(raw)
    if len(set(indices)) != len(indices):
        dupes = sorted({i for i in indices if indices.count(i) > 1})
        raise ValidationError({field: f"Token {dupes[0]} is listed twice."})
    return sorted(indices)


def phenomenon_fields(
    ptype: ParaphraseType,
    tokens1: Sequence[str],
    tokens2: Sequence[str],
    *,
    scope1: Any,
    scope2: Any,
    projection: str | None,
    key1: Any = None,
    key2: Any = None,
) -> dict[str, Any]:
    """Check a phenomenon against its type's rules; return the cleaned fields."""
    s1 = token_indices(scope1, field="scope1", member=1, n_tokens=len(tokens1))
    s2 = token_indices(scope2, field="scope2", member=2, n_tokens=len(tokens2))
    k1 = token_indices(key1, field="key1", member=1, n_tokens=len(tokens1))
    k2 = token_indices(key2, field="key2", member=2, n_tokens=len(tokens2))
    if not s1 and not s2:
        raise ValidationError({"scope1": "Select at least one token in member 1 or member 2 as the scope."})
    if ptype.scope_sides == ParaphraseType.ScopeSides.ONE and s1 and s2:
        raise ValidationError(
            {"scope2": f"{ptype.name} takes a scope in one member only: clear member 1 or member 2."}
        )
    if ptype.scope_sides == ParaphraseType.ScopeSides.BOTH and (not s1 or not s2):
        missing = "member 1" if not s1 else "member 2"
        raise ValidationError(
            {
                "scope1"
                if not s1
                else "scope2": f"{ptype.name} needs a scope in {missing} too (one-sided scopes "
                "are only for types such as addition/deletion)."
            }
        )
    projection = projection or ""
    if projection not in ("", "local", "global"):
        raise ValidationError({"projection": f"Projection must be local or global, not {projection!r}."})
    if ptype.projection_required and not projection:
        raise ValidationError({"projection": f"{ptype.name} requires a projection: choose local or global."})
    if not ptype.projection_required and projection:
        raise ValidationError({"projection": f"{ptype.name} takes no projection."})
    if (k1 or k2) and not ptype.keys_allowed:
        raise ValidationError({"key1" if k1 else "key2": f"{ptype.name} takes no key elements."})
    return {"scope1": s1, "scope2": s2, "projection": projection, "key1": k1, "key2": k2}


def link_fields(i: Any, j: Any, tokens1: Sequence[str], tokens2: Sequence[str]) -> tuple[int, int]:
    (ci,) = token_indices([i], field="i", member=1, n_tokens=len(tokens1))
    (cj,) = token_indices([j], field="j", member=2, n_tokens=len(tokens2))
    return ci, cj


def node_index(value: Any, nodes: Sequence[Any], *, field: str, member: int) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError({field: f"Node {value!r} is not a whole number."})
    if not nodes:
        raise ValidationError({field: f"Member {member} has no parse tree."})
    if value < 0 or value >= len(nodes):
        raise ValidationError(
            {field: f"Node {value} is outside tree {member}, which has {len(nodes)} nodes."}
        )
    return value
