"""Importing corpora: the write side shared by `manage.py import_corpus`, the web upload and the Celery job.

`import_corpus(format, project_name, files)` parses the files with the pure importers of
`annotator.imports`, checks the records against the database (pairs that exist, tokens, types) and
writes them with bulk inserts. By default it is all-or-nothing: everything happens inside one
transaction, and if any record is invalid nothing is written and every problem is in the report.
With `skip_invalid=True` every valid record is written and each invalid one is listed as skipped with
its reason. A dry run does all the work and rolls it back, so the report says exactly what would be
created, repaired and skipped. Re-importing the same file changes nothing: pairs match on their
source id, annotations on their content.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, models, transaction
from django.db.models import F
from django.utils import timezone

from .. import validation
from ..imports import etpc, mrpc, pharaoh, ptb, units
from ..imports.problems import ImportReport, Parsed, Problem
from ..imports.records import PairRecord, PhenomenonRecord
from ..models import (
    AlignmentLink,
    AnnotationHistory,
    EvaluationUnit,
    Membership,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
    Tagset,
)
from ..recompute import project_changed
from ..tagsets import ETPC_NAME, PALETTE
from ..trees import TreeError, tree_nodes

FORMATS = ("mrpc", "etpc", "native", "ptb", "pharaoh", "units")
BATCH = 1000
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]
Source = tuple[str, bytes]
FileLike = str | Path | tuple[str, bytes] | BinaryIO


class ImportCancelled(Exception):
    """The user cancelled the import; the transaction is rolled back."""


class ImportFailed(Exception):
    """Raised inside the transaction to roll it back when problems were found."""


def read_sources(paths_or_files: Iterable[FileLike]) -> list[Source]:
    """(name, bytes) of each path, (name, bytes) tuple or open binary file (uploads)."""
    sources: list[Source] = []
    for item in paths_or_files:
        if isinstance(item, tuple):
            sources.append((item[0], item[1]))
        elif isinstance(item, str | Path):
            sources.append((Path(item).name, Path(item).read_bytes()))
        else:
            name = Path(getattr(item, "name", "upload")).name
            data = item.read()
            sources.append((name, data.encode() if isinstance(data, str) else data))
    return sources


@dataclass
class Context:
    """One import run: the project, options, the report, and the helpers every format uses."""

    project: Project
    report: ImportReport
    annotator_name: str | None
    actor: Any
    progress: Progress | None = None
    cancelled: Cancelled | None = None
    done: int = 0
    total: int = 0
    changed: bool = False
    users: dict[str, Any] = field(default_factory=dict)

    def take(self, parsed: Parsed[Any]) -> list[Any]:
        """Account for a parser's findings; return its valid records."""
        self.report.problems += parsed.fatal
        if self.report.skip_invalid:
            self.report.skipped += parsed.invalid
        else:
            self.report.problems += parsed.invalid
        self.report.repaired += parsed.repaired
        return parsed.records

    def invalid(self, problem: Problem) -> None:
        """A record that cannot be imported: skipped under --skip-invalid, a problem otherwise."""
        (self.report.skipped if self.report.skip_invalid else self.report.problems).append(problem)

    def step(self, n: int = 1) -> None:
        self.done += n
        if self.cancelled is not None and self.cancelled():
            raise ImportCancelled
        if self.progress is not None:
            self.progress(self.done, max(self.total, self.done))

    def annotator(self, name: str | None = None) -> Any:
        """The named annotator (created with an unusable password if new), a member of the project."""
        name = name or self.annotator_name or ""
        if name not in self.users:
            self.users[name] = ensure_annotator(self.project, name)
        return self.users[name]


def ensure_user(username: str) -> Any:
    """The user with this name; created with an unusable password (they log in once an admin sets one)."""
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(username=username)
        user.set_unusable_password()
        user.save()
    return user


def ensure_annotator(project: Project, username: str) -> Any:
    user = ensure_user(username)
    Membership.objects.get_or_create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    return user


# ---- pairs ------------------------------------------------------------------------------------------


def write_pairs(ctx: Context, records: Sequence[PairRecord]) -> None:
    """Create the pairs that are new; an existing source id with the same texts is left as it is."""
    existing = {
        source_id: (text1, text2)
        for source_id, text1, text2 in Pair.objects.filter(project=ctx.project).values_list(
            "source_id", "text1", "text2"
        )
    }
    new: list[dict[str, Any]] = []
    for record in records:
        have = existing.get(record.source_id)
        if have is None:
            try:
                nodes = [
                    tree_nodes(tree, tokens) if tree else []
                    for tree, tokens in ((record.tree1, record.tokens1), (record.tree2, record.tokens2))
                ]
            except TreeError as exc:
                ctx.invalid(Problem(record.file, record.line, "tree", f"pair {record.source_id}: {exc}"))
                continue
            existing[record.source_id] = (record.text1, record.text2)
            new.append(
                {
                    "project_id": ctx.project.pk,
                    "source_id": record.source_id,
                    "position": record.position,
                    "text1": record.text1,
                    "text2": record.text2,
                    "tokens1": record.tokens1,
                    "tokens2": record.tokens2,
                    "corpus_labels": record.corpus_labels,
                    "tree1": record.tree1,
                    "tree2": record.tree2,
                    "nodes1": nodes[0],
                    "nodes2": nodes[1],
                    "initial_alignment": record.initial_alignment,
                    "initial_alignment_source": record.initial_alignment_source,
                    "initial_alignment_version": None,
                    "tree_source": "",
                }
            )
        elif have == (record.text1, record.text2):
            ctx.report.unchanged["pairs"] += 1
        else:
            ctx.invalid(
                Problem(
                    record.file,
                    record.line,
                    "source_id",
                    f"pair {record.source_id} already exists in {ctx.project.name} with other text",
                )
            )
    for start in range(0, len(new), BATCH):
        insert_rows(Pair, new[start : start + BATCH])
        ctx.step(len(new[start : start + BATCH]))
    ctx.report.created["pairs"] += len(new)


def insert_rows(model: type[models.Model], rows: Sequence[dict[str, Any]]) -> None:
    """INSERT plain rows (field name → value) with one executemany.

    Used for pairs and history rows, the bulk of an import: profiling the MRPC import showed Django's
    bulk_create spending four times as long preparing values as the database spent storing them. Values
    are adapted as bulk_create would (JSON and datetimes through the backend's adapters); no model
    instances, no pks returned, no defaults filled in (give every column).
    """
    if not rows:
        return
    names = list(rows[0])
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
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({placeholders})", values)


def import_mrpc(ctx: Context, sources: Sequence[Source]) -> None:
    parsed: Parsed[PairRecord] = Parsed()
    for name, data in sources:
        parsed.extend(mrpc.parse_mrpc(data, name))
    records = ctx.take(parsed)
    if ctx.report.problems:
        return
    ctx.total = len(records)
    write_pairs(ctx, records)


# ---- ETPC -------------------------------------------------------------------------------------------


def etpc_tagset(ctx: Context, records: Sequence[etpc.TypeRecord]) -> Tagset:
    """The built-in ETPC tagset, with the typology file's names and categories (new types added)."""
    tagset = Tagset.objects.get(name=ETPC_NAME)
    types = {t.code: t for t in tagset.types.all()}
    for record in records:
        ptype = types.get(record.code)
        if ptype is None:
            position = len(types)
            types[record.code] = ParaphraseType.objects.create(
                tagset=tagset,
                code=record.code,
                name=record.name,
                type_class=record.category,
                keys_allowed=True,
                colour=PALETTE[position % len(PALETTE)],
                position=position,
            )
            ctx.report.created["types"] += 1
        elif (ptype.name, ptype.type_class) != (record.name, record.category or ptype.type_class):
            ptype.name, ptype.type_class = record.name, record.category or ptype.type_class
            ptype.save(update_fields=["name", "type_class"])
            ctx.report.created["type updates"] += 1
        else:
            ctx.report.unchanged["types"] += 1
    return tagset


def use_tagset(ctx: Context, tagset: Tagset, where: str) -> bool:
    project = ctx.project
    if project.tagset_id is None:
        project.tagset = tagset
        project.save(update_fields=["tagset"])
    elif project.tagset_id != tagset.pk:
        ctx.report.problems.append(
            Problem(
                where,
                None,
                "tagset",
                f"project {project.name} uses the tagset {project.tagset.name!r}, not {tagset.name!r}",
            )
        )
        return False
    return True


def _classify(ctx: Context, sources: Sequence[Source]) -> dict[str, list[tuple[str, Any]]]:
    kinds: dict[str, list[tuple[str, Any]]] = {"mrpc": [], "types": [], "pairs": [], "relations": []}
    for name, data in sources:
        if not data.lstrip().startswith(b"<"):
            kinds["mrpc"].append((name, data))
            continue
        root, problems = etpc.read_xml(data, name)
        kind = etpc.kind_of(root) if root is not None else None
        if root is not None and kind is None:
            problems = [
                Problem(
                    name,
                    None,
                    "xml",
                    f"not an ETPC file: expected <paraphrase_type>, <pair> or "
                    f"<relation> elements, found <{next(iter(root), root).tag}>",
                )
            ]
        ctx.report.problems += problems
        if kind:
            kinds[kind].append((name, root))
    return kinds


def import_etpc(ctx: Context, sources: Sequence[Source]) -> None:
    """Typology, pairs (text_pairs.xml or the MRPC files) and relation files, in that order."""
    kinds = _classify(ctx, sources)
    if ctx.report.problems:
        return
    types: Parsed[etpc.TypeRecord] = Parsed()
    for name, root in kinds["types"]:
        types.extend(etpc.parse_types(root, name))
    tagset = etpc_tagset(ctx, ctx.take(types))
    if not use_tagset(ctx, tagset, kinds["relations"][0][0] if kinds["relations"] else "ETPC"):
        return
    pairs: Parsed[PairRecord] = Parsed()
    for name, root in kinds["pairs"]:
        pairs.extend(etpc.parse_text_pairs(root, name))
    for name, data in kinds["mrpc"]:
        pairs.extend(mrpc.parse_mrpc(data, name))
    pair_records = ctx.take(pairs)
    ctx.total = len(pair_records) + sum(len(root) for _, root in kinds["relations"])
    write_pairs(ctx, pair_records)
    if not kinds["relations"]:
        return
    pair_rows = list(
        Pair.objects.filter(project=ctx.project).values_list("pk", "source_id", "tokens1", "tokens2")
    )
    tokens = {source_id: (t1, t2) for _, source_id, t1, t2 in pair_rows}
    pair_pks = {source_id: pk for pk, source_id, _, _ in pair_rows}
    by_code = {t.code: t for t in tagset.types.all()}
    for name, root in kinds["relations"]:
        records = ctx.take(etpc.parse_relations(root, name, tokens, by_code))
        write_phenomena(ctx, records, pair_pks, by_code, ctx.annotator(ctx.annotator_name or "etpc"))
        ctx.step(len(root))


def _phenomenon_key(pair_id: int, ptype_id: int, p: Any) -> tuple[Any, ...]:
    return (
        pair_id,
        ptype_id,
        tuple(p.scope1),
        tuple(p.scope2),
        p.projection or "",
        tuple(p.key1),
        tuple(p.key2),
        p.sense_preserving,
    )


def write_phenomena(
    ctx: Context,
    records: Sequence[PhenomenonRecord],
    pair_pks: dict[str, int],
    types: dict[str, ParaphraseType],
    user: Any,
    *,
    is_gold: bool = False,
) -> list[Phenomenon]:
    """Bulk-create the phenomena an annotator does not have yet (as a multiset: duplicates in a file stay)."""
    have = Counter(
        _phenomenon_key(p.pair_id, p.ptype_id, p)
        for p in Phenomenon.objects.filter(pair__project=ctx.project, annotator=user, is_gold=is_gold)
    )
    new: list[Phenomenon] = []
    for record in records:
        pair_id, ptype = pair_pks[record.pair], types[record.type_code]
        key = _phenomenon_key(pair_id, ptype.pk, record)
        if have[key] > 0:
            have[key] -= 1
            ctx.report.unchanged["phenomena"] += 1
            continue
        new.append(
            Phenomenon(
                pair_id=pair_id,
                annotator=user,
                is_gold=is_gold,
                ptype=ptype,
                scope1=record.scope1,
                scope2=record.scope2,
                projection=record.projection or "",
                key1=record.key1,
                key2=record.key2,
                sense_preserving=record.sense_preserving,
                comment=record.comment,
            )
        )
    Phenomenon.objects.bulk_create(new, batch_size=BATCH)
    ctx.report.created["phenomena"] += len(new)
    record_created(ctx, new, "phenomenon", user, PHENOMENON_SNAPSHOT)
    return new


PHENOMENON_SNAPSHOT = ["ptype_id", "scope1", "scope2", "projection", "key1", "key2", "comment"]


def record_created(
    ctx: Context, objects: Sequence[Any], model: str, owner: Any, fields: Sequence[str]
) -> None:
    """History rows for imported annotations (bulk), newer sheet versions, and one recompute at the end."""
    if not objects:
        return
    actor_id = getattr(ctx.actor, "pk", None)
    now = timezone.now()
    rows = [
        {
            "project_id": ctx.project.pk,
            "pair_id": obj.pair_id,
            "unit_id": None,
            "owner_id": owner.pk,
            "actor_id": actor_id,
            "model": model,
            "object_id": obj.pk,
            "action": AnnotationHistory.Action.CREATE,
            "before": None,
            "after": {name: getattr(obj, name) for name in fields},
            "at": now,
        }
        for obj in objects
    ]
    for start in range(0, len(rows), BATCH):
        insert_rows(AnnotationHistory, rows[start : start + BATCH])
    pair_ids = {obj.pair_id for obj in objects}
    PairLabel.objects.filter(pair_id__in=pair_ids, annotator=owner).update(version=F("version") + 1)
    ctx.changed = True


# ---- entry point ------------------------------------------------------------------------------------


# ---- parse trees, word alignments, evaluation units -----------------------------------------------


def _pairs_by_source_id(ctx: Context, source_ids: Iterable[str]) -> dict[str, Pair]:
    return {p.source_id: p for p in Pair.objects.filter(project=ctx.project, source_id__in=set(source_ids))}


def import_ptb(ctx: Context, sources: Sequence[Source]) -> None:
    """Attach trees to existing pairs (leaves checked against the member's tokens)."""
    parsed: Parsed[ptb.TreeRecord] = Parsed()
    for name, data in sources:
        parsed.extend(ptb.parse_ptb(data, name))
    records = ctx.take(parsed)
    pairs = _pairs_by_source_id(ctx, (r.pair for r in records))
    aligned = set(
        PhraseAlignment.objects.filter(pair__in=list(pairs.values())).values_list("pair_id", flat=True)
    )
    changed: dict[int, Pair] = {}
    for record in records:
        pair = pairs.get(record.pair)
        where = Problem(record.file, record.line, "tree", "")
        if pair is None:
            ctx.invalid(
                replace(where, field="pair", message=f"pair {record.pair}: no such pair in the project")
            )
            continue
        tokens = pair.tokens1 if record.member == 1 else pair.tokens2
        try:
            nodes = tree_nodes(record.tree, tokens)
        except TreeError as exc:
            ctx.invalid(replace(where, message=f"pair {record.pair} member {record.member}: {exc}"))
            continue
        if getattr(pair, f"tree{record.member}") == record.tree:
            ctx.report.unchanged["trees"] += 1
            continue
        if pair.pk in aligned:
            ctx.invalid(
                replace(
                    where,
                    message=f"pair {record.pair} has phrase alignments on its current trees; "
                    "replacing a tree would move their nodes",
                )
            )
            continue
        setattr(pair, f"tree{record.member}", record.tree)
        setattr(pair, f"nodes{record.member}", nodes)
        pair.tree_source = ""  # an imported tree: automatic parsing never replaces it
        changed[pair.pk] = pair
        ctx.report.created["trees"] += 1
    Pair.objects.bulk_update(
        list(changed.values()), ["tree1", "tree2", "nodes1", "nodes2", "tree_source"], batch_size=BATCH
    )


def import_pharaoh(ctx: Context, sources: Sequence[Source]) -> None:
    """Word alignments of one annotator (or, with annotator "initial", the pairs' initial alignments)."""
    if not ctx.annotator_name:
        ctx.report.problems.append(
            Problem(
                sources[0][0],
                None,
                "annotator",
                "say whose alignments these are "
                "(--annotator NAME, or 'initial' for the initial automatic alignment)",
            )
        )
        return
    parsed: Parsed[pharaoh.AlignmentRecord] = Parsed()
    for name, data in sources:
        parsed.extend(pharaoh.parse_pharaoh(data, name))
    records = ctx.take(parsed)
    pairs = _pairs_by_source_id(ctx, (r.pair for r in records))
    valid: list[tuple[Pair, pharaoh.AlignmentRecord]] = []
    for record in records:
        pair = pairs.get(record.pair)
        if pair is None:
            ctx.invalid(
                Problem(record.file, record.line, "pair", f"pair {record.pair}: no such pair in the project")
            )
            continue
        try:
            for i, j, _ in record.links:
                validation.link_fields(i, j, pair.tokens1, pair.tokens2)
        except ValidationError as exc:
            field, messages = next(iter(exc.message_dict.items()))
            ctx.invalid(
                Problem(record.file, record.line, "links", f"pair {record.pair}: {field}: {messages[0]}")
            )
            continue
        valid.append((pair, record))
    if ctx.annotator_name == INITIAL:
        _write_initial_alignments(ctx, valid)
    else:
        _write_links(ctx, valid, ctx.annotator())


INITIAL = "initial"


def _write_initial_alignments(ctx: Context, valid: list[tuple[Pair, pharaoh.AlignmentRecord]]) -> None:
    changed = []
    for pair, record in valid:
        if any(not sure for _, _, sure in record.links):
            ctx.invalid(
                Problem(
                    record.file,
                    record.line,
                    "links",
                    f"pair {record.pair}: an initial alignment has "
                    "sure links only (i-j), not possible ones (i?j)",
                )
            )
            continue
        links = sorted({(i, j) for i, j, _ in record.links})
        if pair.initial_alignment is not None and sorted(map(tuple, pair.initial_alignment)) == links:
            ctx.report.unchanged["initial alignments"] += 1
            continue
        pair.initial_alignment = [list(link) for link in links]
        pair.initial_alignment_source = "imported"
        changed.append(pair)
    Pair.objects.bulk_update(changed, ["initial_alignment", "initial_alignment_source"], batch_size=BATCH)
    ctx.report.created["initial alignments"] += len(changed)


def _write_links(ctx: Context, valid: list[tuple[Pair, pharaoh.AlignmentRecord]], user: Any) -> None:
    existing = {
        (link.pair_id, link.i, link.j): link
        for link in AlignmentLink.objects.filter(
            pair__in=[p for p, _ in valid], annotator=user, is_gold=False
        )
    }
    new, flipped = [], []
    for pair, record in valid:
        for i, j, sure in dict.fromkeys(record.links):
            link = existing.get((pair.pk, i, j))
            if link is None:
                link = AlignmentLink(pair=pair, annotator=user, i=i, j=j, sure=sure)
                existing[pair.pk, i, j] = link
                new.append(link)
            elif link.sure != sure and link.pk:
                link.sure = sure
                link.version += 1
                flipped.append(link)
            else:
                ctx.report.unchanged["links"] += 1
    AlignmentLink.objects.bulk_create(new, batch_size=BATCH)
    AlignmentLink.objects.bulk_update(flipped, ["sure", "version"], batch_size=BATCH)
    ctx.report.created["links"] += len(new)
    if flipped:
        ctx.report.created["sure/possible changes"] += len(flipped)
    record_created(ctx, new, "alignmentlink", user, ["i", "j", "sure"])
    if flipped:
        ctx.changed = True


def import_units(ctx: Context, sources: Sequence[Source]) -> None:
    """Evaluation units and their items (through the evaluation service, which checks them)."""
    from . import evaluation

    parsed: Parsed[units.UnitRecord] = Parsed()
    for name, data in sources:
        parsed.extend(units.parse_units(data, name))
    records = ctx.take(parsed)
    existing = {
        u.source_id: u for u in EvaluationUnit.objects.filter(project=ctx.project).prefetch_related("items")
    }
    position = len(existing)
    for record in records:
        unit = existing.get(record.source_id)
        if unit is not None:
            same = (unit.source_sentence, unit.phrase_start, unit.phrase_end) == (
                record.source_sentence,
                record.phrase_start,
                record.phrase_end,
            ) and [(i.source_id, i.paraphrase, i.candidate_source) for i in unit.items.all()] == record.items
            if same:
                ctx.report.unchanged["units"] += 1
            else:
                ctx.invalid(
                    Problem(
                        record.file,
                        record.line,
                        "unit_id",
                        f"unit {record.source_id} already exists with another sentence, phrase or items",
                    )
                )
            continue
        try:
            with transaction.atomic():
                evaluation.create_unit(
                    ctx.project,
                    record.source_id,
                    record.source_sentence,
                    record.phrase,
                    record.phrase_start,
                    record.phrase_end,
                    record.items,
                    position=position,
                )
        except ValidationError as exc:
            field, messages = next(iter(exc.message_dict.items()))
            ctx.invalid(Problem(record.file, record.line, field, messages[0]))
            continue
        position += 1
        ctx.report.created["units"] += 1
        ctx.report.created["items"] += len(record.items)


def _import_native(ctx: Context, sources: Sequence[Source]) -> None:
    from .corpus_native import import_native

    import_native(ctx, sources)


IMPORTERS: dict[str, Callable[[Context, Sequence[Source]], None]] = {
    "mrpc": import_mrpc,
    "etpc": import_etpc,
    "native": _import_native,
    "ptb": import_ptb,
    "pharaoh": import_pharaoh,
    "units": import_units,
}


def import_corpus(
    format: str,
    project_name: str,
    paths_or_files: Iterable[FileLike],
    *,
    annotator: str | None = None,
    dry_run: bool = False,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
    actor: Any = None,
) -> ImportReport:
    """Import files of one format into the project (created if needed); see the module docstring."""
    report = ImportReport(format=format, project=project_name, dry_run=dry_run, skip_invalid=skip_invalid)
    if format not in IMPORTERS:
        report.problems.append(
            Problem("", None, "format", f"unknown format {format!r}; expected one of {', '.join(IMPORTERS)}")
        )
        return report
    if not project_name.strip():
        report.problems.append(Problem("", None, "project", "the project name is empty"))
        return report
    sources = read_sources(paths_or_files)
    if not sources:
        report.problems.append(Problem("", None, "files", "no files given"))
        return report
    try:
        with transaction.atomic():
            project, created = Project.objects.get_or_create(name=project_name.strip())
            if created:
                report.created["projects"] += 1
            ctx = Context(
                project=project,
                report=report,
                annotator_name=annotator,
                actor=actor,
                progress=progress,
                cancelled=cancelled,
            )
            IMPORTERS[format](ctx, sources)
            if report.problems:
                raise ImportFailed
            if ctx.changed:
                project_changed(project.pk)
            if dry_run:
                transaction.set_rollback(True)
    except ImportFailed:
        pass
    except ImportCancelled:
        report.cancelled = True
    except IntegrityError as exc:  # e.g. another import created the same pairs meanwhile
        report.problems.append(
            Problem(
                "",
                None,
                "database",
                f"the data changed while importing ({exc}); nothing was written — run the import again",
            )
        )
    return report


def report_lines(report: ImportReport) -> list[str]:
    """The report as printable lines: every problem, repair and skip as `FILE:LINE: field: message`."""
    lines = [str(p) for p in report.problems]
    lines += [f"repaired {p}" for p in report.repaired]
    lines += [f"skipped {p}" for p in report.skipped]
    return lines


def as_upload(name: str, data: bytes) -> BinaryIO:
    """A named in-memory file (tests and the job runner hand stored bytes to `import_corpus`)."""
    handle = io.BytesIO(data)
    handle.name = name  # type: ignore[attr-defined]
    return handle
