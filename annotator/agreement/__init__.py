"""Inter-annotator agreement. The rest of the app reaches it through these three functions:

- `record_change`: in the transaction of a save or import, what changed (the sums over pairs move by
  the difference there and then; the measures computed asynchronously are told to follow);
- `current_figures`: the project's current agreement, sums read as they are now;
- `rebuild`: the project's sums summed afresh from its annotations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from annotator.agreement.current import Current
    from annotator.models import Project

__all__ = ["current_figures", "rebuild", "record_change"]


def record_change(
    project_id: int,
    pair_id: int | None = None,
    *,
    label_of: tuple[int, str, str] | None = None,
    aligned_by: int | None = None,
    phenomena_of: int | None = None,
    phrases: bool = False,
    relabelled: bool = False,
) -> None:
    """Record, in the changing transaction, that the project's annotations changed.

    `pair_id`: the one pair that changed (None: anything may have changed). `label_of`: (annotator id,
    label before, label after) when the save set that annotator's pair label. `aligned_by`: the
    annotator whose word alignment of the pair the save may have changed (links, a finished
    assignment): the pair's part of the word-alignment sums is computed afresh. `phenomena_of`: the
    annotator whose phenomena of the pair the save may have changed (a phenomenon created, edited or
    deleted; a finished assignment, which makes them take part): the pair's part of the phenomena sums
    is computed afresh. `phrases`: the save may have changed the pair's (non-gold) phrase alignments:
    the pair's part of the ALIR/ALIP sums is computed afresh. `relabelled`: the annotations or
    automatic alignments of any pair may have changed (an import, a new automatic alignment): the sums
    are rebuilt.
    """
    import annotator.agreement.changes as changes
    import annotator.agreement.pair_parts as pair_parts
    import annotator.agreement.phenomena_parts as phenomena_parts
    import annotator.agreement.phrase_parts as phrase_parts
    import annotator.agreement.sums as sums

    if relabelled:
        sums.rebuild(project_id)
    elif pair_id is not None and label_of is not None:
        sums.label_changed(project_id, pair_id, *label_of)
    elif pair_id is not None:
        moved: dict[tuple[str, str, str], int] = {}
        if aligned_by is not None:
            moved.update(pair_parts.pair_changed(project_id, pair_id, aligned_by))
        if phenomena_of is not None:
            moved.update(phenomena_parts.pair_changed(project_id, pair_id, phenomena_of))
        if phrases:
            moved.update(phrase_parts.pair_changed(project_id, pair_id))
        sums.add(project_id, moved)
    changes.project_changed(project_id, pair_id)


def current_figures(project: Project | int) -> Current | None:
    """The project's current agreement (None before its first computation)."""
    import annotator.agreement.current as current

    return current.current(project)


def rebuild(project_id: int) -> int:
    """Sum the project's agreement sums afresh from its annotations; returns how many kept cells had
    drifted from them (0 normally)."""
    import annotator.agreement.sums as sums

    return sums.rebuild(project_id)
