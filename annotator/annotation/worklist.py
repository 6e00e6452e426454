"""An annotator's queue of pairs: order, next / previous, postpone, mark done, time spent.

Queue order is the assignments' (round, queue_position, id). "Next" prefers open pairs (to do or in
progress) after the current one, then open pairs before it, and only then postponed ones, so a
postponed pair comes back once everything else is done. "Previous" is simply the pair before the
current one in queue order, whatever its status, so an annotator can revisit finished work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from annotator.agreement.changes import project_changed
from annotator.annotation import services as annotation_services
from annotator.core.aligner import suggested_alignment
from annotator.models import AlignmentLink, Assignment, Pair, PairLabel, Phenomenon, Project

OPEN = (Assignment.Status.TODO, Assignment.Status.IN_PROGRESS)
MAX_TIME_STEP = 3600  # seconds accepted per report; a tab left open overnight is not work


@dataclass(frozen=True)
class QueueCounts:
    total: int
    done: int
    postponed: int

    @property
    def todo(self) -> int:
        return self.total - self.done - self.postponed

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0


def pair_assignments(user: Any, project: Project) -> Any:
    """The user's pair assignments in the project, in queue order."""
    return Assignment.objects.filter(project=project, annotator=user, pair__isnull=False).order_by(
        "round", "queue_position", "id"
    )


def queue_counts(user: Any, project: Project) -> QueueCounts:
    counts = pair_assignments(user, project).aggregate(
        total=Count("id"),
        done=Count("id", filter=Q(status=Assignment.Status.DONE)),
        postponed=Count("id", filter=Q(status=Assignment.Status.POSTPONED)),
    )
    return QueueCounts(counts["total"], counts["done"], counts["postponed"])


def assignment_for(user: Any, pair: Pair) -> Assignment | None:
    """The user's current assignment for the pair (the latest round)."""
    return Assignment.objects.filter(annotator=user, pair=pair).order_by("-round", "-id").first()


def _order(user: Any, project: Project) -> list[tuple[int, int, str]]:
    return list(pair_assignments(user, project).values_list("id", "pair_id", "status"))


def _after(rows: list[tuple[int, int, str]], current: Assignment | None) -> tuple[list, list]:
    """Split the queue into the rows after the current assignment and the rows before it."""
    if current is None:
        return rows, []
    at = next((n for n, row in enumerate(rows) if row[0] == current.pk), -1)
    return rows[at + 1 :], rows[:at] if at >= 0 else []


def next_pair_id(user: Any, project: Project, current: Assignment | None = None) -> int | None:
    """The pair to annotate next: open pairs after, then before the current one, then postponed ones."""
    rows = _order(user, project)
    after, before = _after(rows, current)
    for candidates in (after, before):
        for _, pair_id, status in candidates:
            if status in OPEN:
                return pair_id
    for _, pair_id, status in after + before:
        if status == Assignment.Status.POSTPONED:
            return pair_id
    return None


def previous_pair_id(user: Any, project: Project, current: Assignment) -> int | None:
    rows = _order(user, project)
    _, before = _after(rows, current)
    return before[-1][1] if before else None


def queue_position(user: Any, project: Project, current: Assignment | None) -> tuple[int, int]:
    """(1-based position of the current assignment, queue length)."""
    ids = list(pair_assignments(user, project).values_list("id", flat=True))
    position = ids.index(current.pk) + 1 if current is not None and current.pk in ids else 0
    return position, len(ids)


def open_assignment(assignment: Assignment) -> None:
    """The annotator opened the pair: to-do and postponed pairs become in progress."""
    if assignment.status in (Assignment.Status.TODO, Assignment.Status.POSTPONED):
        assignment.status = Assignment.Status.IN_PROGRESS
        assignment.started_at = assignment.started_at or timezone.now()
        assignment.save(update_fields=["status", "started_at"])


def suggestions(pair: Pair, user: Any) -> tuple[list[list[int]], str]:
    """The automatic links the annotator has not made yet (shown as suggestions), and their source.

    Nothing is written: the suggestions come from the pair's stored initial alignment or the
    identical-token fallback, and become the annotator's links only when they accept them.
    """
    if not pair.project.layer_word_alignment:
        return [], ""
    links, source = suggested_alignment(pair)
    mine = set(AlignmentLink.objects.filter(pair=pair, annotator=user, is_gold=False).values_list("i", "j"))
    return [link for link in links if tuple(link) not in mine], source


def accept_suggestions(
    pair: Pair, user: Any, *, base_version: int | None, only: Sequence[tuple[int, int]] | None = None
) -> int:
    """The annotator accepts the suggestions (all, or the ones in `only`) as their sure links.

    Only suggestions they have not linked yet are added, so a link they made possible stays possible.
    Returns the new sheet version; accepting nothing is an error said in their words.
    """
    pending, _source = suggestions(pair, user)
    wanted: list[tuple[int, int]] = [(i, j) for i, j in pending]
    if only is not None:
        chosen = {(i, j) for i, j in only}
        unknown = chosen - {tuple(link) for link in suggested_alignment(pair)[0]}
        if unknown:
            i, j = sorted(unknown)[0]
            raise ValidationError({"i": f"{i}–{j} is not a suggested link of this pair."})
        wanted = [link for link in wanted if link in chosen]
    if not wanted:
        raise ValidationError({"i": "There is no suggestion left to accept."})
    return annotation_services.set_links(pair, user, wanted, sure=True, base_version=base_version)


def postpone(assignment: Assignment) -> None:
    assignment.status = Assignment.Status.POSTPONED
    assignment.save(update_fields=["status"])


def add_time_spent(assignment: Assignment, seconds: int) -> int:
    """Add the active seconds the editor measured (clipped to 0..MAX_TIME_STEP). Returns the total."""
    seconds = max(0, min(int(seconds), MAX_TIME_STEP))
    if seconds:
        Assignment.objects.filter(pk=assignment.pk).update(time_spent=F("time_spent") + seconds)
        assignment.refresh_from_db(fields=["time_spent"])
    return assignment.time_spent


def completeness_problems(pair: Pair, user: Any) -> list[str]:
    """What keeps the annotator's work on the pair from being done, in words they act on."""
    project = pair.project
    sheet = PairLabel.objects.filter(pair=pair, annotator=user, is_gold=False).first()
    label = sheet.label if sheet else ""
    n_phenomena = Phenomenon.objects.filter(pair=pair, annotator=user, is_gold=False).count()
    problems: list[str] = []
    if project.layer_pair_label and not label:
        problems.append("Choose the pair label first: paraphrase or non-paraphrase.")
    if project.layer_phenomena:
        gated = project.phenomena_for == Project.PhenomenaFor.PARAPHRASES
        if gated and label == PairLabel.Label.NON_PARAPHRASE and n_phenomena:
            problems.append(
                f"The pair is labelled non-paraphrase but has {n_phenomena} phenomena: this project types "
                "paraphrases only, so delete them or change the label."
            )
        elif (not gated or label == PairLabel.Label.PARAPHRASE) and label and not n_phenomena:
            problems.append("Annotate at least one phenomenon (use Identical if the members do not differ).")
    return problems


def mark_done(assignment: Assignment, pair: Pair, user: Any) -> list[str]:
    """Run the completeness checks; when they pass, mark the assignment done. Returns the problems."""
    problems = completeness_problems(pair, user)
    if not problems:
        with transaction.atomic():
            assignment.status = Assignment.Status.DONE
            assignment.finished_at = timezone.now()
            assignment.save(update_fields=["status", "finished_at"])
            # A done pair counts as word-aligned by its annotator even without links (agreement.py).
            project_changed(pair.project_id, pair.pk)
    return problems
