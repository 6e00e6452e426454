"""Each hand-written statement of `annotator.core.sql` gives what its ORM equivalent gives.

The same tests run on SQLite (the default) and on PostgreSQL (with DATABASE_URL set); the
`*_on_postgresql` tests need it. Each builder's docstring shows the statement as rendered, and a test
holds the two equal, so the documentation cannot drift from the code.
"""

from __future__ import annotations

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core import checks
from django.db import connection, connections, transaction
from django.db.models import DateTimeField, Exists, F, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotator.annotation import services as annotation_services
from annotator.core import sql
from annotator.core.checks import returning_supported
from annotator.models import (
    AnnotationHistory,
    Assignment,
    Membership,
    Pair,
    PairLabel,
)
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(settings):
    return make.two_projects()


def _row(instance, skip=()):
    return {
        f.attname: getattr(instance, f.attname)
        for f in type(instance)._meta.concrete_fields
        if f.attname not in skip
    }


# ---- the sheet bump (UPDATE … RETURNING) ----------------------------------------------------------


def test_sheet_bump_returns_the_row_the_orm_reads_after_its_update(world):
    pair = world.pair
    annotation_services.set_pair_label(pair, world.anna, "paraphrase", base_version=None)
    before = PairLabel.objects.get(pair=pair, annotator=world.anna)
    now = timezone.now() + timedelta(seconds=5)
    with transaction.atomic():
        bumped = sql.bump_sheet(pair.pk, world.anna.pk, False, now)
    stored = PairLabel.objects.get(pk=before.pk)
    assert _row(bumped) == _row(stored)
    assert bumped.version == before.version + 1 and bumped.updated_at == now
    assert not bumped._state.adding and bumped._state.db == connection.alias

    later = now + timedelta(seconds=5)  # the ORM equivalent, two statements
    with transaction.atomic():
        mine = {"pair_id": pair.pk, "annotator_id": world.anna.pk, "is_gold": False}
        PairLabel.objects.filter(**mine).update(version=F("version") + 1, updated_at=later)
        by_orm = PairLabel.objects.select_for_update().get(**mine)
    assert by_orm.version == bumped.version + 1
    assert _row(by_orm, {"version", "updated_at"}) == _row(bumped, {"version", "updated_at"})


def test_sheet_bump_of_a_sheet_not_yet_there_is_none_as_the_orm_update_changes_nothing(world):
    with transaction.atomic():
        assert sql.bump_sheet(world.pair.pk, world.ben.pk, False, timezone.now()) is None
    updated = PairLabel.objects.filter(pair=world.pair, annotator=world.ben).update(version=F("version") + 1)
    assert updated == 0


def test_create_sheet_stores_what_get_or_create_stores_and_leaves_an_existing_sheet(world):
    now = timezone.now()
    with transaction.atomic():
        sql.create_sheet(world.pair.pk, world.anna.pk, False, now)
    created = PairLabel.objects.get(pair=world.pair, annotator=world.anna, is_gold=False)
    by_orm, made = PairLabel.objects.get_or_create(pair=world.pair, annotator=world.ben, is_gold=False)
    assert made
    skip = {"id", "annotator_id", "created_at", "updated_at"}
    assert _row(created, skip) == _row(by_orm, skip)
    assert created.created_at == created.updated_at == now
    annotation_services.set_pair_label(world.pair, world.anna, "paraphrase", base_version=None)
    saved = _row(PairLabel.objects.get(pk=created.pk))
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        sql.create_sheet(world.pair.pk, world.anna.pk, False, now + timedelta(seconds=5))
    assert _row(PairLabel.objects.get(pk=created.pk)) == saved  # there already: left as it was
    assert PairLabel.objects.filter(pair=world.pair, annotator=world.anna).count() == 1
    assert sum(not q["sql"].startswith(("SAVEPOINT", "RELEASE")) for q in queries.captured_queries) == 1


# ---- the annotator's assignment ---------------------------------------------------------------------


def _orm_start_assignment(pair_id, annotator_id, now):
    latest = Assignment.objects.filter(annotator_id=annotator_id, pair_id=pair_id).order_by("-round", "-id")
    todo, postponed = Assignment.Status.TODO, Assignment.Status.POSTPONED
    return Assignment.objects.filter(
        pk__in=Subquery(latest.values("pk")[:1]), status__in=(todo, postponed)
    ).update(
        status=Assignment.Status.IN_PROGRESS,
        started_at=Coalesce("started_at", Value(now, output_field=DateTimeField())),
    )


def test_start_assignment_moves_what_the_orm_update_moves(world):
    """Every status, started or not, with a later round of the same pair: the same count, the same rows."""
    pair, who = world.pair, world.anna
    Assignment.objects.create(project=world.project, annotator=who, pair=pair, round=1)
    mine = Assignment.objects.filter(pair=pair, annotator=who)
    assert mine.count() == 2
    earlier = timezone.now() - timedelta(hours=1)
    for status in Assignment.Status:
        for started in (None, earlier):
            mine.update(status=status, started_at=started)
            now = timezone.now()
            with transaction.atomic():
                by_orm = _orm_start_assignment(pair.pk, who.pk, now)
                orm_rows = [_row(a) for a in mine.order_by("pk")]
                transaction.set_rollback(True)
            assert sql.start_assignment(pair.pk, who.pk, now) == by_orm
            assert [_row(a) for a in mine.order_by("pk")] == orm_rows


# ---- who may annotate a pair ------------------------------------------------------------------------


def _orm_pair_for_annotation(user, pair_id):
    member = Membership.objects.filter(project=OuterRef("project_id"), user_id=user.pk)
    return (
        Pair.objects.select_related("project")
        .defer("project__description", "project__guidelines")
        .annotate(
            is_member=Exists(member),
            is_annotator=Exists(member.filter(role=Membership.Role.ANNOTATOR)),
            is_assigned=Exists(Assignment.objects.filter(pair=OuterRef("pk"), annotator_id=user.pk)),
        )
        .filter(pk=pair_id)
        .first()
    )


def test_pair_for_annotation_gives_the_orm_rows_and_facts_for_every_role(world):
    pair_ids = [world.pair.pk, world.other_project.pairs.first().pk, 10**9]
    for user in (world.anna, world.ben, world.lead, world.other_lead, world.admin, world.outsider):
        for pair_id in pair_ids:
            found, expected = (
                sql.pair_for_annotation(user.pk, pair_id),
                _orm_pair_for_annotation(user, pair_id),
            )
            if expected is None:
                assert found is None
                continue
            pair, *facts = found
            assert facts == [expected.is_member, expected.is_annotator, expected.is_assigned], (user, pair_id)
            assert _row(pair) == _row(expected)
            assert _row(pair.project, {"description", "guidelines"}) == _row(
                expected.project, {"description", "guidelines"}
            )
            assert pair.project.get_deferred_fields() == expected.project.get_deferred_fields()


# ---- bulk inserts -----------------------------------------------------------------------------------


def test_insert_rows_stores_what_bulk_create_stores(world):
    now = timezone.now()
    base = {
        "project_id": world.project.pk,
        "pair_id": world.pair.pk,
        "unit_id": None,
        "owner_id": world.anna.pk,
        "actor_id": None,
        "model": "phenomenon",
        "action": "create",
        "before": None,
        "after": {"scope1": [0, 2], "note": "ünï"},
        "batch": None,
        "reverts": None,
        "at": now,
    }
    sql.insert_rows(AnnotationHistory, [{**base, "object_id": 1}, {**base, "object_id": 2}])
    AnnotationHistory.objects.bulk_create(
        [AnnotationHistory(**{**base, "object_id": 101}), AnnotationHistory(**{**base, "object_id": 102})]
    )
    stored = {h.object_id: h for h in AnnotationHistory.objects.all()}
    rows = {n: _row(h, {"id", "object_id", "at"}) for n, h in stored.items()}  # bulk_create sets `at` itself
    assert rows[1] == rows[2] == rows[101] == rows[102]
    assert rows[1]["after"] == {"scope1": [0, 2], "note": "ünï"}
    assert stored[1].at == stored[2].at == now


# ---- what the ORM cannot say ------------------------------------------------------------------------


def test_advisory_locks_on_postgresql(postgres_required):
    assert sql.try_advisory_lock(4242, 7)
    sql.advisory_unlock(4242, 7)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7")
        assert cursor.fetchone()[0] == 0


def test_ping_answers():
    sql.ping()


def test_analyze_refreshes_the_planners_statistics_after_a_bulk_write_on_postgresql(postgres_required):
    from annotator.models import ExplorerValue

    table = ExplorerValue._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        before = cursor.fetchone()[0]
        assert not sql.analyze(ExplorerValue, sql.ANALYZE_FROM - 1)  # a small write: autovacuum's job
        assert sql.analyze(ExplorerValue, sql.ANALYZE_FROM)
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        after = cursor.fetchone()[0]
    # never analysed (-1), unless autovacuum got to it during the run → counted: the table is empty
    assert before in (-1, 0) and after == 0


def test_analyze_is_postgresql_only():
    if connection.vendor != "postgresql":
        assert not sql.analyze(Pair, 10**6)


# ---- the docstrings show the statements -------------------------------------------------------------

RENDERED = [
    (sql.bump_sheet_sql, ()),
    (sql.lock_pair_and_bump_sheet_sql, ()),
    (sql.create_sheet_sql, ()),
    (sql.start_assignment_sql, ()),
    (sql.pair_for_annotation_sql, ()),
    (sql.insert_rows_sql, (AnnotationHistory, ("project", "model"))),
]


def _rendered(doc: str) -> re.Pattern[str]:
    """The statement after the docstring's "Rendered …::", a "…" standing for any columns."""
    block = doc.split("Rendered", 1)[1].split("::", 1)[1]
    text = " ".join(block.split())
    return re.compile(re.escape(text).replace("…", ".*?") + r"\Z")


@pytest.mark.parametrize("builder, args", RENDERED, ids=[b.__name__ for b, _ in RENDERED])
def test_docstring_shows_the_statement_and_its_orm_equivalent(builder, args):
    doc = builder.__doc__
    assert "ORM equivalent" in doc
    assert _rendered(doc).match(builder(*args)), builder(*args)


def test_built_statements_are_cached_per_connection_alias_and_vendor(monkeypatch):
    builds = []

    @sql.statement
    def probe() -> str:
        builds.append(connection.vendor)
        return f"SELECT {sql.quote('x')}"

    assert probe() == probe() and len(builds) == 1
    other = SimpleNamespace(alias="other", vendor="othervendor", ops=connection.ops)
    monkeypatch.setattr(sql, "connection", other)
    probe()
    assert len(builds) == 2  # another alias and vendor: built again, not taken from the first
    monkeypatch.undo()
    probe()
    assert len(builds) == 2


# ---- the system check -------------------------------------------------------------------------------


def test_the_returning_check_is_registered_and_passes_here():
    assert returning_supported in checks.registry.registry.get_checks()
    assert returning_supported() == []


def test_the_returning_check_fails_without_returning(monkeypatch):
    features = connections["default"].features
    monkeypatch.setattr(features, "can_return_columns_from_insert", False)
    errors = returning_supported()
    assert [e.id for e in errors] == ["annotator.E001"]
    assert "cannot return rows from a write (UPDATE … RETURNING)" in errors[0].msg
    assert "SQLite 3.35" in errors[0].hint


def test_list_elements_are_the_stored_lists_elements_without_a_parameter_each():
    from annotator.models import Pair, ReannotationRound

    project = make.project_with_pairs("Lists", n_pairs=5)
    chosen = ["p5", "p2", "p3"]
    round_ = ReannotationRound.objects.create(
        project=project, round=1, rule="selected", seed=1, order=chosen, flagged=["p2"], fingerprint="x"
    )
    found = Pair.objects.filter(source_id__in=sql.list_elements(ReannotationRound, "order", round_.pk))
    assert sorted(found.values_list("source_id", flat=True)) == sorted(chosen)
    with CaptureQueriesContext(connection) as queries:
        list(found)
    assert "p5" not in queries.captured_queries[0]["sql"] and len(queries.captured_queries) == 1
    assert "ORM equivalent" in (sql.list_elements_sql.__doc__ or "")
