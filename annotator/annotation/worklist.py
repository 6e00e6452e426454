"""An annotator's queue of pairs: order, next / previous, postpone, mark done, time spent.

Queue order is the assignments' (round, queue_position, id). "Next" prefers open pairs (to do or in
progress) after the current one, then open pairs before it, and only then postponed ones, so a
postponed pair comes back once everything else is done. "Previous" is simply the pair before the
current one in queue order, whatever its status, so an annotator can revisit finished work.

Moving through the queue writes nothing to the project's data: opening, skipping or paging past a pair
changes no row, and postponing is kept in the annotator's session (`Postponed`), not in the
assignment. An assignment moves from to do to in progress when its annotator first saves an action on
the pair (`annotation.services`) and to done when they mark it done; those are the only writes.
"""

from __future__ import annotations

from collections.abc import Collection, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from annotator.agreement import record_change
from annotator.annotation import services as annotation_services
from annotator.core.aligner import suggested_alignment
from annotator.core.phrase_suggestions import suggested_phrase_alignment
from annotator.models import (
    AlignmentLink,
    Assignment,
    AssignmentCount,
    Pair,
    PairLabel,
    Phenomenon,
    PhraseAlignment,
    Project,
)

OPEN = (Assignment.Status.TODO, Assignment.Status.IN_PROGRESS)
MAX_TIME_STEP = 3600  # seconds accepted per report; a tab left open overnight is not work
TIME_SLACK = 60  # seconds between the page's last save and its time report (the beacon goes on leaving)
SESSION_KEY = "postponed_pairs"


class Postponed:
    """The pairs an annotator put aside, per project, kept in their session (never in the database).

    Postponing is a way of moving through the queue, like "next": it changes the order in which pairs
    come, not anybody's work, so it writes no assignment, no history and nothing an export holds.
    Assignments a former version marked postponed in the database count as postponed too.
    """

    def __init__(self, session: MutableMapping[str, Any], project_id: int) -> None:
        self.session = session
        self.key = str(project_id)

    def pair_ids(self) -> set[int]:
        return set(self.session.get(SESSION_KEY, {}).get(self.key, []))

    def _store(self, ids: set[int]) -> None:
        stored = dict(self.session.get(SESSION_KEY, {}))
        stored[self.key] = sorted(ids)
        if not ids:
            del stored[self.key]
        self.session[SESSION_KEY] = stored  # reassigned so the session notices the change

    def add(self, pair_id: int) -> None:
        self._store(self.pair_ids() | {pair_id})

    def discard(self, pair_id: int) -> None:
        ids = self.pair_ids()
        if pair_id in ids:
            self._store(ids - {pair_id})


@dataclass(frozen=True)
class QueueCounts:
    total: int
    done: int
    postponed: int
    #: how many assignments come before the one the counts were taken at (`queue_counts(current=…)`)
    before: int = 0
    #: whether that assignment is in this queue
    at_current: bool = False

    @property
    def position(self) -> int:
        """1-based position of the assignment the counts were taken at; 0 when it is not in the queue."""
        return self.before + 1 if self.at_current else 0

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


def status_in_queue(status: str, pair_id: int | None, postponed: Collection[int] = ()) -> str:
    """The status the queue shows: the assignment's, or postponed when the annotator put the unfinished
    pair aside in this session."""
    if pair_id in postponed and status != Assignment.Status.DONE:
        return Assignment.Status.POSTPONED
    return status


def queue_counts(
    user: Any, project: Project, postponed: Collection[int] = (), current: Assignment | None = None
) -> QueueCounts:
    """The queue's counts, read from the tallies the database keeps (`AssignmentCount`: one row per
    status, whatever the queue's length) plus the pairs put aside in this session (a look-up of those
    pairs only); with `current`, also how many assignments come before it (counted on the queue-order
    index up to it)."""
    by_status = pair_tallies(user, [project.pk]).get(project.pk, {})
    total = sum(by_status.values())
    done = by_status.get(Assignment.Status.DONE, 0)
    aside = by_status.get(Assignment.Status.POSTPONED, 0) + held_open(user, [project.pk], postponed).get(
        project.pk, 0
    )
    at_current = current is not None and _in_queue(user, project, current)
    before = 0
    if current is not None and at_current:
        before = pair_assignments(user, project).filter(_before(current)).order_by().count()
    return QueueCounts(total, done, aside, before, at_current)


def pair_tallies(user: Any, project_ids: list[int]) -> dict[int, dict[str, int]]:
    """Project id → status → how many of the user's pair assignments (any round) have it."""
    rows = (
        AssignmentCount.objects.filter(
            project_id__in=project_ids, annotator=user, kind=AssignmentCount.Kind.PAIRS
        )
        .values_list("project_id", "status")
        .annotate(n=Sum("n"))
        .order_by()
    )
    out: dict[int, dict[str, int]] = {}
    for project_id, status, n in rows:
        out.setdefault(project_id, {})[status] = int(n)
    return out


def held_open(user: Any, project_ids: list[int], held: Collection[int]) -> dict[int, int]:
    """Project id → how many of the pairs put aside in this session (`held`) are neither done nor
    postponed in the database: the queue counts them as postponed too."""
    if not held:
        return {}
    rows = (
        Assignment.objects.filter(project_id__in=project_ids, annotator=user, pair_id__in=sorted(held))
        .exclude(status__in=(Assignment.Status.DONE, Assignment.Status.POSTPONED))
        .values_list("project_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {project_id: n for project_id, n in rows}


def assignment_for(user: Any, pair: Pair) -> Assignment | None:
    """The user's current assignment for the pair (the latest round)."""
    return Assignment.objects.filter(annotator=user, pair=pair).order_by("-round", "-id").first()


def _in_queue(user: Any, project: Project, current: Assignment | None) -> bool:
    return (
        current is not None
        and current.pk is not None
        and current.project_id == project.pk
        and current.annotator_id == user.pk
        and current.pair_id is not None
    )


def _after(current: Assignment) -> Q:
    """The assignments after `current` in queue order (round, queue position, id)."""
    r, q, pk = current.round, current.queue_position, current.pk
    return Q(round__gt=r) | Q(round=r, queue_position__gt=q) | Q(round=r, queue_position=q, id__gt=pk)


def _before(current: Assignment) -> Q:
    r, q, pk = current.round, current.queue_position, current.pk
    return Q(round__lt=r) | Q(round=r, queue_position__lt=q) | Q(round=r, queue_position=q, id__lt=pk)


def next_pair_id(
    user: Any, project: Project, current: Assignment | None = None, postponed: Collection[int] = ()
) -> int | None:
    """The pair to annotate next: open pairs after, then before the current one, then postponed ones
    (after, then before). Each candidate is the first row of one status read through the queue-order
    index (`assignment_pair_queue`) from the current one on, so the cost does not grow with the queue."""
    held = sorted(postponed)
    queue = pair_assignments(user, project)
    if current is not None and _in_queue(user, project, current):
        sides = [_after(current), _before(current)]
    else:
        sides = [Q()]
    open_ = queue.exclude(pair_id__in=held)
    aside = [queue.filter(status=Assignment.Status.POSTPONED)]
    if held:
        aside.append(queue.filter(pair_id__in=held).exclude(status=Assignment.Status.DONE))
    for candidates in ([open_.filter(status=status) for status in OPEN], aside):
        for side in sides:
            found = [row for rows in candidates if (row := _first(rows.filter(side))) is not None]
            if found:
                return int(min(found)[3])
    return None


def _first(rows: Any) -> tuple[int, int, int, int] | None:
    """(round, queue position, id, pair id) of the first of `rows` in queue order, or None."""
    return rows.values_list("round", "queue_position", "id", "pair_id").first()


def queue_page(user: Any, project: Project, offset: int, limit: int) -> list[Assignment]:
    """`limit` of the user's pair assignments from `offset` on, in queue order, with their pairs. The
    offset is counted on the queue-order index alone (a subquery of ids); just the page's rows are read."""
    queue = pair_assignments(user, project)
    page = queue.values("id")[offset : offset + limit]
    return list(queue.filter(id__in=page).select_related("pair"))


def previous_pair_id(user: Any, project: Project, current: Assignment) -> int | None:
    if not _in_queue(user, project, current):
        return None
    found = pair_assignments(user, project).filter(_before(current)).values_list("pair_id", flat=True).last()
    return int(found) if found is not None else None


def queue_started(user: Any, project: Project, postponed: Collection[int] = ()) -> bool:
    """Whether the annotator has begun: any of their pairs is no longer to do (or put aside). One
    look-up per status on the (project, annotator, status) index."""
    queue = pair_assignments(user, project).order_by()
    begun = [s for s in Assignment.Status.values if s != Assignment.Status.TODO]
    return queue.filter(status__in=begun).exists() or (
        bool(postponed) and queue.filter(pair_id__in=sorted(postponed)).exists()
    )


def queue_position(user: Any, project: Project, current: Assignment | None) -> tuple[int, int]:
    """(1-based position of the current assignment (0 outside the queue), queue length), counted in
    the database."""
    counts = queue_counts(user, project, current=current)
    return counts.position, counts.total


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


def phrase_suggestions(pair: Pair, user: Any) -> tuple[list[tuple[int, int]], str]:
    """The automatic phrase alignments (tree-node pairs) the annotator has not made yet, and their source.

    Computed on the spot from the pair's word suggestions and its trees
    (`annotator.core.phrase_suggestions`); nothing is written until the annotator accepts them.
    """
    if not pair.project.layer_phrase_alignment:
        return [], ""
    pairs, source = suggested_phrase_alignment(pair)
    if not pairs:
        return [], source
    mine = set(
        PhraseAlignment.objects.filter(pair=pair, annotator=user, is_gold=False).values_list("node1", "node2")
    )
    return [p for p in pairs if p not in mine], source


def accept_phrase_suggestions(
    pair: Pair, user: Any, *, base_version: int | None, only: Sequence[tuple[int, int]] | None = None
) -> int:
    """The annotator accepts the phrase suggestions (all, or the ones in `only`) as their sure phrase
    alignments, in one save. Returns the new sheet version; accepting nothing is an error."""
    pending, _source = phrase_suggestions(pair, user)
    wanted = pending
    if only is not None:
        chosen = {(int(a), int(b)) for a, b in only}
        unknown = chosen - set(suggested_phrase_alignment(pair)[0])
        if unknown:
            n1, n2 = sorted(unknown)[0]
            raise ValidationError(
                {"node1": f"Nodes {n1}–{n2} are not a suggested phrase alignment of this pair."}
            )
        wanted = [p for p in pending if p in chosen]
    if not wanted:
        raise ValidationError({"node1": "There is no phrase suggestion left to accept."})
    return annotation_services.add_phrase_alignments(pair, user, wanted, sure=True, base_version=base_version)


def saved_within(assignment: Assignment, seconds: int) -> bool:
    """Whether the annotator saved an action on the pair, or marked it done, in the last `seconds`."""
    since = timezone.now() - timedelta(seconds=seconds + TIME_SLACK)
    if assignment.finished_at is not None and assignment.finished_at >= since:
        return True
    if assignment.pair_id is None:
        return False
    return PairLabel.objects.filter(
        pair_id=assignment.pair_id, annotator_id=assignment.annotator_id, is_gold=False, updated_at__gte=since
    ).exists()


def add_time_spent(assignment: Assignment, seconds: int) -> int:
    """Add the active seconds the editor measured (clipped to 0..MAX_TIME_STEP). Returns the total.

    Only a visit in which the annotator saved something on the pair (or marked it done) counts: time on a
    pair they only opened, looked at or paged past is not recorded, so moving through the queue changes
    no time and no export byte.
    """
    seconds = max(0, min(int(seconds), MAX_TIME_STEP))
    if seconds and saved_within(assignment, seconds):
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
            # the pair's row first, as every save takes it: the agreement sums read the pair's work
            list(Pair.objects.select_for_update().filter(pk=pair.pk).values_list("pk"))
            assignment.status = Assignment.Status.DONE
            assignment.finished_at = timezone.now()
            assignment.save(update_fields=["status", "finished_at"])
            # A done pair counts as word-aligned by its annotator even without links, and makes them
            # take part in the phenomena measures (annotator.agreement.document).
            record_change(
                pair.project_id,
                pair.pk,
                aligned_by=assignment.annotator_id,
                phenomena_of=assignment.annotator_id,
            )
    return problems
