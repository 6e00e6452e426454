"""The write side every import format shares: one import run's context, users, pairs, phenomena, history.

Used by `annotator.corpus.services` (the formats and `import_corpus`) and `annotator.corpus.native`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import F
from django.utils import timezone

from annotator.accounts import services as accounts
from annotator.core import sql
from annotator.core.trees import TreeError, tree_nodes
from annotator.corpus.imports.problems import ImportReport, Parsed, Problem
from annotator.corpus.imports.records import PairRecord, PhenomenonRecord
from annotator.models import (
    AnnotationHistory,
    Membership,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    Project,
    Tagset,
)
from annotator.projects.roles import grant_role

BATCH = 1000


Progress = Callable[[int, int], None]


Cancelled = Callable[[], bool]


class ImportCancelled(Exception):
    """The user cancelled the import; the transaction is rolled back."""


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


class InvalidUsername(ValueError):
    """A username in an imported file that Django's username rules refuse."""

    def __init__(self, username: str, reasons: list[str]) -> None:
        self.username = username
        super().__init__(f"username {username[:80]!r} is not allowed: {' '.join(reasons)}")


def ensure_user(username: str) -> Any:
    """The user with this name; created with an unusable password (they log in once an admin sets one).

    A new name goes through the username rule (`annotator.accounts.usernames`: Django's validators, NFKC, no
    name equal to an existing one after case folding) first: `InvalidUsername`.
    """
    try:
        return accounts.account_without_password(username)
    except ValidationError as error:
        raise InvalidUsername(username, error.messages) from error


def ensure_annotator(project: Project, username: str) -> Any:
    user = ensure_user(username)
    grant_role(project, user, Membership.Role.ANNOTATOR)
    return user


def write_pairs(ctx: Context, records: Iterable[PairRecord]) -> None:
    """Create the pairs that are new; an existing source id with the same texts is left as it is.

    Records are taken `BATCH` at a time: each batch looks up only its own source ids and is inserted
    before the next is read, so memory does not grow with the number of pairs.
    """
    batch: list[PairRecord] = []
    for record in records:
        batch.append(record)
        if len(batch) >= BATCH:
            _write_pair_batch(ctx, batch)
            batch = []
    _write_pair_batch(ctx, batch)


def _write_pair_batch(ctx: Context, records: Sequence[PairRecord]) -> None:
    if not records:
        return
    existing = {
        source_id: (text1, text2)
        for source_id, text1, text2 in Pair.objects.filter(
            project=ctx.project, source_id__in={r.source_id for r in records}
        ).values_list("source_id", "text1", "text2")
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
                    "initial_alignment_version": record.initial_alignment_version,
                    "tree_source": record.tree_source,
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
    if new:
        sql.insert_rows(Pair, new)
        ctx.step(len(new))
    ctx.report.created["pairs"] += len(new)


def use_tagset(ctx: Context, tagset: Tagset, where: str) -> bool:
    """Give the project this tagset (when it has none, or no phenomenon yet); a problem otherwise."""
    project = ctx.project
    if project.tagset_id is None or (
        project.tagset_id != tagset.pk and not Phenomenon.objects.filter(pair__project=project).exists()
    ):
        project.tagset = tagset
        project.save(update_fields=["tagset"])
    elif project.tagset_id != tagset.pk:
        assert project.tagset is not None  # its tagset_id is set
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
    pair_ids: Sequence[int] | None = None,
) -> list[Phenomenon]:
    """Bulk-create the phenomena an annotator does not have yet (as a multiset: duplicates in a file stay).

    `pair_ids` limits the lookup of what the annotator has to those pairs (the records' pairs)."""
    have_rows = Phenomenon.objects.filter(pair__project=ctx.project, annotator=user, is_gold=is_gold)
    if pair_ids is not None:
        have_rows = have_rows.filter(pair_id__in=pair_ids)
    have = Counter(_phenomenon_key(p.pair_id, p.ptype_id, p) for p in have_rows)
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
        sql.insert_rows(AnnotationHistory, rows[start : start + BATCH])
    pair_ids = {obj.pair_id for obj in objects}
    PairLabel.objects.filter(pair_id__in=pair_ids, annotator=owner).update(version=F("version") + 1)
    ctx.changed = True


def _pairs_by_source_id(ctx: Context, source_ids: Iterable[str]) -> dict[str, Pair]:
    return {p.source_id: p for p in Pair.objects.filter(project=ctx.project, source_id__in=set(source_ids))}
