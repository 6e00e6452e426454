"""The world of the permission matrix: two projects, two annotators, two leads, an admin, and marked data.

Project Alpha (lead lena): pair p1 assigned to anna and benedikt, pair p2 to benedikt only; unit u1 rated
by both, u2 by benedikt only. Project Beta (lead otto): pair q1 and unit v1, benedikt's. Every
annotation carries a marker naming its owner and project (`MARK-<user>-<project>`) in its comments, so
a response can be searched for data that must never reach its reader.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.agreement import computation
from annotator.annotation import services as annotation_services
from annotator.core.tagsets import install_builtin_tagsets
from annotator.corpus import projects
from annotator.evaluation import services as evaluation
from annotator.leadtools import adjudication
from annotator.models import (
    AgreementSnapshot,
    AlignmentLink,
    Assignment,
    CorpusJob,
    EvaluationUnit,
    Judgement,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
    Tagset,
)
from tests import evaluation_factories as ef
from tests import factories

SCENARIOS = ("anon", "ann_own", "ann_other", "lead_own", "lead_other", "admin")
OTHER_ANNOTATOR = "benedikt"


@dataclass
class Objects:
    """The objects a scenario's URLs point at."""

    project: Project
    pair: Pair
    unit: EvaluationUnit
    phenomenon: Phenomenon
    link: AlignmentLink
    alignment: PhraseAlignment
    label: PairLabel
    assignment: Assignment
    judgement: Judgement
    job: CorpusJob
    snapshot: AgreementSnapshot
    gold_phenomenon: Phenomenon | None
    gold_link: AlignmentLink | None
    gold_alignment: PhraseAlignment | None
    item: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class PermissionWorld:
    users: dict[str, Any]
    alpha: Project
    beta: Project
    own: Objects  # what anna works on in Alpha (also the lead's and admin's target)
    others: Objects  # benedikt's work in Alpha that anna must not reach
    foreign: Objects  # Beta, which lena does not lead and anna does not belong to


def _annotate(pair: Pair, user: Any, marker: str) -> None:
    ptype = ParaphraseType.objects.filter(
        tagset=pair.project.tagset, scope_sides="both", projection_required=False
    ).first()
    _, version = annotation_services.add_phenomenon(
        pair, user, ptype, scope1=[1], scope2=[0], comment=f"{marker} phenomenon", base_version=None
    )
    annotation_services.set_links(pair, user, [(1, 0)], sure=True, base_version=None)
    annotation_services.add_phrase_alignment(pair, user, 1, 1, base_version=None)
    annotation_services.set_pair_label(pair, user, "paraphrase", base_version=None)
    annotation_services.set_comment(pair, user, f"{marker} comment", base_version=None)


def _mine(model: type, pair: Pair, user: Any, *, gold: bool = False) -> Any:
    return model.objects.filter(pair=pair, annotator=user, is_gold=gold).order_by("pk").first()


def _objects(project: Project, pair: Pair, unit: EvaluationUnit, user: Any, creator: Any) -> Objects:
    gold_owner = adjudication.gold_owner(pair)
    return Objects(
        project=project,
        pair=pair,
        unit=unit,
        item=unit.items.order_by("position").first(),
        phenomenon=_mine(Phenomenon, pair, user),
        link=_mine(AlignmentLink, pair, user),
        alignment=_mine(PhraseAlignment, pair, user),
        label=_mine(PairLabel, pair, user),
        assignment=Assignment.objects.filter(pair=pair, annotator=user).first(),
        judgement=Judgement.objects.filter(rater=user, item__unit__project=project).order_by("pk").first(),
        job=CorpusJob.objects.filter(project=project, created_by=creator).first(),
        snapshot=computation.latest_snapshot(project),
        gold_phenomenon=_mine(Phenomenon, pair, gold_owner, gold=True) if gold_owner else None,
        gold_link=_mine(AlignmentLink, pair, gold_owner, gold=True) if gold_owner else None,
        gold_alignment=_mine(PhraseAlignment, pair, gold_owner, gold=True) if gold_owner else None,
    )


def build() -> PermissionWorld:
    install_builtin_tagsets(Tagset, ParaphraseType)
    anna, ben = factories.user("anna"), factories.user(OTHER_ANNOTATOR)
    lena, otto = factories.user("lena"), factories.user("otto")
    root, olga = factories.user("root", staff=True), factories.user("olga")
    layers = {"layer_phrase_alignment": True, "layer_evaluation": True}
    alpha = factories.project_with_pairs("Alpha", n_pairs=2, lead=lena, **layers)
    beta = factories.project_with_pairs("Beta", n_pairs=1, lead=otto, **layers)
    p1, p2 = alpha.pairs.order_by("position")
    q1 = beta.pairs.get()
    projects.assign_pairs(alpha, [anna, ben], [p1])
    projects.assign_pairs(alpha, [ben], [p2])
    projects.assign_pairs(beta, [ben], [q1])
    _annotate(p1, anna, "MARK-anna-A")
    _annotate(p1, ben, "MARK-benedikt-A")
    _annotate(p2, ben, "MARK-benedikt-A2")
    _annotate(q1, ben, "MARK-benedikt-B")
    u1, u2 = ef.unit(alpha, "u1"), ef.unit(alpha, "u2")
    v1 = ef.unit(beta, "v1")
    evaluation.assign_units(alpha, [anna, ben], r=2, units=[u1])
    evaluation.assign_units(alpha, [ben], r=1, units=[u2])
    evaluation.assign_units(beta, [ben], r=1, units=[v1])
    for user, label in ((anna, "Perfect"), (ben, "Awkward")):
        evaluation.record_judgement(
            u1.items.order_by("position").first(), user, "grammaticality", label=label
        )
    evaluation.record_judgement(v1.items.order_by("position").first(), ben, "grammaticality", label="Awkward")
    adjudication.take_version(p1, anna, lena, base_version=None)
    adjudication.take_version(q1, ben, otto, base_version=None)
    for project, lead in ((alpha, lena), (beta, otto)):
        output = Path(tempfile.mkdtemp(prefix="matrix-export-")) / f"{project.name}.jsonl"
        output.write_text("{}\n")
        CorpusJob.objects.create(
            kind="export",
            format="native",
            project=project,
            project_name=project.name,
            created_by=lead,
            status="succeeded",
            output_file=str(output),
        )
    computation.recompute(alpha.pk)
    computation.recompute(beta.pk)
    users = {"anna": anna, OTHER_ANNOTATOR: ben, "lena": lena, "otto": otto, "root": root, "olga": olga}
    world = PermissionWorld(
        users=users,
        alpha=alpha,
        beta=beta,
        own=_objects(alpha, p1, u1, anna, lena),
        others=_objects(alpha, p2, u2, ben, lena),
        foreign=_objects(beta, q1, v1, ben, otto),
    )
    _setup_objects(world)
    return world


def _setup_objects(world: PermissionWorld) -> None:
    """Each project's own editable copy of its tagset and a valid invitation link (project set-up URLs)."""
    from annotator.projects import members, tagsets

    by_project = {}
    for project, lead in ((world.alpha, world.users["lena"]), (world.beta, world.users["otto"])):
        copy = tagsets.clone_tagset(project.tagset, lead, name=f"{project.name} copy")
        invitation = members.create_invitation(project, "annotator", lead, note="MATRIX")
        by_project[project.pk] = {"tagset": copy, "type": copy.types.first(), "invitation": invitation}
    for objs in (world.own, world.others, world.foreign):
        objs.extra.update(by_project[objs.project.pk])
