"""Writing a native document (metrics part + "workbench" extension) into a project.

Used by `annotator.corpus.services.import_corpus(format="native")`. Everything is matched on content so
that importing the same document twice creates nothing the second time: pairs on their source id,
units/items on theirs, links and phrase alignments on their unique keys, phenomena as a multiset of
their fields, judgements on (item, rater, step, phase), assignments on (annotator, pair/unit, round),
aligner runs on their version, systems on their name and their alignments on (system, pair); what the
project already holds is kept.
A document without the "workbench" part (e.g. written by another tool for the metrics library) is
imported too: pair texts are the tokens joined by spaces, the tagset is created from the type names.

JSON Lines are read twice, a batch of pair lines at a time (`annotator.corpus.imports.native.JsonlReader`):
first checked whole (`check_jsonl`), so that a problem anywhere stops the import before anything is
written, then written batch by batch, each batch's lookups limited to its own pairs. Memory stays flat
with the number of pairs; the caller's transaction keeps the import all-or-nothing.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, BinaryIO, TypedDict

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils import timezone

from annotator.core import validation
from annotator.core.tagsets import PALETTE
from annotator.corpus.exports.native import IMPORTED_TREE
from annotator.corpus.imports import native
from annotator.corpus.imports.problems import Problem
from annotator.corpus.imports.records import PairRecord, PhenomenonRecord
from annotator.corpus.writing import (
    BATCH,
    Context,
    ensure_user,
    record_created,
    use_tagset,
    write_pairs,
    write_phenomena,
)
from annotator.models import (
    AlignerRun,
    AlignmentLink,
    AlignmentSystem,
    Assignment,
    EvaluationItem,
    EvaluationUnit,
    Judgement,
    Lexicon,
    LexiconItem,
    Membership,
    Pair,
    PairLabel,
    ParaphraseType,
    PhraseAlignment,
    SystemAlignment,
    Tagset,
)
from annotator.projects.roles import grant_role

PROJECT_FIELDS = ("description", "guidelines", "phase", "phenomena_for")
LAYERS = ("pair_label", "phenomena", "word_alignment", "phrase_alignment", "evaluation")


Opener = Callable[[], contextlib.AbstractContextManager[BinaryIO]]


def import_native(ctx: Context, sources: Sequence[tuple[str, Opener]]) -> None:
    """Native files, each JSON Lines (a batch at a time) or one JSON document (read whole)."""
    for name, open_file in sources:
        with open_file() as handle:
            jsonl = native.is_jsonl(handle)
        if jsonl:
            import_jsonl(ctx, name, open_file)
        else:
            with open_file() as handle:
                doc, problems = native.parse_native(_document_bytes(handle), name)
            ctx.report.problems += problems
            if doc is not None and not problems:
                NativeWriter(ctx, name, doc).write()
        if ctx.report.problems:
            return


def _document_bytes(handle: BinaryIO) -> bytes:
    """The file's bytes, or — past the size a JSON document may have — its first bytes beyond it (enough
    for `parse_native` to refuse it without reading the rest)."""
    return handle.read(native.JSON_DOCUMENT_LIMIT + 1)


def import_jsonl(ctx: Context, name: str, open_file: Opener) -> None:
    """A JSON Lines file: checked whole, then written a batch of pairs at a time (see the module docstring)."""
    with open_file() as handle:
        total, problems = native.check_jsonl(handle, name)
    if problems:
        ctx.report.problems += problems
        return
    ctx.total = total
    with open_file() as handle:
        reader = native.JsonlReader(handle, name, checked=True)
        writer: NativeWriter | None = None
        for lines in reader.batches():
            if writer is None:
                writer = NativeWriter(ctx, name, native.from_jsonl([reader.header]))
                if not writer.write_head():
                    return
            writer.write_batch(reader.joined(lines))
            if ctx.report.problems:
                return
    if writer is None:  # a header without pairs
        writer = NativeWriter(ctx, name, native.from_jsonl([reader.header]))
        if not writer.write_head():
            return
    writer.write_whole_file_parts(native.from_jsonl([reader.header]))


#: The fields of a paraphrase type a document may give (its id and tagset are the importer's).
TYPE_FIELDS = frozenset(f.name for f in ParaphraseType._meta.fields) - {"id", "tagset"}


class StoredPair(TypedDict):
    """A pair of the project as the document's sections refer to it (by source id)."""

    pk: int
    tokens: tuple[list[str], list[str]]
    nodes: tuple[list[dict[str, Any]], list[dict[str, Any]]]


class NativeWriter:
    """One document into one project, section by section."""

    def __init__(self, ctx: Context, filename: str, doc: dict[str, Any]) -> None:
        self.ctx, self.file, self.doc = ctx, filename, doc
        self.wb: dict[str, Any] = doc.get("workbench") or {}
        self.project = ctx.project
        self.users: dict[str, Any] = {}
        self.roles: set[tuple[str, str]] = set()
        self.types: dict[str, ParaphraseType] = {}
        self.pairs: dict[str, StoredPair] = {}
        # JSON Lines: the pks of the batch's pairs, which limit the lookups of what the project has; and
        # the counts of the batches before, so that positions and messages count from the file's start.
        self.scope: list[int] | None = None
        self.before: Counter[str] = Counter()

    def problem(self, field: str, message: str) -> None:
        self.ctx.invalid(Problem(self.file, None, field, message))

    def user(self, username: str, role: str | None = None) -> Any:
        """The user (created with an unusable password if new); a member in `role` when one is given."""
        if username not in self.users:
            self.users[username] = ensure_user(username)
        user = self.users[username]
        if role is not None and (username, role) not in self.roles:
            grant_role(self.project, user, role)
            self.roles.add((username, role))
        return user

    def write(self) -> None:
        """The whole document (JSON): project, tagset, members, runs, then pairs and what refers to them."""
        if not self.write_head():
            return
        self.ctx.total = len(self.doc.get("pairs", []))
        if self.write_pair_part():
            self.write_evaluation()

    def write_head(self) -> bool:
        """Project settings, tagset, members and aligner runs; False when the tagset cannot be used."""
        self.write_project()
        tagset = self.write_tagset()
        if tagset is not None and not use_tagset(self.ctx, tagset, self.file):
            return False
        self.types = {t.name: t for t in tagset.types.all()} if tagset else {}
        self.write_members()
        self.write_aligner_runs()
        return True

    def write_batch(self, doc: dict[str, Any]) -> None:
        """A batch of JSON Lines joined into a document: its pairs and what refers to them, each lookup
        of what the project has limited to these pairs."""
        self.doc, self.wb = doc, doc.get("workbench") or {}
        ids = [pair["id"] for pair in doc.get("pairs", [])]
        self.scope = None
        self.pairs = {}
        self.write_pair_part(after_pairs=lambda: self.load_pairs(ids))
        self.before["pairs"] += len(ids)
        for section in native.PER_PAIR_SECTIONS:
            for annotator, entries in (doc.get(section) or {}).items():
                self.before[f"{section}.{annotator}"] += len(entries)

    def write_whole_file_parts(self, header: dict[str, Any]) -> None:
        """After the batches: the header's sections of switched-off layers, units, judgements,
        assignments and systems without alignments, with the pairs they name looked up."""
        self.doc, self.wb, self.scope = header, header.get("workbench") or {}, None
        sections = self.sections()
        named = {row["pair"] for row in self.wb.get("assignments", []) if "pair" in row}
        self.load_pairs(named | _section_pairs(sections))
        self.write_sections(sections)
        self.write_systems()
        self.write_evaluation()

    def stored_pairs(self, rows: QuerySet[Pair]) -> dict[str, StoredPair]:
        values = rows.values_list("pk", "source_id", "tokens1", "tokens2", "nodes1", "nodes2")
        return {sid: {"pk": pk, "tokens": (t1, t2), "nodes": (n1, n2)} for pk, sid, t1, t2, n1, n2 in values}

    def load_pairs(self, source_ids: Iterable[str]) -> None:
        """The project's pairs with these source ids (looked up `BATCH` at a time); they are the scope."""
        wanted = sorted(set(source_ids))
        for start in range(0, len(wanted), BATCH):
            chunk = wanted[start : start + BATCH]
            self.pairs.update(
                self.stored_pairs(Pair.objects.filter(project=self.project, source_id__in=chunk))
            )
        self.scope = [pair["pk"] for pair in self.pairs.values()]

    def scoped(self, rows: QuerySet[Any]) -> QuerySet[Any]:
        """The rows of the batch's pairs only (JSON Lines), or all of them."""
        return rows if self.scope is None else rows.filter(pair_id__in=self.scope)

    def sections(self) -> dict[str, Any]:
        return {**self.wb.get("sections", {}), **{k: v for k, v in self.doc.items() if k != "workbench"}}

    def write_pair_part(self, after_pairs: Callable[[], None] | None = None) -> bool:
        """The document's pairs, then what refers to them (`self.pairs` is looked up after the pairs);
        False when a pair could not be written."""
        self.write_pairs()
        if after_pairs is not None:
            after_pairs()
        else:
            self.pairs = self.stored_pairs(Pair.objects.filter(project=self.project))
        if self.ctx.report.problems:
            return False
        left_out = [p["id"] for p in self.doc.get("pairs", []) if p["id"] not in self.pairs]
        if left_out:  # skipped as invalid: their annotations would point at nothing
            self.ctx.report.problems.append(
                Problem(
                    self.file,
                    None,
                    "pairs",
                    f"pairs {', '.join(left_out[:5])} could not be imported, "
                    "and a native document's annotations refer to them: fix them instead of skipping",
                )
            )
            return False
        self.write_sections(self.sections())
        self.write_systems()
        return True

    def write_sections(self, sections: dict[str, Any]) -> None:
        self.write_pair_labels(sections)
        self.write_phenomena(sections.get("phenomena") or {})
        self.write_links(sections.get("word_alignments") or {})
        self.write_phrase_alignments(sections.get("phrase_alignments") or {})

    def write_evaluation(self) -> None:
        """Units, items, judgements and assignments (these name pairs and units, not the other way)."""
        items = self.write_units()
        self.write_judgements(self.sections().get("evaluations") or {}, items)
        self.write_assignments()

    # ---- project, tagset, members ----

    def write_project(self) -> None:
        meta = self.wb.get("project")
        if not meta or not self.ctx.report.created["projects"]:
            return  # an existing project keeps its settings
        for name in PROJECT_FIELDS:
            if name in meta:
                setattr(self.project, name, meta[name])
        for layer in LAYERS:
            setattr(self.project, f"layer_{layer}", layer in meta.get("layers", []))
        self.project.save()

    def write_tagset(self) -> Tagset | None:
        meta = self.wb.get("tagset")
        if meta is None and not self.doc.get("tagset", {}).get("types"):
            return None
        if meta is None:
            meta = {
                "name": f"{self.project.name} tagset",
                "description": "From an interchange document.",
                "types": [
                    {
                        "code": str(n + 1),
                        "name": t["name"],
                        "type_class": "",
                        "scope_sides": "one" if t.get("one_sided") else "both",
                        "position": n,
                    }
                    for n, t in enumerate(self.doc["tagset"]["types"])
                ],
            }
        tagset, created = Tagset.objects.get_or_create(
            name=meta["name"], defaults={"description": meta.get("description", "")}
        )
        have = {t.name for t in tagset.types.all()}
        for n, row in enumerate(meta["types"]):
            if row["name"] in have:
                continue
            if not created:
                self.problem(
                    "workbench.tagset", f"tagset {tagset.name!r} exists here without the type {row['name']!r}"
                )
                continue
            fields = {k: v for k, v in row.items() if k in TYPE_FIELDS}  # never `id` or `tagset`
            fields.setdefault("colour", PALETTE[n % len(PALETTE)])
            ParaphraseType.objects.create(tagset=tagset, **fields)
        if created:
            self.ctx.report.created["tagsets"] += 1
        return tagset

    def write_members(self) -> None:
        members = self.wb.get("members", {})
        for username in members.get("leads", []):
            self.user(username, Membership.Role.LEAD)
        for username in [*members.get("annotators", []), *self.doc.get("annotators", [])]:
            self.user(username, Membership.Role.ANNOTATOR)

    # ---- pairs ----

    def write_pairs(self) -> None:
        extras = self.wb.get("pairs", {})
        records = []
        for n, pair in enumerate(self.doc.get("pairs", [])):
            extra = extras.get(pair["id"], {})
            records.append(
                PairRecord(
                    source_id=pair["id"],
                    position=extra.get("position", self.before["pairs"] + n),
                    text1=extra.get("text1", " ".join(pair["tokens1"])),
                    text2=extra.get("text2", " ".join(pair["tokens2"])),
                    tokens1=pair["tokens1"],
                    tokens2=pair["tokens2"],
                    corpus_labels=extra.get("corpus_labels", {}),
                    file=self.file,
                    line=None,
                    tree1=extra.get("tree1", ""),
                    tree2=extra.get("tree2", ""),
                    initial_alignment=(
                        None
                        if extra.get("initial_alignment_stored") is False
                        else pair.get("initial_alignment")
                    ),
                    initial_alignment_source=extra.get("initial_alignment_source", ""),
                    initial_alignment_version=extra.get("initial_alignment_version"),
                    tree_source=(
                        "" if extra.get("tree_source") == IMPORTED_TREE else extra.get("tree_source", "")
                    ),
                )
            )
        write_pairs(self.ctx, records)

    def write_aligner_runs(self) -> None:
        """The aligner's finished runs the project does not have yet (the versions its pairs name)."""
        have = set(AlignerRun.objects.filter(project=self.project).values_list("version", flat=True))
        new = [
            AlignerRun(
                project=self.project,
                version=run["version"],
                settings=run["settings"],
                status=run["status"],
                stage="done" if run["status"] == AlignerRun.Status.SUCCEEDED else "",
                report=run.get("report") or {},
                finished_at=timezone.now(),
            )
            for run in self.wb.get("aligner_runs", [])
            if run["version"] not in have
        ]
        AlignerRun.objects.bulk_create(new)
        self.ctx.report.created["aligner runs"] += len(new)
        self.ctx.report.unchanged["aligner runs"] += len(self.wb.get("aligner_runs", [])) - len(new)

    def pair_pk(self, source_id: str) -> int:
        return self.pairs[source_id]["pk"]

    # ---- annotations ----

    def write_pair_labels(self, sections: dict[str, Any]) -> None:
        wanted: dict[tuple[str, bool], dict[str, dict[str, str]]] = {}
        if "pair_labels" in self.wb:
            for annotator, by_pair in self.wb["pair_labels"].items():
                wanted[annotator, False] = by_pair
        else:
            for annotator, by_pair in (sections.get("pair_labels") or {}).items():
                wanted[annotator, False] = {
                    p: {"label": label, "comment": ""} for p, label in by_pair.items()
                }
        for row in self.wb.get("gold", {}).get("pair_labels", []):
            wanted.setdefault((row["annotator"], True), {})[row["pair"]] = row
        new = []
        for (annotator, is_gold), by_pair in wanted.items():
            user = self.user(annotator)
            have = {
                (pk, gold)
                for pk, gold in self.scoped(
                    PairLabel.objects.filter(annotator=user, pair__project=self.project)
                ).values_list("pair_id", "is_gold")
            }
            for source_id, row in by_pair.items():
                if (self.pair_pk(source_id), is_gold) in have:
                    self.ctx.report.unchanged["pair labels"] += 1
                    continue
                new.append(
                    PairLabel(
                        pair_id=self.pair_pk(source_id),
                        annotator=user,
                        is_gold=is_gold,
                        label=row["label"],
                        comment=row.get("comment", ""),
                    )
                )
        PairLabel.objects.bulk_create(new, batch_size=BATCH)
        self.ctx.report.created["pair labels"] += len(new)

    def phenomenon_record(
        self, raw: dict[str, Any], extra: dict[str, Any], where: str
    ) -> PhenomenonRecord | None:
        ptype = self.types.get(raw["type"])
        if ptype is None:
            self.problem(where, f"unknown type {raw['type']!r}: not in the project's tagset")
            return None
        tokens = self.pairs[raw["pair"]]["tokens"]
        try:
            clean = validation.phenomenon_fields(
                ptype,
                tokens[0],
                tokens[1],
                scope1=raw["s1"],
                scope2=raw["s2"],
                projection=raw.get("projection"),
                key1=raw.get("key1"),
                key2=raw.get("key2"),
            )
        except ValidationError as exc:
            self.problem(where, "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items()))
            return None
        return PhenomenonRecord(
            pair=raw["pair"],
            type_code=ptype.code,
            sense_preserving=raw.get("sense_preserving", extra.get("sense_preserving")),
            comment=extra.get("comment", ""),
            file=self.file,
            **clean,
        )

    def write_phenomena(self, section: dict[str, list[dict[str, Any]]]) -> None:
        by_code = {t.code: t for t in self.types.values()}
        pair_pks = {sid: row["pk"] for sid, row in self.pairs.items()}
        for annotator, entries in section.items():
            extras = self.wb.get("phenomena_extra", {}).get(annotator, [{}] * len(entries))
            records = [
                self.phenomenon_record(
                    raw, extras[n], f"phenomena.{annotator}[{self.before[f'phenomena.{annotator}'] + n}]"
                )
                for n, raw in enumerate(entries)
            ]
            write_phenomena(
                self.ctx,
                [r for r in records if r],
                pair_pks,
                by_code,
                self.user(annotator),
                pair_ids=self.scope,
            )
        gold = self.wb.get("gold", {}).get("phenomena", [])
        for n, row in enumerate(gold):
            raw = {**row, "s1": row["scope1"], "s2": row["scope2"]}
            record = self.phenomenon_record(raw, row, f"workbench.gold.phenomena[{n}]")
            if record:
                write_phenomena(
                    self.ctx,
                    [record],
                    pair_pks,
                    by_code,
                    self.user(row["annotator"]),
                    is_gold=True,
                    pair_ids=self.scope,
                )

    def write_links(self, section: dict[str, dict[str, dict[str, list[list[int]]]]]) -> None:
        wanted: list[tuple[Any, bool, int, int, int, bool]] = []
        for annotator, by_pair in section.items():
            user = self.user(annotator)
            for source_id, alignment in by_pair.items():
                for kind in ("sure", "possible"):
                    for i, j in alignment.get(kind, []):
                        wanted.append((user, False, self.pair_pk(source_id), i, j, kind == "sure"))
        for row in self.wb.get("gold", {}).get("links", []):
            wanted.append(
                (
                    self.user(row["annotator"]),
                    True,
                    self.pair_pk(row["pair"]),
                    row["i"],
                    row["j"],
                    row["sure"],
                )
            )
        have = set(
            self.scoped(AlignmentLink.objects.filter(pair__project=self.project)).values_list(
                "annotator_id", "is_gold", "pair_id", "i", "j"
            )
        )
        new = []
        for user, is_gold, pair_id, i, j, sure in wanted:
            if (user.pk, is_gold, pair_id, i, j) in have:
                self.ctx.report.unchanged["links"] += 1
                continue
            have.add((user.pk, is_gold, pair_id, i, j))
            new.append(AlignmentLink(pair_id=pair_id, annotator=user, is_gold=is_gold, i=i, j=j, sure=sure))
        AlignmentLink.objects.bulk_create(new, batch_size=BATCH)
        self.ctx.report.created["links"] += len(new)
        for user in {link.annotator for link in new}:
            record_created(
                self.ctx,
                [link for link in new if link.annotator == user],
                "alignmentlink",
                user,
                ["i", "j", "sure"],
            )

    def node_of(self, source_id: str, member: int, span: list[int] | None) -> int | None:
        if span is None:
            return None
        nodes = self.pairs[source_id]["nodes"][member - 1]
        start, end = min(span), max(span) + 1
        return next((n for n, node in enumerate(nodes) if (node["start"], node["end"]) == (start, end)), None)

    def write_phrase_alignments(self, section: dict[str, list[dict[str, Any]]]) -> None:
        wanted: list[tuple[Any, bool, int, int | None, int | None, bool]] = []
        for annotator, entries in section.items():
            user = self.user(annotator)
            nodes = self.wb.get("phrase_nodes", {}).get(annotator)
            for n, raw in enumerate(entries):
                node1, node2 = (
                    nodes[n]
                    if nodes
                    else (self.node_of(raw["pair"], 1, raw["s1"]), self.node_of(raw["pair"], 2, raw["s2"]))
                )
                if node1 is None and node2 is None:
                    at = self.before[f"phrase_alignments.{annotator}"] + n
                    self.problem(f"phrase_alignments.{annotator}[{at}]", "no parse-tree node has this span")
                    continue
                wanted.append(
                    (user, False, self.pair_pk(raw["pair"]), node1, node2, raw.get("label") != "possible")
                )
        for row in self.wb.get("gold", {}).get("phrase_alignments", []):
            wanted.append(
                (
                    self.user(row["annotator"]),
                    True,
                    self.pair_pk(row["pair"]),
                    row["node1"],
                    row["node2"],
                    row["sure"],
                )
            )
        have = set(
            self.scoped(PhraseAlignment.objects.filter(pair__project=self.project)).values_list(
                "annotator_id", "is_gold", "pair_id", "node1", "node2"
            )
        )
        new = []
        for user, is_gold, pair_id, node1, node2, sure in wanted:
            if (user.pk, is_gold, pair_id, node1, node2) in have:
                self.ctx.report.unchanged["phrase alignments"] += 1
                continue
            have.add((user.pk, is_gold, pair_id, node1, node2))
            new.append(
                PhraseAlignment(
                    pair_id=pair_id, annotator=user, is_gold=is_gold, node1=node1, node2=node2, sure=sure
                )
            )
        PhraseAlignment.objects.bulk_create(new, batch_size=BATCH)
        self.ctx.report.created["phrase alignments"] += len(new)
        for user in {a.annotator for a in new}:
            record_created(
                self.ctx,
                [a for a in new if a.annotator == user],
                "phrasealignment",
                user,
                ["node1", "node2", "sure"],
            )

    # ---- evaluation ----

    def write_units(self) -> dict[str, int]:
        """Units and items (missing ones created); returns item id "<unit>/<item>" → EvaluationItem pk."""
        have_units = dict(EvaluationUnit.objects.filter(project=self.project).values_list("source_id", "pk"))
        units = self.wb.get("evaluation_units", [])
        new_units = [
            EvaluationUnit(project=self.project, **{k: v for k, v in u.items() if k != "items"})
            for u in units
            if u["source_id"] not in have_units
        ]
        EvaluationUnit.objects.bulk_create(new_units, batch_size=BATCH)
        self.ctx.report.created["units"] += len(new_units)
        have_units.update({u.source_id: u.pk for u in new_units})
        have_items = {
            (unit, item): pk
            for pk, unit, item in EvaluationItem.objects.filter(unit__project=self.project).values_list(
                "pk", "unit__source_id", "source_id"
            )
        }
        new_items = []
        for unit in units:
            for item in unit["items"]:
                if (unit["source_id"], item["source_id"]) not in have_items:
                    fields = {k: v for k, v in item.items() if k != "lexicons"}
                    new_items.append(EvaluationItem(unit_id=have_units[unit["source_id"]], **fields))
        EvaluationItem.objects.bulk_create(new_items, batch_size=BATCH)
        self.ctx.report.created["items"] += len(new_items)
        unit_sids = {pk: sid for sid, pk in have_units.items()}
        have_items.update({(unit_sids[i.unit_id], i.source_id): i.pk for i in new_items})
        self.write_lexicon_items(units, have_items)
        return {f"{unit}/{item}": pk for (unit, item), pk in have_items.items()}

    def write_lexicon_items(self, units: list[dict[str, Any]], items: dict[tuple[str, str], int]) -> None:
        """The lexicons of each item with their scores (Fujita's lexicon evaluation); missing ones added."""
        wanted = [
            (items[unit["source_id"], item["source_id"]], name, score)
            for unit in units
            for item in unit["items"]
            for name, score in (item.get("lexicons") or {}).items()
        ]
        if not wanted:
            return
        lexicons = {
            name: Lexicon.objects.get_or_create(project=self.project, name=name)[0]
            for name in sorted({name for _, name, _ in wanted})
        }
        have = set(
            LexiconItem.objects.filter(lexicon__project=self.project).values_list("item_id", "lexicon__name")
        )
        new = [
            LexiconItem(item_id=item_id, lexicon=lexicons[name], score=score)
            for item_id, name, score in wanted
            if (item_id, name) not in have
        ]
        LexiconItem.objects.bulk_create(new, batch_size=BATCH)
        self.ctx.report.created["lexicon items"] += len(new)

    def write_judgements(self, evaluations: dict[str, Any], items: dict[str, int]) -> None:
        rows = self.wb.get("judgements")
        if rows is None:  # a plain interchange document: ratings and revisions
            rows = []
            for section, phase in (("ratings", "initial"), ("revisions", "reevaluation")):
                for r in evaluations.get(section, []):
                    for key, step in (("G", "grammaticality"), ("M", "meaning")):
                        if key in r:
                            rows.append(
                                {
                                    "item": r["item"],
                                    "rater": r["rater"],
                                    "step": step,
                                    "phase": phase,
                                    "label": r[key],
                                    "answers": {},
                                }
                            )
        have = set(
            Judgement.objects.filter(item__unit__project=self.project).values_list(
                "item_id", "rater__username", "step", "phase"
            )
        )
        new = []
        for n, row in enumerate(rows):
            item = items.get(row["item"])
            if item is None:
                self.problem(f"workbench.judgements[{n}].item", f"no evaluation item {row['item']!r}")
                continue
            if (item, row["rater"], row["step"], row["phase"]) in have:
                self.ctx.report.unchanged["judgements"] += 1
                continue
            new.append(
                Judgement(
                    item_id=item,
                    rater=self.user(row["rater"]),
                    step=row["step"],
                    phase=row["phase"],
                    label=row["label"],
                    answers=row.get("answers") or {},
                )
            )
        Judgement.objects.bulk_create(new, batch_size=BATCH)
        self.ctx.report.created["judgements"] += len(new)

    def write_assignments(self) -> None:
        units = dict(EvaluationUnit.objects.filter(project=self.project).values_list("source_id", "pk"))
        have = set(
            Assignment.objects.filter(project=self.project).values_list(
                "annotator__username", "pair_id", "unit_id", "round"
            )
        )
        new = []
        for row in self.wb.get("assignments", []):
            pair_id = self.pair_pk(row["pair"]) if "pair" in row else None
            unit_id = units.get(row["unit"]) if "unit" in row else None
            if (row["annotator"], pair_id, unit_id, row["round"]) in have:
                self.ctx.report.unchanged["assignments"] += 1
                continue
            fields = {k: row[k] for k in ("phase", "round", "status", "step", "queue_position", "time_spent")}
            new.append(
                Assignment(
                    project=self.project,
                    annotator=self.user(row["annotator"]),
                    pair_id=pair_id,
                    unit_id=unit_id,
                    **fields,
                )
            )
        Assignment.objects.bulk_create(new, batch_size=BATCH)
        self.ctx.report.created["assignments"] += len(new)

    # ---- registered systems ----

    def write_systems(self) -> None:
        """Systems by name (registered when new) and their alignments of the pairs they have none of."""
        for name, meta in self.wb.get("systems", {}).items():
            system, created = AlignmentSystem.objects.get_or_create(
                project=self.project, name=name, defaults={"description": meta.get("description", "")}
            )
            self.ctx.report.created["systems"] += int(created)
            have = set(
                self.scoped(SystemAlignment.objects.filter(system=system)).values_list("pair_id", flat=True)
            )
            new = []
            for source_id, alignment in meta["alignments"].items():
                pair_id = self.pair_pk(source_id)
                if pair_id in have:
                    self.ctx.report.unchanged["system alignments"] += 1
                    continue
                new.append(
                    SystemAlignment(
                        system=system,
                        pair_id=pair_id,
                        sure=alignment.get("sure", []),
                        possible=alignment.get("possible", []),
                        phrases=alignment.get("phrases", []),
                    )
                )
            SystemAlignment.objects.bulk_create(new, batch_size=BATCH)
            self.ctx.report.created["system alignments"] += len(new)


def _section_pairs(sections: dict[str, Any]) -> set[str]:
    """The source ids of the pairs that the sections' entries name."""
    named: set[str] = set()
    for section in native.PER_PAIR_SECTIONS:
        for entries in (sections.get(section) or {}).values():
            named.update(entry["pair"] for entry in entries)
    for section in ("word_alignments", "pair_labels"):
        for by_pair in (sections.get(section) or {}).values():
            named.update(by_pair)
    return named
