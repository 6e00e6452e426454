"""Correcting a pair's tokens before anyone annotates it.

Scopes, keys, word-alignment links and phrase alignments are token indices: once a pair carries any
of them (or parse trees whose leaves are the tokens), changing its tokens would make them point at
other words. So a lead corrects tokens only while the pair has no annotation and no tree.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.models import AlignmentLink, Pair, PairLabel, Phenomenon, PhraseAlignment

WHY = (
    "Tokens can be corrected only before anyone annotates the pair: phenomena scopes, keys and word "
    "links are stored as token positions, so changing the tokens afterwards would silently move them "
    "onto other words."
)


def annotation_count(pair: Pair) -> int:
    return sum(
        model.objects.filter(pair=pair).count()
        for model in (PairLabel, Phenomenon, AlignmentLink, PhraseAlignment)
    )


def may_correct(pair: Pair) -> bool:
    return annotation_count(pair) == 0 and not pair.tree1 and not pair.tree2


@transaction.atomic
def correct_tokens(pair: Pair, tokens1: list[str], tokens2: list[str]) -> Pair:
    """Replace the members' tokens (whitespace-free, non-empty); refused once the pair is annotated."""
    pair = Pair.objects.select_for_update().get(pk=pair.pk)
    if not may_correct(pair):
        raise ValidationError(
            {
                "tokens1": WHY
                + f" This pair has {annotation_count(pair)} annotation rows"
                + (" and parse trees." if pair.tree1 or pair.tree2 else ".")
            }
        )
    errors = {}
    for field, tokens in (("tokens1", tokens1), ("tokens2", tokens2)):
        if not tokens:
            errors[field] = "A member needs at least one token."
        elif any(not t or any(c.isspace() for c in t) for t in tokens):
            errors[field] = "Tokens are separated by spaces and cannot be empty."
    if errors:
        raise ValidationError(errors)
    pair.tokens1, pair.tokens2 = list(tokens1), list(tokens2)
    pair.initial_alignment = None if pair.initial_alignment else pair.initial_alignment
    pair.save(update_fields=["tokens1", "tokens2", "initial_alignment"])
    return pair
