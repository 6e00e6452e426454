"""Model rows read with hand-written SQL, for the few statements every annotation save runs.

Compiling an ORM query costs about 0.5–1 ms of CPU here (more with subqueries), several times what
PostgreSQL needs to answer it; a save ran six of them. The statements of the save path (who the token
belongs to, may the user annotate this pair, is the type in the project's tagset, lock and bump the
annotator's sheet) are written once below as SQL built from the models' `_meta`, so a renamed column
or a new field cannot drift from the models. Values pass through the same converters the ORM applies
(`from_db_value`, the backend's converters), and rows become model instances with `Model.from_db`,
exactly as a queryset would produce them. Works on PostgreSQL and SQLite (≥ 3.35 for RETURNING).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Field, ForeignObjectRel, Model

M = TypeVar("M", bound=Model)

Converter = Callable[[Any, Any, Any], Any]


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model: type[Model]) -> str:
    return quote(model._meta.db_table)


def column(field: Field | ForeignObjectRel) -> str:
    """The quoted column of a concrete field (a reverse relation or a column-less field has none)."""
    if isinstance(field, ForeignObjectRel) or field.column is None:
        raise ValueError(f"{field!r} has no column")
    return quote(field.column)


@cache
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
    return ", ".join(f"{alias}.{column(f)}" for f in _fields(model, _key(names)))


def _key(names: Sequence[str] | None) -> tuple[str, ...] | None:
    return tuple(names) if names is not None else None


@cache
def _converters(
    model: type[Model], names: tuple[str, ...] | None, vendor: str
) -> tuple[tuple[Any, list[Converter]], ...]:
    """Per field: the column expression and the converters the ORM's compiler would apply to it."""
    out = []
    for field in _fields(model, names):
        col = field.get_col(model._meta.db_table)
        out.append((col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)))
    return tuple(out)


def instance(model: type[M], values: Sequence[Any], names: Sequence[str] | None = None) -> M:
    """A model instance from a row of `columns(model, …, names)`; fields not selected stay deferred."""
    key = _key(names)
    converted = []
    for value, (col, converters) in zip(values, _converters(model, key, connection.vendor), strict=True):
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


def select(model: type[M], where: Mapping[str, Any], *, order_by: Sequence[str] | None = None) -> list[M]:
    """`model.objects.filter(**where)` for equality on fields (a model instance stands for its key),
    ordered like the model's `Meta.ordering` unless `order_by` (field names, no "-") says otherwise."""
    order = tuple(order_by) if order_by is not None else _field_ordering(model)
    params = [value.pk if isinstance(value, Model) else value for value in where.values()]
    with connection.cursor() as cursor:
        cursor.execute(_select_sql(model, tuple(where), order), params)
        return [instance(model, row) for row in cursor.fetchall()]


@cache
def _field_ordering(model: type[Model]) -> tuple[str, ...]:
    """The model's `Meta.ordering`, which must name fields (no expressions)."""
    names = []
    for name in model._meta.ordering or ():
        if not isinstance(name, str):
            raise ValueError(f"{model.__name__}: ordering by an expression is not supported here ({name!r})")
        names.append(name)
    return tuple(names)


@cache
def _select_sql(model: type[Model], where: tuple[str, ...], order: tuple[str, ...]) -> str:
    def col(name: str) -> str:
        return f"t.{column(model._meta.get_field(name))}"

    if any(name.startswith("-") for name in order):
        raise ValueError(f"{model.__name__}: descending order is not supported here ({order})")
    sql = f"SELECT {columns(model, 't')} FROM {table(model)} t"
    if where:
        sql += " WHERE " + " AND ".join(f"{col(name)} = %s" for name in where)
    if order:
        sql += " ORDER BY " + ", ".join(col(name) for name in order)
    return sql


def insert(obj: M) -> M:
    """Save a new instance with one hand-written INSERT … RETURNING, as `Model.objects.create` would.

    Field values go through `pre_save` (auto_now / auto_now_add set on the instance) and
    `get_db_prep_save` (JSON, datetimes, foreign keys), as in Django's own insert; the key the database
    gives comes back into the instance, which is then no longer `adding`. Only for models without a
    save() override or signal receivers (the annotation rows and their history), where it is the same.
    """
    model = type(obj)
    meta = model._meta
    fields = tuple(f for f in meta.concrete_fields if not (f.primary_key and getattr(obj, f.attname) is None))
    values = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    row = fetch_one(_insert_sql(model, tuple(f.attname for f in fields)), values)
    if row is None:  # pragma: no cover - RETURNING always gives the row
        raise RuntimeError(f"{model.__name__}: INSERT returned no key")
    setattr(obj, meta.pk.attname, row[0])
    obj._state.adding = False
    obj._state.db = connection.alias
    return obj


@cache
def _insert_sql(model: type[Model], attnames: tuple[str, ...]) -> str:
    by_attname = {f.attname: f for f in model._meta.concrete_fields}
    cols = ", ".join(column(by_attname[name]) for name in attnames)
    marks = ", ".join(["%s"] * len(attnames))
    pk = column(model._meta.pk)
    return f"INSERT INTO {table(model)} ({cols}) VALUES ({marks}) RETURNING {pk}"
