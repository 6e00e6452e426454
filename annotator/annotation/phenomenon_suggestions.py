"""The recommender's phenomena suggestions in the editor: what an annotator is offered on a pair, and
their decisions on it.

`offered` is the current recommender version's suggestions for the pair (`recommender.suggestions`)
minus those the annotator rejected or corrected there; nothing is written. `accept` (as suggested, or with the
scopes the annotator corrected) and `accept_all` make offered suggestions the annotator's phenomena through `services.add_phenomenon` (the same checks, version and
history as a phenomenon drawn by hand) and record each as an accepted `SuggestionDecision`; `reject`
records a rejected one, which keeps it from being offered to that annotator on that pair again.
`rates` counts the decisions of a project per type for the lead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count

from annotator.annotation import recommender
from annotator.annotation import services as annotation_services
from annotator.models import Pair, Phenomenon, Project, SuggestionDecision

NOT_OFFERED = (
    "This suggestion is not offered on this pair any more (the recommender was retrained, or it was "
    "already accepted or rejected): reload the pair."
)


def suggestion_key(ptype_id: int, scope1: Sequence[int], scope2: Sequence[int]) -> str:
    """A suggestion's name in the page and in requests: ``type id|scope 1|scope 2`` (indices joined by
    commas), e.g. ``12|3,4|2``."""
    return f"{ptype_id}|{','.join(map(str, scope1))}|{','.join(map(str, scope2))}"


def offered(pair: Pair, annotator: Any) -> list[dict[str, Any]]:
    """The suggestions the annotator is offered on the pair: the recommender's (leaving out what they
    already annotated) minus those they rejected here and those they corrected into a phenomenon they
    still have (undoing the correction offers it again); each row also carries its ``key``."""
    rows = recommender.suggestions(pair, annotator)
    if not rows:
        return []
    decided = SuggestionDecision.objects.filter(pair=pair, annotator=annotator)
    rejected = {
        suggestion_key(ptype_id, s1, s2)
        for ptype_id, s1, s2 in (
            decided.filter(decision=SuggestionDecision.Decision.REJECTED)
            | decided.filter(decision=SuggestionDecision.Decision.CORRECTED, phenomenon__isnull=False)
        ).values_list("ptype_id", "scope1", "scope2")
    }
    out = []
    for row in rows:
        key = suggestion_key(row["ptype"].pk, row["scope1"], row["scope2"])
        if key not in rejected:
            out.append({**row, "key": key})
    return out


def _find(pair: Pair, annotator: Any, key: str) -> dict[str, Any]:
    for row in offered(pair, annotator):
        if row["key"] == key:
            return row
    raise ValidationError({"suggestion": NOT_OFFERED})


def _decide(
    pair: Pair, annotator: Any, row: dict[str, Any], decision: str, phenomenon: Phenomenon | None = None
) -> SuggestionDecision:
    run = recommender.current_run(pair.project)
    found, _ = SuggestionDecision.objects.update_or_create(
        pair=pair,
        annotator=annotator,
        ptype=row["ptype"],
        scope1=list(row["scope1"]),
        scope2=list(row["scope2"]),
        defaults={
            "decision": decision,
            "source": row["source"],
            "score": row["score"],
            "run": run,
            "phenomenon": phenomenon,
        },
    )
    return found


def _accept_row(
    pair: Pair,
    annotator: Any,
    row: dict[str, Any],
    projection: str,
    base_version: int | None,
    scopes: tuple[Sequence[int], Sequence[int]] | None = None,
) -> tuple[Phenomenon, int]:
    ptype = row["ptype"]
    scope1, scope2 = scopes if scopes is not None else (row["scope1"], row["scope2"])
    phenomenon, version = annotation_services.add_phenomenon(
        pair,
        annotator,
        ptype,
        scope1=scope1,
        scope2=scope2,
        projection=projection if ptype.projection_required else None,
        base_version=base_version,
    )
    same = (phenomenon.scope1, phenomenon.scope2) == (list(row["scope1"]), list(row["scope2"]))
    decision = SuggestionDecision.Decision.ACCEPTED if same else SuggestionDecision.Decision.CORRECTED
    _decide(pair, annotator, row, decision, phenomenon)
    return phenomenon, version


@transaction.atomic
def accept(
    pair: Pair,
    annotator: Any,
    key: str,
    *,
    projection: str = "",
    scopes: tuple[Sequence[int], Sequence[int]] | None = None,
    base_version: int | None,
) -> tuple[Phenomenon, int]:
    """Make the offered suggestion ``key`` the annotator's phenomenon (``projection`` for a type that
    needs one: the one chosen in the editor). With ``scopes`` (member 1, member 2) the annotator
    corrected its scopes: the phenomenon takes theirs, and the decision is "corrected" unless they are
    the suggestion's. Returns it with the new sheet version."""
    return _accept_row(pair, annotator, _find(pair, annotator, key), projection, base_version, scopes)


@transaction.atomic
def accept_all(
    pair: Pair, annotator: Any, *, projection: str = "", base_version: int | None
) -> tuple[list[Phenomenon], int]:
    """Accept every offered suggestion, in one transaction: all become the annotator's phenomena or,
    if one breaks a rule (e.g. a type that needs a projection when none is chosen), none does."""
    rows = offered(pair, annotator)
    if not rows:
        raise ValidationError({"suggestion": "No suggestions are left to accept on this pair."})
    made: list[Phenomenon] = []
    version = base_version
    for row in rows:
        try:
            phenomenon, version = _accept_row(pair, annotator, row, projection, version)
        except ValidationError as exc:
            raise ValidationError(
                {"suggestion": f"{row['ptype'].name}: {' '.join(exc.messages)} Nothing was accepted."}
            ) from exc
        made.append(phenomenon)
    assert version is not None  # at least one row was accepted
    return made, version


@transaction.atomic
def reject(pair: Pair, annotator: Any, key: str) -> SuggestionDecision:
    """Record that the annotator rejected the offered suggestion ``key``: it is not offered to them on
    this pair again. Nothing of their annotation changes."""
    return _decide(pair, annotator, _find(pair, annotator, key), SuggestionDecision.Decision.REJECTED)


def rates(project: Project) -> list[dict[str, Any]]:
    """Per type, from the project's stored decisions: how many suggestions annotators accepted as they
    were, accepted with other scopes (corrected) and rejected, and the share of each (``None`` when
    there were no decisions). Sorted by type name."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"accepted": 0, "corrected": 0, "rejected": 0})
    rows = (
        SuggestionDecision.objects.filter(pair__project=project)
        .values_list("ptype__name", "decision")
        .annotate(n=Count("id"))
        .order_by()
    )
    for name, decision, n in rows:
        counts[name][decision] += n
    out = []
    for name in sorted(counts):
        accepted, corrected, rejected = (counts[name][k] for k in ("accepted", "corrected", "rejected"))
        total = accepted + corrected + rejected
        out.append(
            {
                "type": name,
                "accepted": accepted,
                "corrected": corrected,
                "rejected": rejected,
                "decided": total,
                "acceptance": accepted / total if total else None,
                "correction": corrected / total if total else None,
                "rejection": rejected / total if total else None,
            }
        )
    return out
