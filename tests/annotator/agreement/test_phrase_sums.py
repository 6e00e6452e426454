"""SPADE's ALIR and ALIP as sums the database keeps (`annotator.agreement.phrase_parts`): after any
sequence of phrase alignment saves (added, re-marked sure or possible, removed, undone through the same
services; annotators leaving and joining) the kept parts and totals equal those rebuilt from scratch,
and the figures equal `metrics.spade.spade_report` of the whole document, exactly; a read right after a
save includes it.

Runs on the configured database: SQLite by default, PostgreSQL when DATABASE_URL points at one.
"""

from __future__ import annotations

import importlib
import itertools

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from annotator.agreement import phrase_parts, rebuild, sums
from annotator.agreement.computation import recompute
from annotator.agreement.document import project_document
from annotator.annotation import services as annotation_services
from annotator.models import AgreementPhrasePart, AgreementSum, Membership, PhraseAlignment
from annotator.projects.roles import grant_role
from metrics.document import parse_document
from metrics.spade import spade_report
from metrics.spade_sums import MEASURES
from tests import make

pytestmark = pytest.mark.django_db
_names = itertools.count()

#: Nodes of the test world's trees: tree 1 has 10 (S, NP, DT, NN, VP, VBD, PP, IN, NNP, .), tree 2 has
#: 8; NP "Film" (1) and NN "Film" (2) of tree 2 cover the same token, so two rows may be one alignment.
NODES1, NODES2 = range(10), (None, *range(8))

edit = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 1), st.integers(0, 3), st.sampled_from(NODES1), st.sampled_from(NODES2)),
    st.tuples(st.just("possible"), st.integers(0, 1), st.integers(0, 3), st.sampled_from(NODES1), st.sampled_from(NODES2)),
    st.tuples(st.just("remove"), st.integers(0, 1), st.integers(0, 3), st.just(0), st.just(0)),
    st.tuples(st.just("leave"), st.just(0), st.integers(0, 3), st.just(0), st.just(0)),
    st.tuples(st.just("join"), st.just(0), st.integers(0, 3), st.just(0), st.just(0)),
)  # fmt: skip


def apply(edit_: tuple, project, pairs: list, anns: tuple) -> None:
    kind, p, a, node1, node2 = edit_
    pair, who = pairs[p], anns[a]
    if kind in ("add", "possible"):
        annotation_services.add_phrase_alignment(
            pair, who, node1, node2, sure=kind == "add", base_version=None
        )
    elif kind == "remove":
        mine = PhraseAlignment.objects.filter(pair=pair, annotator=who).order_by("pk").first()
        if mine is not None:
            annotation_services.remove_phrase_alignment(mine, base_version=None)
    elif kind == "leave":
        Membership.objects.filter(project=project, user=who, role=Membership.Role.ANNOTATOR).delete()
    else:
        grant_role(project, who, Membership.Role.ANNOTATOR)


def library(project) -> dict:
    return spade_report(parse_document(project_document(project)))


def kept(project) -> dict:
    return sums.kept_figures(project.pk)["phrases"]


def team(n_pairs: int = 2, n_annotators: int = 4):
    n = next(_names)
    # usernames in the opposite order of the user ids: the kept cells are renamed for the report
    anns = tuple(make.user(f"f{n}-{'zyxw'[k]}") for k in range(n_annotators))
    project = make.project_with_pairs(
        f"Phrases {n}", n_pairs=n_pairs, lead=make.user(f"lead-f{n}"), annotators=anns,
        layer_phrase_alignment=True,
    )  # fmt: skip
    return project, list(project.pairs.order_by("position")), anns


@settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(edit, min_size=1, max_size=14))
@example(  # three annotators agreeing on one alignment, one re-marking it, one leaving and coming back
    edits=[
        ("add", 0, 0, 1, 1),
        ("add", 0, 1, 1, 1),
        ("add", 0, 2, 1, 2),  # the same token span as node 1 of tree 2
        ("possible", 0, 1, 1, 1),
        ("add", 1, 3, 4, None),
        ("leave", 0, 1, 0, 0),
        ("join", 0, 1, 0, 0),
        ("remove", 0, 0, 0, 0),
    ]
)
def test_kept_phrase_sums_equal_rebuilt_and_the_library_on_the_whole_document(edits):
    project, pairs, anns = team()
    for edit_ in edits:
        apply(edit_, project, pairs, anns)
    cells = sums.kept_cells(project.pk)
    assert cells == sums.project_cells(project.pk)
    assert phrase_parts.kept_parts(project.pk) == phrase_parts.project_parts(project.pk)
    figures = kept(project)
    assert figures == library(project)  # exactly: the same integers reach the same formulas
    assert rebuild(project.pk) == 0
    assert sums.kept_cells(project.pk) == cells and kept(project) == figures


def test_a_read_right_after_a_phrase_alignment_save_includes_it():
    project, (first, _), anns = team(n_annotators=3)
    lead = project.memberships.get(role=Membership.Role.LEAD).user
    for who in anns:
        annotation_services.add_phrase_alignment(first, who, 1, 1, base_version=None)
    recompute(project.pk)
    url = f"/api/projects/{project.pk}/agreement/"
    before = make.api_client(lead).get(url).json()["snapshot"]["results"]["report"]["measures"]
    assert before["spade.alir"]["value"] == 1.0 and before["spade.alip"]["value"] == 1.0

    annotation_services.add_phrase_alignment(first, anns[0], 4, 3, base_version=None)  # VP ↔ VP
    after = make.api_client(lead).get(url).json()["snapshot"]["results"]["report"]["measures"]
    alip = after["spade.alip"]["by_annotator"]
    assert alip[anns[0].username] == 0.5  # one of its two alignments is the others'
    assert {key: after[key] for key in ("spade.alir", "spade.alip")} == library(project)


def test_gold_phrase_alignments_stay_out():
    project, (first, _), anns = team(n_annotators=3)
    lead = project.memberships.get(role=Membership.Role.LEAD).user
    annotation_services.add_phrase_alignment(first, lead, 1, 1, base_version=None, is_gold=True)
    assert not AgreementSum.objects.filter(project=project, measure__in=MEASURES).exists()
    assert not AgreementPhrasePart.objects.filter(project=project).exists()


def test_the_migration_fills_the_phrase_parts_of_existing_projects():
    from django.apps import apps

    migration = importlib.import_module("annotator.migrations.0034_phrase_sums")
    project, pairs, anns = team(n_annotators=3)
    for k, who in enumerate(anns):
        annotation_services.add_phrase_alignment(pairs[0], who, 1, 1, base_version=None)
        annotation_services.add_phrase_alignment(pairs[1], who, 4 + k % 2, None, base_version=None)
    cells, parts = sums.kept_cells(project.pk), phrase_parts.kept_parts(project.pk)
    assert any(measure == "spade.shared3" for measure, _, _ in cells)
    AgreementSum.objects.filter(project=project, measure__in=MEASURES).delete()
    AgreementPhrasePart.objects.all().delete()
    migration.fill_parts(apps, None)
    assert sums.kept_cells(project.pk) == cells == sums.project_cells(project.pk)
    assert phrase_parts.kept_parts(project.pk) == parts


def test_switching_the_layer_off_and_on_rebuilds_the_sums():
    """While the layer is off a save moves no phrase sums; switching it on rebuilds them."""
    from annotator.projects.services import update_project

    project, (first, second), anns = team(n_annotators=3)
    for who in anns:
        annotation_services.add_phrase_alignment(first, who, 1, 1, base_version=None)
    update_project(project, layer_phrase_alignment=False)
    assert not AgreementSum.objects.filter(project=project, measure__in=MEASURES).exists()
    annotation_services.add_phrase_alignment(second, anns[0], 4, 3, base_version=None)
    update_project(project, layer_phrase_alignment=True)
    assert sums.kept_cells(project.pk) == sums.project_cells(project.pk)
    assert phrase_parts.kept_parts(project.pk) == phrase_parts.project_parts(project.pk)
    assert kept(project) == library(project)
