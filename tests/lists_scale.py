"""A project of any size made in a few statements, and the cost of one request to each list on it.

`big_project(n)` inserts n pairs and their disagreement-explorer rows with one INSERT … SELECT each
(`generate_series` on PostgreSQL, a recursive CTE on SQLite) — no Python object per pair — so a
1,000,000-pair project takes seconds. `request_cost(client, url)` is (queries, rows fetched) of one
GET: the rows every query handed to Python, counted at the cursor.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.test.utils import CaptureQueriesContext

from annotator.core import sql
from annotator.leadtools import explorer_rows
from annotator.models import (
    Assignment,
    EvaluationUnit,
    ExplorerState,
    ExplorerValue,
    Pair,
    Project,
    ReannotationRound,
)
from tests import make

TYPE = "Same polarity"
ROW = (
    '{"annotators": ["anna", "ben"], "labels": {}, "do_f1": {"anna|ben": 0.5}, "do_f1_by_type": {}, '
    '"alignment_f1": {}, "types": [], "label_disagreement": false, "score": 0.5}'
)


def _numbers(n: int) -> str:
    """A FROM clause giving column `n` = 1..n."""
    if connection.vendor == "postgresql":
        return f"generate_series(1, {int(n)}) AS seq(n)"
    return f"(WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < {int(n)}) SELECT n FROM seq) AS seq"


def _insert_pairs(project: Project, n: int) -> None:
    columns, values, params = [], [], []
    for field in Pair._meta.concrete_fields:
        if field.primary_key:
            continue
        columns.append(connection.ops.quote_name(field.column))
        if field.name == "project":
            values.append("%s")
            params.append(project.pk)
        elif field.name == "source_id":
            values.append("'b' || CAST(seq.n AS TEXT)")
        elif field.name == "position":
            values.append("seq.n")
        elif field.name in ("text1", "text2"):
            values.append(f"'Sentence {field.name[-1]} of pair ' || CAST(seq.n AS TEXT)")
        elif field.name in ("tokens1", "tokens2"):
            values.append("%s")
            params.append('["a", "b"]')
        else:
            default = field.get_default()
            values.append("%s")
            params.append(
                connection.ops.adapt_json_value(default, None)
                if field.get_internal_type() == "JSONField" and default is not None
                else default
            )
    table = connection.ops.quote_name(Pair._meta.db_table)
    statement = f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(values)} FROM {_numbers(n)}"
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def _insert_values(project: Project, annotators: str, ptype: str, every: int, with_row: bool) -> None:
    """Explorer rows for every `every`-th pair: DO F1 spread over [0, 1) (none on every 10th pair),
    labels agreeing on odd positions and differing on even ones; the all/all rows with their draw
    ranks (`explorer_rows.DrawRanks`: every pair compared, by source id; by labels; by DO F1)."""
    table = connection.ops.quote_name(ExplorerValue._meta.db_table)
    pairs = connection.ops.quote_name(Pair._meta.db_table)
    collation = '"C"' if connection.vendor == "postgresql" else "BINARY"
    by_source = f"source_id COLLATE {collation}"
    whole = not annotators and not ptype
    ranks = (
        f"ROW_NUMBER() OVER (ORDER BY {by_source}) - 1, "
        f"ROW_NUMBER() OVER (ORDER BY labels, {by_source}) - 1, "
        "CASE WHEN do_f1 IS NULL THEN NULL ELSE "
        f"ROW_NUMBER() OVER (PARTITION BY do_f1 IS NULL ORDER BY do_f1, {by_source}) - 1 END"
        if whole
        else "NULL, NULL, NULL"
    )
    statement = (
        f"INSERT INTO {table} (project_id, pair_id, {connection.ops.quote_name('order')}, source_rank, "
        "compared_rank, label_rank, do_f1_rank, annotators, ptype, do_f1, alignment_f1, labels, row) "
        f"SELECT project_id, id, position, ROW_NUMBER() OVER (ORDER BY {by_source}) - 1, {ranks}, "
        "%s, %s, do_f1, NULL, labels, " + ("%s" if with_row else "NULL") + " FROM ("
        "SELECT p.project_id, p.id, p.position, p.source_id, "
        "CASE WHEN p.position %% 10 = 0 THEN NULL ELSE ((p.position %% 1000) * 7919 %% 1000) / 1000.0 END "
        "AS do_f1, CAST(p.position %% 2 AS REAL) AS labels "
        f"FROM {pairs} p WHERE p.project_id = %s AND p.position %% %s = 0) AS v"
    )
    params = [annotators, ptype, *([ROW] if with_row else []), project.pk, every]
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def assign_all(project: Project, annotator: Any) -> None:
    """Every pair of the project in the annotator's first-pass queue, in position order; every third
    one done."""
    from django.utils import timezone

    columns, values, params = [], [], []
    for field in Assignment._meta.concrete_fields:
        if field.primary_key:
            continue
        columns.append(connection.ops.quote_name(field.column))
        if field.name in ("project", "annotator"):
            values.append("%s")
            params.append(project.pk if field.name == "project" else annotator.pk)
        elif field.name == "pair":
            values.append("p.id")
        elif field.name == "queue_position":
            values.append("p.position")
        elif field.name == "status":
            values.append("CASE WHEN p.position %% 3 = 0 THEN %s ELSE %s END")
            params += [Assignment.Status.DONE, Assignment.Status.TODO]
        elif field.name == "created_at":
            values.append("%s")
            params.append(timezone.now())
        else:
            values.append("%s")
            params.append(field.get_default())
    table = connection.ops.quote_name(Assignment._meta.db_table)
    pairs = connection.ops.quote_name(Pair._meta.db_table)
    statement = f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(values)} FROM {pairs} p WHERE p.project_id = %s"
    with connection.cursor() as cursor:
        cursor.execute(statement, [*params, project.pk])


def _insert_from(
    model: Any, source: str, values: dict[str, tuple[str, list[Any]]], params: list[Any]
) -> None:
    """INSERT INTO model's table SELECT … FROM `source`: the given SQL per field, defaults elsewhere."""
    from django.utils import timezone

    columns, selected, all_params = [], [], []
    for field in model._meta.concrete_fields:
        if field.primary_key:
            continue
        columns.append(connection.ops.quote_name(field.column))
        sql, field_params = values.get(field.name) or ("%s", [_default(field, timezone.now())])
        selected.append(sql)
        all_params += field_params
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(selected)} FROM {source}",
            [*all_params, *params],
        )


def _default(field: Any, now: Any) -> Any:
    if getattr(field, "auto_now_add", False) or getattr(field, "auto_now", False):
        return now
    default = field.get_default()
    if field.get_internal_type() == "JSONField" and default is not None:
        return connection.ops.adapt_json_value(default, None)
    return default


def rated_units(project: Project, rater: Any, n: int, *, again_every: int = 0) -> None:
    """n evaluation units in the project, all in the rater's first-round queue in position order: every
    third one finalized, every seventh (not finalized) postponed, the rest to do; with `again_every`,
    every such unit also in their re-evaluation round (round 1), with the same statuses."""
    _insert_from(
        EvaluationUnit,
        _numbers(n),
        {
            "project": ("%s", [project.pk]),
            "source_id": ("'r' || CAST(seq.n AS TEXT)", []),
            "position": ("seq.n", []),
            "source_sentence": ("'The price went up by ' || CAST(seq.n AS TEXT)", []),
            "phrase": ("'went up'", []),
            "phrase_start": ("10", []),
            "phrase_end": ("17", []),
        },
        [],
    )
    for round, every in ((0, 1), (1, again_every)):
        if every:
            _unit_assignments(project, rater, round, every)


def _unit_assignments(project: Project, rater: Any, round: int, every: int) -> None:
    units = connection.ops.quote_name(EvaluationUnit._meta.db_table)
    status = "CASE WHEN u.position %% 3 = 0 THEN %s WHEN u.position %% 7 = 0 THEN %s ELSE %s END"
    _insert_from(
        Assignment,
        f"{units} u WHERE u.project_id = %s AND u.position %% %s = 0",
        {
            "project": ("%s", [project.pk]),
            "annotator": ("%s", [rater.pk]),
            "unit": ("u.id", []),
            "round": ("%s", [round]),
            "queue_position": ("u.position", []),
            "status": (status, [Assignment.Status.DONE, Assignment.Status.POSTPONED, Assignment.Status.TODO]),
            "step": (
                "CASE WHEN u.position %% 3 = 0 THEN %s ELSE %s END",
                [Assignment.Step.FINALIZED, Assignment.Step.GRAMMATICALITY],
            ),
        },
        [project.pk, every],
    )


def big_project(n: int, name: str = "Big") -> Project:
    """Lena's project of n pairs (anna, ben, cat annotate it) with stored explorer rows for all of
    them (all annotators, anna|ben, and the type "Same polarity" on every third pair), current, and
    one re-annotation round of three pairs."""
    c = make.cast()
    project = make.project_with_pairs(name, n_pairs=0, lead=c.lead, annotators=c.annotators)
    _insert_pairs(project, n)
    _insert_values(project, "", "", 1, True)
    _insert_values(project, "anna|ben", "", 1, False)
    _insert_values(project, "", TYPE, 3, False)
    sql.analyze(ExplorerValue, n)  # as explorer_rows.refresh does after storing the rows
    counts: dict[str, Any] = {}
    for annotators, ptype in (("", ""), ("anna|ben", ""), ("", TYPE)):
        rows = ExplorerValue.objects.filter(project=project, annotators=annotators, ptype=ptype)
        counts.setdefault(annotators, {})[ptype] = {
            "total": rows.count(),
            "do_f1": rows.filter(do_f1__isnull=False).count(),
            "alignment_f1": 0,
            "labels": rows.count(),
        }
    ReannotationRound.objects.create(
        project=project,
        round=1,
        rule=ReannotationRound.Rule.SELECTED,
        params={"pairs": ["b2", "b3", "b4"]},
        seed=1,
        flagged=["b2", "b3", "b4"],
        order=["b3", "b2", "b4"],
        fingerprint="synthetic",
    )
    ExplorerState.objects.create(
        project=project,
        source=explorer_rows.source_mark(project),
        annotator_pairs=["anna|ben"],
        types=[TYPE],
        counts=counts,
        n_compared=n,
        n_labels_differ=n // 2,
    )
    return project


@contextmanager
def rows_fetched() -> Iterator[list[int]]:
    """Counts the rows the database cursor hands over (fetchone / fetchmany / fetchall) in the block."""
    seen = [0]
    originals = {}

    def counting(name: str) -> Any:
        def fetch(self: CursorWrapper, *args: Any) -> Any:
            result = getattr(self.cursor, name)(*args)
            seen[0] += (result is not None) if name == "fetchone" else len(result)
            return result

        return fetch

    for name in ("fetchone", "fetchmany", "fetchall"):
        originals[name] = CursorWrapper.__dict__.get(name)
        setattr(CursorWrapper, name, counting(name))
    try:
        yield seen
    finally:
        for name, original in originals.items():
            if original is None:
                delattr(CursorWrapper, name)
            else:
                setattr(CursorWrapper, name, original)


def request_cost(client: Any, url: str) -> tuple[int, int, list[str]]:
    """(queries, rows fetched, the SQL) of one GET of `url`, which must answer 200."""
    with CaptureQueriesContext(connection) as queries, rows_fetched() as rows:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries), rows[0], [q["sql"] for q in queries.captured_queries]


def list_urls(project: Project) -> dict[str, str]:
    """Every list page and endpoint of a project's pairs and lead tools, with filters and page 2.

    Measured on their own: the re-annotation page, whose preview needs a rule and a seed
    (tests/annotator/leadtools/test_reannotation_scale.py), and the rater's queue, which needs units
    (`rated_units`), and the planner, whose preview reads a stored plan that a task computes first
    (tests/annotator/leadtools/test_planner_scale.py).
    The annotator's queue is measured on its own (it needs assignments; see `assign_all`)."""
    from urllib.parse import quote

    from django.urls import reverse

    explorer = reverse("annotator:explorer", args=[project.pk])
    api_explorer = reverse("api-explorer-list", kwargs={"project_pk": project.pk})
    first = ExplorerValue.objects.filter(project=project, annotators="", ptype="").order_by("order").first()
    assert first is not None
    return {
        "explorer": explorer,
        "explorer page 2": explorer + "?page=2",
        "explorer by labels": explorer + "?measure=labels&page=2",
        "explorer anna|ben": explorer + "?annotators=" + quote("anna|ben") + "&page=2",
        "explorer by type": explorer + "?type=" + quote(TYPE) + "&page=2",
        "explorer htmx-free API": api_explorer,
        "explorer API page 2": api_explorer + "?page=2",
        "explorer API anna|ben by type": api_explorer
        + "?page=2&measure=labels&annotators="
        + quote("anna|ben"),
        "explorer pair": reverse("annotator:explorer-pair", args=[project.pk, first.pair_id]),
        "explorer pair API": reverse(
            "api-explorer-detail", kwargs={"project_pk": project.pk, "pair_pk": first.pair_id}
        ),
        "pairs": reverse("annotator:pair-list", args=[project.pk]) + "?page=2",
        "pairs API": reverse("api-pair-list") + f"?project={project.pk}&page=2",
        "re-annotation rounds API": reverse("api-reannotation-list", kwargs={"project_pk": project.pk}),
        "jobs API": reverse("api-job-list"),
        "snapshots API": reverse("api-snapshot-list") + f"?project={project.pk}",
        "members": reverse("annotator:project-members", args=[project.pk]),
        "systems": reverse("annotator:corpus-systems", args=[project.pk]),
        "evaluation setup": reverse("annotator:evaluation-setup", args=[project.pk]),
        "rating queue": reverse("annotator:rating-queue", args=[project.pk]),
    }
