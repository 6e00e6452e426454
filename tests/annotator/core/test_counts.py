"""The counts the database keeps (project sizes, assignment tallies) equal counting the rows, after
any sequence of the writes the workbench makes: bulk and single inserts, status and time updates,
deletions of assignments, pairs, units, users and whole projects (SQLite here, PostgreSQL in CI)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.core import counts, sql
from annotator.corpus import projects
from annotator.evaluation import services as evaluation
from annotator.models import (
    Assignment,
    AssignmentCount,
    EvaluationItem,
    EvaluationUnit,
    Pair,
    Project,
    ProjectSize,
)
from tests import make

pytestmark = pytest.mark.django_db

STATUSES = [s.value for s in Assignment.Status]


def counted_sizes() -> dict[int, tuple[int, int, int]]:
    """Per project with anything in it: (pairs, units, items), counted row by row."""
    pairs = Counter(Pair.objects.values_list("project_id", flat=True))
    units = Counter(EvaluationUnit.objects.values_list("project_id", flat=True))
    items = Counter(EvaluationItem.objects.values_list("unit__project_id", flat=True))
    ids = set(pairs) | set(units) | set(items)
    return {pk: (pairs[pk], units[pk], items[pk]) for pk in ids}


def stored_sizes() -> dict[int, tuple[int, int, int]]:
    return {s.project_id: (s.pairs, s.units, s.items) for s in ProjectSize.objects.all()}


def counted_tallies() -> dict[tuple[Any, ...], tuple[int, int]]:
    out: dict[tuple[Any, ...], list[int]] = {}
    for a in Assignment.objects.all():
        key = (
            a.project_id,
            a.annotator_id,
            "units" if a.pair_id is None else "pairs",
            a.phase,
            a.round,
            a.status,
            a.step,
        )
        row = out.setdefault(key, [0, 0])
        row[0] += 1
        row[1] += a.time_spent
    return {k: (n, s) for k, (n, s) in out.items()}


def stored_tallies() -> dict[tuple[Any, ...], tuple[int, int]]:
    return {
        (c.project_id, c.annotator_id, c.kind, c.phase, c.round, c.status, c.step): (c.n, c.seconds)
        for c in AssignmentCount.objects.all()
    }


def assert_counts_match() -> None:
    assert stored_sizes() == counted_sizes()
    assert stored_tallies() == counted_tallies()


class _Undo(Exception):
    """Raised to roll one generated example back."""


@pytest.fixture
def world() -> dict[str, Any]:
    c = make.cast()
    first = make.project_with_pairs("First", n_pairs=3, lead=c.lead, annotators=(c.anna, c.ben))
    second = make.project_with_pairs("Second", n_pairs=2, lead=c.lead, annotators=(c.ben,))
    evaluated = make.evaluation_project("Rated", n_units=2, raters=(c.anna, c.cat), lead=c.lead)
    return {"projects": [first, second, evaluated], "people": [c.anna, c.ben, c.cat]}


def _bulk_pairs(project: Project, n: int, tag: str) -> None:
    """Pairs stored the way an import stores them (`sql.insert_rows`: executemany or COPY)."""
    start = counts.n_pairs(project)
    sql.insert_rows(
        Pair,
        [
            {
                "project_id": project.pk,
                "source_id": f"{tag}{k}",
                "position": start + k,
                "text1": "a b",
                "text2": "a c",
                "tokens1": ["a", "b"],
                "tokens2": ["a", "c"],
                "corpus_labels": {},
                "tree1": "",
                "tree2": "",
                "nodes1": [],
                "nodes2": [],
                "initial_alignment": None,
                "initial_alignment_source": "",
                "initial_alignment_version": None,
                "tree_source": "",
            }
            for k in range(n)
        ],
    )


def apply(world: dict[str, Any], step: tuple[str, int, int, int], n: int) -> None:
    """One write: (what, which project, which person, a number), `n` the step's index."""
    what, p, who, k = step
    project = Project.objects.filter(pk=world["projects"][p].pk).first()
    person = world["people"][who]
    if project is None:  # deleted by an earlier step
        return
    assignments = Assignment.objects.filter(project=project)
    if what == "bulk pairs":
        _bulk_pairs(project, k + 1, f"s{n}-")
    elif what == "one pair":
        projects.add_pair(project, f"one{n}", tokens1=["x"], tokens2=["y"])
    elif what == "assign":
        pairs = list(Pair.objects.filter(project=project).exclude(assignments__annotator=person)[: k + 1])
        projects.assign_pairs(project, [person], pairs)
    elif what == "status":
        ids = list(assignments.order_by("pk").values_list("pk", flat=True)[k::2])
        Assignment.objects.filter(pk__in=ids).update(status=STATUSES[(n + k) % len(STATUSES)])
    elif what == "time":
        assignments.filter(annotator=person).update(time_spent=F("time_spent") + k + 1)
    elif what == "one save":
        one = assignments.order_by("pk").first()
        if one is not None:
            one.status, one.time_spent = STATUSES[k % len(STATUSES)], one.time_spent + 3
            one.save()
    elif what == "drop assignments":
        Assignment.objects.filter(
            pk__in=list(assignments.order_by("-pk").values_list("pk", flat=True)[: k + 1])
        ).delete()
    elif what == "drop pair":
        Pair.objects.filter(
            pk__in=list(Pair.objects.filter(project=project).values_list("pk", flat=True)[:1])
        ).delete()
    elif what == "unit":
        make.unit(project, f"g{n}", [(f"g{n}e{j}", "delayed", "lexicon-A") for j in range(k + 1)])
    elif what == "assign units":
        try:
            with transaction.atomic():
                evaluation.assign_units(project, [person], r=1, seed=n)
        except ValidationError:  # refused by the service (no evaluation layer, no units): no write
            pass
    elif what == "drop unit":
        EvaluationUnit.objects.filter(pk__in=list(project.units.values_list("pk", flat=True)[:1])).delete()
    elif what == "drop project":
        project.delete()
    elif what == "drop person" and who == 2:  # cat: not a lead of anything
        person.delete()
        world["people"][who] = make.user("cat")


STEPS = st.tuples(
    st.sampled_from(
        [
            "bulk pairs",
            "one pair",
            "assign",
            "status",
            "time",
            "one save",
            "drop assignments",
            "drop pair",
            "unit",
            "assign units",
            "drop unit",
            "drop project",
            "drop person",
        ]
    ),
    st.integers(0, 2),
    st.integers(0, 2),
    st.integers(0, 3),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEPS, max_size=12))
def test_the_stored_counts_equal_the_rows_after_any_writes(world, steps):
    assert_counts_match()  # filled in as the fixture's rows were written
    try:
        with transaction.atomic():
            for n, step in enumerate(steps):
                apply(world, step, n)
                assert_counts_match()
            raise _Undo
    except _Undo:
        pass
    assert_counts_match()  # rolled back with the rows


def test_a_deleted_project_and_user_leave_no_count_behind(world):
    first, second, evaluated = world["projects"]
    anna, ben, cat = world["people"]
    assert ProjectSize.objects.filter(project=first).exists()
    assert AssignmentCount.objects.filter(annotator=cat).exists()
    first.delete()
    evaluated.delete()
    cat.delete()
    assert not ProjectSize.objects.filter(project_id__in=[first.pk, evaluated.pk]).exists()
    assert not AssignmentCount.objects.filter(project_id__in=[first.pk, evaluated.pk]).exists()
    assert not AssignmentCount.objects.exclude(annotator_id__in=[anna.pk, ben.pk]).exists()
    assert counts.sizes(first).pairs == 0 and counts.n_pairs(second) == 2
    assert_counts_match()


def test_pages_read_the_counts_not_the_rows(world):
    """The member list, the progress and the pair count agree with the rows they summarize."""
    from annotator.agreement.computation import progress
    from annotator.evaluation.stats import rater_progress
    from annotator.projects.members import member_rows

    first, _, evaluated = world["projects"]
    anna, ben, cat = world["people"]
    Assignment.objects.filter(project=first, annotator=anna).update(status="done", time_spent=7)
    rows = {r.user.username: (r.open, r.done) for r in member_rows(first)}
    assert rows["anna"] == (0, 3) and rows["ben"] == (3, 0)
    anna_row = next(r for r in progress(first) if r["annotator"] == "anna")
    assert (anna_row["done"], anna_row["todo"], anna_row["time_spent"], anna_row["kind"]) == (
        3,
        0,
        21,
        "pairs",
    )
    raters = {r.rater: r for r in rater_progress(evaluated)}
    assert set(raters) == {"anna", "cat"} and raters["anna"].units == 2 and raters["anna"].finalized == 0
    assert counts.sizes(evaluated).units == 2 and counts.sizes(evaluated).items == 2 * 3


@pytest.mark.django_db(transaction=True)
def test_a_statement_that_changes_no_row_leaves_the_counts_alone(world):
    """PostgreSQL's count triggers fire once per statement, also for a statement that changed no row
    (every save's "put the assignment in progress" once it is): they return before touching the counts
    (migration 0039). Seen from another session holding the counts table: the statement that changes
    nothing does not wait for it, one that moves an assignment does."""
    from django.db import OperationalError, connection

    if connection.vendor != "postgresql":
        pytest.skip("the per-statement triggers are PostgreSQL's")
    first = world["projects"][0]
    anna = world["people"][0]
    todo, started = Assignment.objects.filter(project=first, annotator=anna).order_by("pk")[:2]
    Assignment.objects.filter(pk=started.pk).update(status=Assignment.Status.IN_PROGRESS)
    holder = connection.get_new_connection(connection.get_connection_params())
    try:
        with holder.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute(f"LOCK TABLE {AssignmentCount._meta.db_table} IN ACCESS EXCLUSIVE MODE")
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '300ms'")
        assert sql.start_assignment(started.pair_id, anna.pk, timezone.now()) == 0  # changes nothing
        with pytest.raises(OperationalError), transaction.atomic():
            sql.start_assignment(todo.pair_id, anna.pk, timezone.now())  # moves a count: waits for it
    finally:
        holder.rollback()
        holder.close()
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
    assert sql.start_assignment(todo.pair_id, anna.pk, timezone.now()) == 1
    assert_counts_match()
