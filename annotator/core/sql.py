"""Every hand-written SQL statement of the workbench, and the helpers that read their rows as models.

A statement is written by hand where the ORM cannot say it, or where compiling the ORM's query costs
a fifth or more of the request that runs it (measured with `bench/bench_editor.py`'s stack and
requests): the statements every editor request and save runs — may the user annotate this pair (the
access check, three EXISTS subqueries), lock the pair and bump the annotator's sheet in one
`UPDATE … RETURNING` (two or three statements in the ORM), move the annotator's assignment to in
progress, create a sheet on a first save (`INSERT … ON CONFLICT DO NOTHING`: one statement where
`get_or_create` takes three or four) — and
what the ORM cannot say: the bulk COPY of an import, PostgreSQL's advisory locks, ANALYZE, the
elements of a stored JSON list as a subquery. Everything else uses the ORM.

Each statement is built from the models' `_meta` (a renamed column or a new field cannot drift from
the models) by a builder whose docstring gives the ORM equivalent and the statement as rendered on
PostgreSQL and SQLite (both quote names with double quotes); `tests/annotator/core/test_sql.py` holds
each statement equal to its ORM equivalent on both databases and the docstrings equal to the
statements. Built statements are cached per connection alias and database vendor (`statement`), since
quoting belongs to the connection. Values pass through the same converters the ORM applies
(`from_db_value`, the backend's converters), and rows become model instances with `Model.from_db`,
exactly as a queryset would produce them. `UPDATE … RETURNING` needs SQLite ≥ 3.35 (a system check
in `annotator.core.checks` says so at start-up).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from django.db import connection, models
from django.db.models import Field, Model

from annotator.models import (
    Assignment,
    Membership,
    Pair,
    PairLabel,
    Project,
)

M = TypeVar("M", bound=Model)

Converter = Callable[[Any, Any, Any], Any]
Builder = TypeVar("Builder", bound=Callable[..., str])


def statement(build: Builder) -> Builder:
    """Cache a statement builder's text per (connection alias, vendor, arguments)."""
    built: dict[tuple[Any, ...], str] = {}

    @functools.wraps(build)
    def cached(*args: Any) -> str:
        key = (connection.alias, connection.vendor, *args)
        text = built.get(key)
        if text is None:
            text = built[key] = build(*args)
        return text

    cached.cache_clear = built.clear  # type: ignore[attr-defined]
    return cached  # type: ignore[return-value]


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model: type[Model]) -> str:
    return quote(model._meta.db_table)


def column(model: type[Model], name: str) -> str:
    """The quoted column of a field (by field name)."""
    return field_column(model._meta.get_field(name))  # type: ignore[arg-type]


def field_column(field: Field) -> str:
    """The quoted column of a concrete field (which always has one)."""
    return quote(str(field.column))


@functools.cache
def _fields(model: type[Model], names: tuple[str, ...] | None) -> tuple[Field, ...]:
    concrete = model._meta.concrete_fields
    if names is None:
        return tuple(concrete)
    wanted = set(names)
    unknown = wanted - {f.name for f in concrete} - {f.attname for f in concrete}
    if unknown:
        raise ValueError(f"{model.__name__}: no concrete field {sorted(unknown)[0]!r}")
    # Model.from_db takes a subset of the columns in concrete-field order.
    return tuple(f for f in concrete if f.name in wanted or f.attname in wanted)


def columns(model: type[Model], alias: str, names: Sequence[str] | None = None) -> str:
    """`alias."col1", alias."col2", …` of the model's concrete fields (or the named subset)."""
    return ", ".join(f"{alias}.{field_column(f)}" for f in _fields(model, _key(names)))


def _key(names: Sequence[str] | None) -> tuple[str, ...] | None:
    return tuple(names) if names is not None else None


_converter_cache: dict[tuple[Any, ...], tuple[tuple[Any, list[Converter]], ...]] = {}


def _converters(model: type[Model], names: tuple[str, ...] | None) -> tuple[tuple[Any, list[Converter]], ...]:
    """Per field: the column expression and the converters the ORM's compiler would apply to it
    (per connection alias and vendor: the backend's converters differ)."""
    key = (connection.alias, connection.vendor, model, names)
    found = _converter_cache.get(key)
    if found is None:
        out = []
        for field in _fields(model, names):
            col = field.get_col(model._meta.db_table)
            out.append((col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)))
        found = _converter_cache[key] = tuple(out)
    return found


def instance(model: type[M], values: Sequence[Any], names: Sequence[str] | None = None) -> M:
    """A model instance from a row of `columns(model, …, names)`; fields not selected stay deferred."""
    key = _key(names)
    converted = []
    for value, (col, converters) in zip(values, _converters(model, key), strict=True):
        for convert in converters:
            value = convert(value, col, connection)
        converted.append(value)
    fields = _fields(model, key)
    return model.from_db(connection.alias, [f.attname for f in fields], converted)


def width(model: type[Model], names: Sequence[str] | None = None) -> int:
    """How many columns `columns(model, …, names)` selects."""
    return len(_fields(model, _key(names)))


def fetch_one(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def execute(sql: str, params: Sequence[Any]) -> int:
    """Run a statement; the number of rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def _datetime(value: datetime) -> Any:
    return connection.ops.adapt_datetimefield_value(value)


# ---- the annotator's sheet --------------------------------------------------------------------------


@statement
def bump_sheet_sql() -> str:
    """Lock an annotator's sheet of a pair and bump its version, returning the whole row.

    ORM equivalent (two statements; the ORM has no UPDATE … RETURNING)::

        PairLabel.objects.filter(pair_id=p, annotator_id=a, is_gold=g).update(
            version=F("version") + 1, updated_at=now)
        PairLabel.objects.select_for_update().get(pair_id=p, annotator_id=a, is_gold=g)

    Rendered::

        UPDATE "annotator_pairlabel" SET "version" = "version" + 1, "updated_at" = %s
        WHERE "pair_id" = %s AND "annotator_id" = %s AND "is_gold" = %s
        RETURNING "id", "pair_id", "annotator_id", "is_gold", "version", "created_at", "updated_at",
        "label", "comment"
    """

    def col(name: str) -> str:
        return column(PairLabel, name)

    returning = ", ".join(field_column(f) for f in PairLabel._meta.concrete_fields)
    return (
        f"UPDATE {table(PairLabel)} SET {col('version')} = {col('version')} + 1, {col('updated_at')} = %s "
        f"WHERE {col('pair')} = %s AND {col('annotator')} = %s AND {col('is_gold')} = %s "
        f"RETURNING {returning}"
    )


@statement
def lock_pair_and_bump_sheet_sql() -> str:
    """`bump_sheet_sql` after locking the pair's row, in the same statement (PostgreSQL: a label save,
    whose agreement sums read the other annotators' labels of the pair in a later statement, so two
    annotators saving one pair at once are serialised and each sees the other's label).

    ORM equivalent (three statements)::

        Pair.objects.select_for_update().filter(pk=p).values_list("pk")
        PairLabel.objects.filter(pair_id=p, annotator_id=a, is_gold=g).update(
            version=F("version") + 1, updated_at=now)
        PairLabel.objects.select_for_update().get(pair_id=p, annotator_id=a, is_gold=g)

    Rendered::

        WITH "locked" AS (SELECT "id" FROM "annotator_pair" WHERE "id" = %s FOR UPDATE)
        UPDATE "annotator_pairlabel" SET "version" = "version" + 1, "updated_at" = %s
        WHERE "pair_id" = (SELECT "id" FROM "locked") AND "annotator_id" = %s AND "is_gold" = %s
        RETURNING "id", "pair_id", "annotator_id", "is_gold", "version", "created_at", "updated_at",
        "label", "comment"
    """
    pk = column(Pair, "id")
    where = f"WHERE {column(PairLabel, 'pair')} = %s "
    bump = bump_sheet_sql()
    assert where in bump
    locked = connection.ops.quote_name("locked")
    return f"WITH {locked} AS (SELECT {pk} FROM {table(Pair)} WHERE {pk} = %s FOR UPDATE) " + bump.replace(
        where, f"WHERE {column(PairLabel, 'pair')} = (SELECT {pk} FROM {locked}) "
    )


def bump_sheet(
    pair_id: int, annotator_id: int, is_gold: bool, now: datetime, *, lock_pair: bool = False
) -> PairLabel | None:
    """The sheet locked (until the transaction ends) at its new version; None when it does not exist.
    `lock_pair`: on PostgreSQL, lock the pair's row first (`lock_pair_and_bump_sheet_sql`)."""
    if lock_pair and connection.vendor == "postgresql":
        row = fetch_one(lock_pair_and_bump_sheet_sql(), [pair_id, _datetime(now), annotator_id, is_gold])
    else:
        row = fetch_one(bump_sheet_sql(), [_datetime(now), pair_id, annotator_id, is_gold])
    return None if row is None else instance(PairLabel, row)


@statement
def create_sheet_sql() -> str:
    """An annotator's empty sheet of a pair, unless it is there already (a save of another tab may have
    created it a moment ago).

    ORM equivalent (two statements, three more for the savepoint around the INSERT)::

        PairLabel.objects.get_or_create(pair_id=p, annotator_id=a, is_gold=g)

    Rendered::

        INSERT INTO "annotator_pairlabel" ("pair_id", "annotator_id", "is_gold", "version", "created_at",
        "updated_at", "label", "comment") VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
        ON CONFLICT ("pair_id", "annotator_id", "is_gold") DO NOTHING
    """
    fields = [f for f in PairLabel._meta.concrete_fields if not f.primary_key]
    unique = next(c for c in PairLabel._meta.constraints if c.name == "pairlabel_unique")
    keys = ", ".join(column(PairLabel, name) for name in unique.fields)  # type: ignore[attr-defined]
    return (
        f"INSERT INTO {table(PairLabel)} ({', '.join(field_column(f) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) ON CONFLICT ({keys}) DO NOTHING"
    )


def create_sheet(pair_id: int, annotator_id: int, is_gold: bool, now: datetime) -> None:
    """Create the annotator's sheet of the pair with the model's defaults (created and updated `now`)
    if it does not exist (`create_sheet_sql`)."""
    given: dict[str, Any] = {"pair_id": pair_id, "annotator_id": annotator_id, "is_gold": is_gold}
    values = []
    for f in PairLabel._meta.concrete_fields:
        if f.primary_key:
            continue
        if isinstance(f, models.DateTimeField) and (f.auto_now or f.auto_now_add):
            values.append(_datetime(now))
        else:
            value = given[f.attname] if f.attname in given else f.get_default()
            values.append(f.get_db_prep_save(value, connection))
    execute(create_sheet_sql(), values)


# ---- the annotator's assignment ---------------------------------------------------------------------


@statement
def start_assignment_sql() -> str:
    """The annotator's latest assignment of the pair (highest round, then id) moves from to do or
    postponed to in progress, keeping the time it first started (every non-gold save runs it).

    ORM equivalent::

        latest = Assignment.objects.filter(annotator_id=a, pair_id=p).order_by("-round", "-id").values("pk")
        Assignment.objects.filter(pk__in=Subquery(latest[:1]), status__in=(todo, postponed)).update(
            status=in_progress, started_at=Coalesce("started_at", Value(now)))

    Rendered::

        UPDATE "annotator_assignment" SET "status" = %s, "started_at" = COALESCE("started_at", %s)
        WHERE "id" = (SELECT u."id" FROM "annotator_assignment" u WHERE u."annotator_id" = %s
        AND u."pair_id" = %s ORDER BY u."round" DESC, u."id" DESC LIMIT 1) AND "status" IN (%s, %s)
    """

    def col(name: str) -> str:
        return column(Assignment, name)

    latest = (
        f"SELECT u.{col('id')} FROM {table(Assignment)} u WHERE u.{col('annotator')} = %s "
        f"AND u.{col('pair')} = %s ORDER BY u.{col('round')} DESC, u.{col('id')} DESC LIMIT 1"
    )
    return (
        f"UPDATE {table(Assignment)} SET {col('status')} = %s, "
        f"{col('started_at')} = COALESCE({col('started_at')}, %s) "
        f"WHERE {col('id')} = ({latest}) AND {col('status')} IN (%s, %s)"
    )


def start_assignment(pair_id: int, annotator_id: int, now: datetime) -> int:
    """How many assignments moved to in progress (0 or 1)."""
    status = Assignment.Status
    params = [status.IN_PROGRESS.value, _datetime(now), annotator_id, pair_id]
    return execute(start_assignment_sql(), [*params, status.TODO.value, status.POSTPONED.value])


# ---- who may annotate a pair -------------------------------------------------------------------------

PAIR_PROJECT_FIELDS = tuple(
    f.name for f in Project._meta.concrete_fields if f.name not in ("description", "guidelines")
)


@statement
def pair_for_annotation_sql() -> str:
    """A pair with its project (description and guidelines deferred) and the three facts the access
    rule needs: is the user a member of the project, a member as annotator, assigned the pair.

    ORM equivalent::

        member = Membership.objects.filter(project=OuterRef("project_id"), user_id=u)
        Pair.objects.select_related("project").defer("project__description", "project__guidelines")
        .annotate(
            is_member=Exists(member),
            is_annotator=Exists(member.filter(role=Membership.Role.ANNOTATOR)),
            is_assigned=Exists(Assignment.objects.filter(pair=OuterRef("pk"), annotator_id=u)),
        ).filter(pk=pair_id).first()

    Rendered (the pair's and the project's columns elided)::

        SELECT p."id", …, pr."id", …, EXISTS(SELECT 1 FROM "annotator_membership" m
        WHERE m."project_id" = p."project_id" AND m."user_id" = %s), EXISTS(SELECT 1 FROM
        "annotator_membership" m WHERE m."project_id" = p."project_id" AND m."user_id" = %s AND
        m."role" = %s), EXISTS(SELECT 1 FROM "annotator_assignment" a WHERE a."pair_id" = p."id" AND
        a."annotator_id" = %s) FROM "annotator_pair" p JOIN "annotator_project" pr ON pr."id" =
        p."project_id" WHERE p."id" = %s
    """
    membership = (
        f"SELECT 1 FROM {table(Membership)} m WHERE m.{column(Membership, 'project')} = "
        f"p.{column(Pair, 'project')} AND m.{column(Membership, 'user')} = %s"
    )
    assigned = (
        f"SELECT 1 FROM {table(Assignment)} a WHERE a.{column(Assignment, 'pair')} = p.{column(Pair, 'id')} "
        f"AND a.{column(Assignment, 'annotator')} = %s"
    )
    return (
        f"SELECT {columns(Pair, 'p')}, {columns(Project, 'pr', PAIR_PROJECT_FIELDS)}, "
        f"EXISTS({membership}), EXISTS({membership} AND m.{column(Membership, 'role')} = %s), "
        f"EXISTS({assigned}) "
        f"FROM {table(Pair)} p JOIN {table(Project)} pr ON pr.{column(Project, 'id')} = "
        f"p.{column(Pair, 'project')} WHERE p.{column(Pair, 'id')} = %s"
    )


def pair_for_annotation(user_id: int, pair_id: int) -> tuple[Pair, bool, bool, bool] | None:
    """The pair (its project loaded) and whether the user is a member, an annotator member and
    assigned the pair; None when there is no such pair."""
    params = [user_id, user_id, Membership.Role.ANNOTATOR, user_id, pair_id]
    row = fetch_one(pair_for_annotation_sql(), params)
    if row is None:
        return None
    n_pair, n_project = width(Pair), width(Project, PAIR_PROJECT_FIELDS)
    pair = instance(Pair, row[:n_pair])
    pair.project = instance(Project, row[n_pair : n_pair + n_project], PAIR_PROJECT_FIELDS)
    is_member, is_annotator, is_assigned = (bool(flag) for flag in row[n_pair + n_project :])
    return pair, is_member, is_annotator, is_assigned


# ---- the elements of a stored list ---------------------------------------------------------------------


def list_elements(model: type[Model], field: str, pk: int) -> Any:
    """The text elements of one row's JSON list, as a subquery for `__in` (`RawSQL`): a list of any
    length without a parameter per element (PostgreSQL takes at most 65,535 parameters a statement)."""
    from django.db.models.expressions import RawSQL

    return RawSQL(list_elements_sql(model, field), (pk,))


@statement
def list_elements_sql(model: type[Model], field: str) -> str:
    """The text elements of one row's JSON list field (strings, one row each).

    ORM equivalent (the list read into Python, then one parameter per element)::

        Pair.objects.filter(source_id__in=ReannotationRound.objects.get(pk=pk).order)

    Rendered for a re-annotation round's queue (`list_elements_sql(ReannotationRound, "order")`),
    on PostgreSQL and on SQLite::

        SELECT jsonb_array_elements_text(t."order") FROM "annotator_reannotationround" t WHERE t."id" = %s
    """
    name, key = column(model, field), column(model, model._meta.pk.name)
    if connection.vendor == "postgresql":
        return f"SELECT jsonb_array_elements_text(t.{name}) FROM {table(model)} t WHERE t.{key} = %s"
    return f"SELECT e.value FROM {table(model)} t, json_each(t.{name}) e WHERE t.{key} = %s"


# ---- bulk inserts of an import ----------------------------------------------------------------------


@statement
def insert_rows_sql(model: type[Model], names: tuple[str, ...]) -> str:
    """One row of the named fields, for `executemany`.

    ORM equivalent::

        model.objects.bulk_create([model(**row) for row in rows])

    Rendered for history rows of the fields project and model (an import gives every field)::

        INSERT INTO "annotator_annotationhistory" ("project_id", "model") VALUES (%s, %s)
    """
    cols = ", ".join(column(model, name) for name in names)
    return f"INSERT INTO {table(model)} ({cols}) VALUES ({', '.join(['%s'] * len(names))})"


def insert_rows(model: type[Model], rows: Sequence[dict[str, Any]]) -> None:
    """INSERT plain rows (field name → value): one executemany (SQLite), one COPY (PostgreSQL).

    Used for pairs and history rows, the bulk of an import: profiling the MRPC import showed Django's
    bulk_create spending four times as long preparing values as the database spent storing them. Values
    are adapted as bulk_create would (JSON and datetimes through the backend's adapters); no model
    instances, no pks returned, no defaults filled in (give every column).
    """
    if not rows:
        return
    names = tuple(rows[0])
    fields = [model._meta.get_field(name) for name in names]
    ops = connection.ops
    adapters: dict[int, Callable[[Any], Any]] = {}
    for n, f in enumerate(fields):
        if isinstance(f, models.JSONField):
            adapters[n] = lambda value: None if value is None else ops.adapt_json_value(value, None)
        elif isinstance(f, models.DateTimeField):
            adapters[n] = ops.adapt_datetimefield_value
    values = [
        tuple(adapters[n](row[name]) if n in adapters else row[name] for n, name in enumerate(names))
        for row in rows
    ]
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.executemany(insert_rows_sql(model, names), values)
            return
        # PostgreSQL: one COPY, so that the statement-level triggers keeping the project's counts
        # (migration 0018) run once, not once per row as they would for an executemany
        cols = ", ".join(column(model, name) for name in names)
        with cursor.cursor.copy(f"COPY {table(model)} ({cols}) FROM STDIN") as copy:
            for row in values:
                copy.write_row(row)


# ---- what the ORM cannot say ------------------------------------------------------------------------


def try_advisory_lock(kind: int, key: int) -> bool:
    """PostgreSQL: take the session-level advisory lock (kind, key) if free (no ORM equivalent)."""
    row = fetch_one("SELECT pg_try_advisory_lock(%s, %s)", [kind, key])
    return bool(row and row[0])


def advisory_unlock(kind: int, key: int) -> None:
    """PostgreSQL: release the session-level advisory lock (kind, key)."""
    fetch_one("SELECT pg_advisory_unlock(%s, %s)", [kind, key])


def advisory_lock_held(kind: int, key: int) -> bool:
    """PostgreSQL: whether a session of this database holds the advisory lock (kind, key) (reads only;
    no ORM equivalent)."""
    row = fetch_one(
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND classid::bigint = %s AND objid::bigint = %s AND objsubid = 2)",
        [kind, key],
    )
    return bool(row and row[0])


def ping() -> None:
    """One round trip to the database (the health probe); raises when it does not answer."""
    fetch_one("SELECT 1", [])


#: Rows written at once from which `analyze` refreshes the planner's statistics.
ANALYZE_FROM = 10_000


def analyze(model: type[Model], written: int) -> bool:
    """PostgreSQL: refresh the planner's statistics of `model`'s table after `written` rows were
    written at once (from ANALYZE_FROM up; ANALYZE samples the table, a fraction of a second at a
    million rows). Until autovacuum gets to it, the planner would take the table for what it was
    before — empty, after a first bulk load — and choose plans that read every row. True when run."""
    if connection.vendor != "postgresql" or written < ANALYZE_FROM:
        return False
    execute(f"ANALYZE {table(model)}", [])
    return True
