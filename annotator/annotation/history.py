"""Writing the history that keeps every earlier state of an annotation."""

from __future__ import annotations

from typing import Any

from django.db import models

from annotator.models import AnnotationHistory


def snapshot(obj: models.Model, fields: list[str]) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in fields}


def record(
    *,
    project_id: int,
    obj: models.Model,
    action: str,
    actor: Any,
    owner_id: int | None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    pair_id: int | None = None,
    unit_id: int | None = None,
    batch: int | None = None,
) -> AnnotationHistory:
    return AnnotationHistory.objects.create(
        project_id=project_id,
        pair_id=pair_id,
        unit_id=unit_id,
        owner_id=owner_id,
        actor=actor if getattr(actor, "pk", None) else None,
        model=obj._meta.model_name or type(obj).__name__.lower(),
        object_id=obj.pk,
        action=action,
        before=before,
        after=after,
        batch=batch,
    )
