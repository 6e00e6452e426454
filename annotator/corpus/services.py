"""Importing corpora: the write side shared by `manage.py import_corpus`, the web upload and the Celery job.

`import_corpus(format, project_name, files)` parses the files with the pure importers of
`annotator.corpus.imports`, checks the records against the database (pairs that exist, tokens, types) and
writes them with bulk inserts. By default it is all-or-nothing: everything happens inside one
transaction, and if any record is invalid nothing is written and every problem is in the report.
With `skip_invalid=True` every valid record is written and each invalid one is listed as skipped with
its reason. A dry run does all the work and rolls it back, so the report says exactly what would be
created, repaired and skipped. Re-importing the same file changes nothing: pairs match on their
source id, annotations on their content.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from annotator.agreement import record_change
from annotator.core import validation
from annotator.core.tagsets import ETPC_NAME, PALETTE
from annotator.core.trees import TreeError, tree_nodes
from annotator.corpus.imports import etpc, mrpc, pharaoh, ptb, units
from annotator.corpus.imports.problems import ImportReport, Parsed, Problem
from annotator.corpus.imports.records import PairRecord
from annotator.corpus.languages import tokenizer_for
from annotator.corpus.native import import_native
from annotator.corpus.projects import create_unit
from annotator.corpus.writing import (
    BATCH,
    Cancelled,
    Context,
    ImportCancelled,
    InvalidUsername,
    Progress,
    _pairs_by_source_id,
    record_created,
    use_tagset,
    write_pairs,
    write_phenomena,
)
from annotator.models import (
    AlignmentLink,
    EvaluationUnit,
    Pair,
    ParaphraseType,
    PhraseAlignment,
    Project,
    Tagset,
)
from annotator.projects import services as project_setup

FORMATS = ("mrpc", "etpc", "native", "ptb", "pharaoh", "units")
Source = tuple[str, bytes]
StreamSource = tuple[str, Callable[[], contextlib.AbstractContextManager[BinaryIO]]]
FileLike = str | Path | tuple[str, bytes] | tuple[str, Path] | BinaryIO


class ImportFailed(Exception):
    """Raised inside the transaction to roll it back when problems were found."""


def read_sources(paths_or_files: Iterable[FileLike]) -> list[Source]:
    """(name, bytes) of each path, (name, bytes) or (name, path) tuple or open binary file (uploads)."""
    sources: list[Source] = []
    for item in paths_or_files:
        if isinstance(item, tuple):
            data = item[1]
            sources.append((item[0], data.read_bytes() if isinstance(data, Path) else data))
        elif isinstance(item, str | Path):
            sources.append((Path(item).name, Path(item).read_bytes()))
        else:
            name = Path(getattr(item, "name", "upload")).name
            data = item.read()
            sources.append((name, data.encode() if isinstance(data, str) else data))
    return sources


def stream_sources(paths_or_files: Iterable[FileLike]) -> list[StreamSource]:
    """(name, how to open it) of each file, for the formats read a batch at a time; nothing read yet."""
    sources: list[StreamSource] = []
    for item in paths_or_files:
        if isinstance(item, tuple):
            name, data = item
            sources.append((name, _opener(data)))
        elif isinstance(item, str | Path):
            sources.append((Path(item).name, _opener(Path(item))))
        else:
            sources.append((Path(getattr(item, "name", "upload")).name, _opener(item)))
    return sources


def _opener(data: bytes | Path | BinaryIO) -> Callable[[], contextlib.AbstractContextManager[BinaryIO]]:
    if isinstance(data, Path):
        return lambda: data.open("rb")
    if isinstance(data, bytes):
        return lambda: contextlib.nullcontext(io.BytesIO(data))

    def rewound() -> contextlib.AbstractContextManager[BinaryIO]:
        data.seek(0)
        return contextlib.nullcontext(data)

    return rewound


def _count_lines(open_file: Callable[[], contextlib.AbstractContextManager[BinaryIO]]) -> int:
    """Lines of a file, read in 1 MiB blocks (for the progress bar's total)."""
    with open_file() as handle:
        return sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))


# ---- pairs ------------------------------------------------------------------------------------------


def import_mrpc(ctx: Context, sources: Sequence[StreamSource]) -> None:
    """MRPC files read and written a batch at a time (`mrpc.stream_mrpc`, `write_pairs`): memory stays
    flat with the file's size. All-or-nothing still holds — the caller's transaction is rolled back when
    a problem is found; from the first problem on, the rest is only read, for the report."""
    tokenize = tokenizer_for(ctx.project.language)
    ctx.total = sum(max(_count_lines(open_file) - 1, 0) for _, open_file in sources)
    for name, open_file in sources:
        with open_file() as handle:
            for batch in mrpc.stream_mrpc(handle, name, tokenize):
                if batch.fatal:
                    ctx.take(Parsed(fatal=batch.fatal))
                    return
                records = ctx.take(batch)
                if not ctx.report.problems:
                    write_pairs(ctx, records)


# ---- ETPC -------------------------------------------------------------------------------------------


def etpc_tagset(ctx: Context, records: Sequence[etpc.TypeRecord]) -> Tagset:
    """The tagset that carries the typology file: the built-in ETPC tagset when the file agrees with it,
    otherwise a tagset of the project's own (a copy of the built-in one with the file's names,
    categories and new types). Built-in tagsets are never changed by an import: other projects use them.
    """
    builtin = Tagset.objects.get(name=ETPC_NAME)
    if _agrees_with(builtin, records):
        ctx.report.unchanged["types"] += len(records)
        return builtin
    current = ctx.project.tagset
    own = (
        current is not None
        and not current.builtin
        and not Project.objects.filter(tagset=current).exclude(pk=ctx.project.pk).exists()
    )
    tagset = current if own and current is not None else _project_copy(ctx, builtin)
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


def _agrees_with(tagset: Tagset, records: Sequence[etpc.TypeRecord]) -> bool:
    types = {t.code: (t.name, t.type_class) for t in tagset.types.all()}
    return all(
        record.code in types and types[record.code] == (record.name, record.category or types[record.code][1])
        for record in records
    )


def _project_copy(ctx: Context, source: Tagset) -> Tagset:
    """A copy of `source` owned by the importing project (named after it), with all its types."""
    base = f"{source.name} ({ctx.project.name})"[:110]
    name, n = base, 1
    while Tagset.objects.filter(name=name).exists():
        n += 1
        name = f"{base} {n}"
    copy = Tagset.objects.create(
        name=name,
        description=f"Copy of {source.name} made by an import into {ctx.project.name}, with the file's types.",
        owner=ctx.actor if getattr(ctx.actor, "pk", None) else None,
    )
    fields = [f.name for f in ParaphraseType._meta.concrete_fields if f.name not in ("id", "tagset")]
    ParaphraseType.objects.bulk_create(
        ParaphraseType(tagset=copy, **{f: getattr(t, f) for f in fields}) for t in source.types.all()
    )
    ctx.report.created["tagsets"] += 1
    return copy


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


# ---- entry point ------------------------------------------------------------------------------------


# ---- parse trees, word alignments, evaluation units -----------------------------------------------


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
    """Evaluation units and their items (through `annotator.corpus.projects.create_unit`, which checks them)."""

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
                create_unit(
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


#: Formats read a batch at a time (their importer takes `StreamSource`s; native JSON Lines are, a native
#: JSON document is read whole).
STREAMING: dict[str, Callable[[Context, Sequence[StreamSource]], None]] = {
    "mrpc": import_mrpc,
    "native": import_native,
}
IMPORTERS: dict[str, Callable[[Context, Sequence[Source]], None]] = {
    "etpc": import_etpc,
    "ptb": import_ptb,
    "pharaoh": import_pharaoh,
    "units": import_units,
}


def _new_project(name: str, actor: Any, fields: dict[str, Any] | None) -> Project:
    """The project an import creates, through the projects' own `create_project` (its defaults and
    checks); the set-up form's fields name the tagset by id, and its creator leads it. A tagset the
    imported files bring replaces the default one while the project has no phenomenon
    (`writing.use_tagset`)."""
    chosen = dict(fields or {})
    tagset_id = chosen.pop("tagset_id", None)
    if tagset_id is not None:
        chosen["tagset"] = Tagset.objects.get(pk=tagset_id)
    lead = actor if fields is not None else None
    return project_setup.create_project(lead, name=name, **chosen)


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
    new_project: dict[str, Any] | None = None,
) -> ImportReport:
    """Import files of one format into the project (created if needed); see the module docstring.

    `new_project` holds the fields (language, tagset id, description) of a project the import creates.
    """
    report = ImportReport(format=format, project=project_name, dry_run=dry_run, skip_invalid=skip_invalid)
    sources = _import_sources(format, project_name, paths_or_files, report)
    if sources is None:
        return report
    try:
        with transaction.atomic():
            project = Project.objects.filter(name=project_name.strip()).first()
            if project is None:
                project = _new_project(project_name.strip(), actor, new_project)
                report.created["projects"] += 1
            ctx = Context(
                project=project,
                report=report,
                annotator_name=annotator,
                actor=actor,
                progress=progress,
                cancelled=cancelled,
            )
            (STREAMING.get(format) or IMPORTERS[format])(ctx, sources)  # type: ignore[arg-type]
            if report.problems:
                raise ImportFailed
            if ctx.changed:
                record_change(project.pk, relabelled=True)
            if dry_run:
                transaction.set_rollback(True)
    except (ImportFailed, InvalidUsername, ImportCancelled, ValidationError, IntegrityError) as exc:
        _import_stopped(report, exc, sources)
    return report


def _import_sources(
    format: str, project_name: str, paths_or_files: Iterable[FileLike], report: ImportReport
) -> Sequence[Source] | Sequence[StreamSource] | None:
    """The import's files read (or opened for streaming), or None with the problem in `report` when the
    format, the project name or the files are missing."""
    if format not in IMPORTERS and format not in STREAMING:
        report.problems.append(
            Problem("", None, "format", f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")
        )
        return None
    if not project_name.strip():
        report.problems.append(Problem("", None, "project", "the project name is empty"))
        return None
    sources: Sequence[Source] | Sequence[StreamSource] = (
        stream_sources(paths_or_files) if format in STREAMING else read_sources(paths_or_files)
    )
    if not sources:
        report.problems.append(Problem("", None, "files", "no files given"))
        return None
    return sources


def _import_stopped(
    report: ImportReport, exc: Exception, sources: Sequence[Source] | Sequence[StreamSource]
) -> None:
    """Put in `report` why the import's transaction was rolled back (nothing was written)."""
    if isinstance(exc, InvalidUsername):  # raised where a new user would be created
        files = ", ".join(name for name, _ in sources)
        report.problems.append(Problem(files, None, "annotator", str(exc)))
    elif isinstance(exc, ImportCancelled):
        report.cancelled = True
    elif isinstance(exc, ValidationError):  # the new project's settings (language, layers)
        for field, messages in exc.message_dict.items():
            report.problems.extend(Problem("", None, field, message) for message in messages)
    elif isinstance(exc, IntegrityError):  # e.g. another import created the same pairs meanwhile
        report.problems.append(
            Problem(
                "",
                None,
                "database",
                f"the data changed while importing ({exc}); nothing was written — run the import again",
            )
        )
    # ImportFailed: the problems are in the report already


def report_lines(report: ImportReport) -> list[str]:
    """The report as printable lines: every problem, repair and skip as `FILE:LINE: field: message`."""
    lines = [str(p) for p in report.problems]
    lines += [f"repaired {p}" for p in report.repaired]
    lines += [f"skipped {p}" for p in report.skipped]
    return lines


def as_upload(name: str, data: bytes) -> BinaryIO:
    """A named in-memory file (tests and the job runner hand stored bytes to `import_corpus`)."""
    handle = io.BytesIO(data)
    handle.name = name
    return handle
