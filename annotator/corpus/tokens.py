"""Correcting a pair's tokens while nobody has annotated it.

Scopes, keys, word-alignment links and phrase alignments are token indices: once a person saved any of
them (or a pair label) on the pair, changing its tokens would make them point at other words, so a lead
corrects tokens only while the pair has no human annotation. What the machine derived from the tokens
follows them: automatic parse trees are parsed again for the new tokens (with the project language's
model; none where the language has no model), the aligner's initial alignment is dropped so the
identical-token matcher stands in until the aligner is trained again, and the suggestions are computed
from those on the fly. What was imported — trees from a PTB or native import, an imported initial
alignment — is dropped only when the lead says so (`drop_imported`).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from annotator import taskqueue
from annotator.core.statistical_aligner import is_automatic_source
from annotator.corpus import tree_parsing
from annotator.models import AlignmentLink, Pair, PairLabel, Phenomenon, PhraseAlignment

WHY = (
    "Tokens can be corrected while nobody has annotated the pair: phenomena scopes, keys and word "
    "links are stored as token positions, so changing the tokens afterwards would silently move them "
    "onto other words."
)
FOLLOW = (
    "Automatic parse trees are parsed again for the new tokens and the aligner's suggestion is replaced "
    "by the identical-token matcher until the aligner is trained again."
)


def annotation_count(pair: Pair) -> int:
    """Rows people saved on the pair (labels, phenomena, links, phrase alignments; gold included)."""
    return sum(
        model.objects.filter(pair=pair).count()
        for model in (PairLabel, Phenomenon, AlignmentLink, PhraseAlignment)
    )


def may_correct(pair: Pair) -> bool:
    return annotation_count(pair) == 0


def imported_trees(pair: Pair) -> bool:
    return bool((pair.tree1 or pair.tree2) and not pair.tree_source)


def imported_alignment(pair: Pair) -> bool:
    return pair.initial_alignment is not None and not is_automatic_source(pair.initial_alignment_source)


def imported_derivations(pair: Pair) -> list[str]:
    """What the pair holds that was imported and that new tokens would make wrong, in the lead's words."""
    said = []
    if imported_trees(pair):
        said.append("imported parse trees")
    if imported_alignment(pair):
        said.append("an imported initial alignment")
    return said


@transaction.atomic
def correct_tokens(
    pair: Pair, tokens1: list[str], tokens2: list[str], *, drop_imported: bool = False
) -> Pair:
    """Replace the members' tokens (whitespace-free, non-empty) and re-derive what was derived from them.

    Refused once a person annotated the pair, and — unless `drop_imported` — while the pair holds
    imported trees or an imported initial alignment (the message names them).
    """
    pair = Pair.objects.select_for_update().select_related("project").get(pk=pair.pk)
    if not may_correct(pair):
        raise ValidationError({"tokens1": WHY + f" This pair has {annotation_count(pair)} annotation rows."})
    errors = {}
    for field, tokens in (("tokens1", tokens1), ("tokens2", tokens2)):
        if not tokens:
            errors[field] = "A member needs at least one token."
        elif any(not t or any(c.isspace() for c in t) for t in tokens):
            errors[field] = "Tokens are separated by spaces and cannot be empty."
    if errors:
        raise ValidationError(errors)
    if list(tokens1) == pair.tokens1 and list(tokens2) == pair.tokens2:
        return pair
    imported = imported_derivations(pair)
    if imported and not drop_imported:
        raise ValidationError(
            {
                "drop_imported": f"This pair has {' and '.join(imported)}, whose leaves or links are the "
                "old tokens. Tick “Drop what was imported” to correct the tokens anyway (import them "
                "again afterwards), or leave the tokens as they are."
            }
        )
    had_trees = bool(pair.tree1 or pair.tree2)
    pair.tokens1, pair.tokens2 = list(tokens1), list(tokens2)
    pair.tree1 = pair.tree2 = pair.tree_source = ""
    pair.nodes1, pair.nodes2 = [], []
    pair.initial_alignment, pair.initial_alignment_source, pair.initial_alignment_version = None, "", None
    pair.save(
        update_fields=[
            "tokens1",
            "tokens2",
            "tree1",
            "tree2",
            "nodes1",
            "nodes2",
            "tree_source",
            "initial_alignment",
            "initial_alignment_source",
            "initial_alignment_version",
        ]
    )
    if had_trees and tree_parsing.has_model(pair.project):
        project_id, pair_id = pair.project_id, pair.pk
        transaction.on_commit(lambda: _reparse(project_id, pair_id))
    return pair


def _reparse(project_id: int, pair_id: int) -> None:
    try:
        taskqueue.enqueue("annotator.parse_pair_trees", project_id, [pair_id])
    except taskqueue.QueueUnavailable:
        pass  # the trees stay empty: "Parse missing trees" parses them


@transaction.atomic
def remove_automatic_trees(pair: Pair) -> int:
    """Remove the pair's automatic trees (imported ones stay); returns 1 when trees were removed."""
    return tree_parsing.remove_automatic_trees(pair.project, pair_ids=[pair.pk])["removed"]
