"""The agreement sums the database keeps (`annotator.agreement.sums`) equal the same sums rebuilt from
scratch and the metrics library's figures computed on the whole document, after any sequence of edits
(hypothesis: labels set and cleared, phenomena added and deleted, links set and removed, annotators
leaving and joining); and a read through the API right after a save's response includes the save.

Runs on the configured database: SQLite by default, PostgreSQL when DATABASE_URL points at one.
"""

from __future__ import annotations

import itertools

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from annotator.agreement import pair_parts, phenomena_parts, rebuild, sums
from annotator.agreement.computation import recompute
from annotator.agreement.document import project_document
from annotator.agreement.machine_agreement import machine_agreement
from annotator.agreement.results import pair_label_agreement
from annotator.annotation import services as annotation_services
from annotator.annotation import worklist
from annotator.models import (
    AgreementPairPart,
    AgreementPhenomenaPart,
    AgreementState,
    AgreementSum,
    Assignment,
    Membership,
    Phenomenon,
)
from annotator.projects.roles import grant_role
from metrics.alignment import alignment_report
from metrics.document import parse_document
from metrics.pair_labels import pair_label_report
from metrics.phenomena_sums import MEASURES as PHENOMENA_MEASURES
from metrics.report import phenomena_report
from tests import make

pytestmark = pytest.mark.django_db
_names = itertools.count()
LABELS = ["paraphrase", "non_paraphrase", ""]

edit = st.one_of(
    st.tuples(st.just("label"), st.integers(0, 2), st.integers(0, 3), st.sampled_from(LABELS)),
    st.tuples(st.just("phenomenon"), st.integers(0, 2), st.integers(0, 3), st.integers(0, 15)),
    st.tuples(st.just("rephenomenon"), st.integers(0, 2), st.integers(0, 3), st.integers(0, 15)),
    st.tuples(st.just("unphenomenon"), st.integers(0, 2), st.integers(0, 3), st.just(0)),
    st.tuples(st.just("link"), st.integers(0, 2), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("unlink"), st.integers(0, 2), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("possible"), st.integers(0, 2), st.integers(0, 3), st.integers(0, 5)),
    st.tuples(st.just("done"), st.integers(0, 2), st.integers(0, 3), st.just(0)),
    st.tuples(st.just("leave"), st.just(0), st.integers(0, 3), st.just(0)),
    st.tuples(st.just("join"), st.just(0), st.integers(0, 3), st.just(0)),
)


#: Types of the edits' phenomena: two-sided with a projection, one-sided, with keys, any-sided.
PHENOMENON_TYPES = ("Same polarity", "Addition/deletion", "Diathesis", "Identical")


def phenomenon_fields(arg: int) -> dict:
    """A phenomenon of type `PHENOMENON_TYPES[arg % 4]` at token `arg // 4` (member 1 has 6 tokens,
    member 2 has 4)."""
    kind, at = PHENOMENON_TYPES[arg % 4], arg // 4
    projection = "local" if at % 2 else "global"
    if kind == "Same polarity":
        return {"scope1": [at], "scope2": [at % 2], "projection": projection}
    if kind == "Addition/deletion":
        return {"scope1": [at], "scope2": [], "projection": projection}
    if kind == "Diathesis":
        return {"scope1": [at, at + 1], "scope2": [0], "projection": "", "key1": [at]}
    return {"scope1": [], "scope2": [at], "projection": ""}


def apply(edit_: tuple, project, pairs: list, anns: tuple, types: dict) -> None:
    kind, p, a, arg = edit_
    pair, who = pairs[p], anns[a]
    if kind == "label":
        annotation_services.set_pair_label(pair, who, arg, base_version=None)
    elif kind == "phenomenon":
        annotation_services.add_phenomenon(
            pair, who, types[PHENOMENON_TYPES[arg % 4]], base_version=None, **phenomenon_fields(arg)
        )
    elif kind == "rephenomenon":
        mine = Phenomenon.objects.filter(pair=pair, annotator=who).order_by("-pk").first()
        if mine is not None:
            fields = {"key1": [], "key2": [], **phenomenon_fields(arg)}
            annotation_services.update_phenomenon(
                mine, base_version=None, ptype=types[PHENOMENON_TYPES[arg % 4]], **fields
            )
    elif kind == "unphenomenon":
        mine = Phenomenon.objects.filter(pair=pair, annotator=who).order_by("pk").first()
        if mine is not None:
            annotation_services.delete_phenomenon(mine, base_version=None)
    elif kind == "link":
        annotation_services.set_links(pair, who, [(arg, 0)], sure=True, base_version=None)
    elif kind == "possible":
        annotation_services.set_links(pair, who, [(arg, arg % 4)], sure=False, base_version=None)
    elif kind == "done":
        assignment = Assignment.objects.filter(pair=pair, annotator=who).order_by("-round", "-id").first()
        worklist.mark_done(assignment, pair, who)
    elif kind == "unlink":
        annotation_services.remove_links(pair, who, [(arg, 0)], base_version=None)
    elif kind == "leave":
        Membership.objects.filter(project=project, user=who, role=Membership.Role.ANNOTATOR).delete()
    else:
        grant_role(project, who, Membership.Role.ANNOTATOR)


def kept_figures(project) -> dict:
    return sums.pair_label_figures(project.pk)


def library_figures(project) -> dict:
    doc = project_document(project)
    doc.setdefault("pair_labels", {})
    measures = pair_label_report(parse_document(doc))
    return {"measures": measures, "counts": pair_label_agreement(doc, measures)["counts"]}


def kept_alignment(project) -> tuple[dict, list]:
    kept = sums.kept_figures(project.pk)
    return kept["alignment"], kept["aligner"]()


def library_alignment(project) -> tuple[dict, list]:
    doc = project_document(project)
    return alignment_report(parse_document(doc)), machine_agreement(doc)["aligner"]


def kept_phenomena(project) -> dict:
    return sums.kept_figures(project.pk)["phenomena"]()


def library_phenomena(project) -> dict:
    report = phenomena_report(parse_document(project_document(project)))
    return {key: entry for key, entry in report.items() if not key.startswith("iapta.sense.")}


@settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(edit, min_size=1, max_size=12))
@example(  # two and three labels on a pair, one cleared, an annotator leaving and coming back
    edits=[
        ("label", 0, 0, "paraphrase"),
        ("label", 0, 1, "non_paraphrase"),
        ("label", 0, 2, "paraphrase"),
        ("label", 1, 3, "paraphrase"),
        ("label", 1, 1, "paraphrase"),
        ("leave", 0, 1, 0),
        ("label", 0, 0, ""),
        ("join", 0, 1, 0),
        ("label", 0, 1, "paraphrase"),
    ]
)
def test_kept_sums_equal_rebuilt_and_the_library_on_the_whole_document(edits):
    n = next(_names)
    # usernames in the opposite order of the user ids: the kept cells are re-oriented for the report
    anns = tuple(make.user(f"s{n}-{'zyxw'[k]}") for k in range(4))
    project = make.project_with_pairs(f"Sums {n}", n_pairs=3, lead=make.user(f"lead{n}"), annotators=anns)
    pairs = list(project.pairs.order_by("position"))
    types = make.types(project)
    for edit_ in edits:
        apply(edit_, project, pairs, anns, types)
    kept = sums.kept_cells(project.pk)
    assert kept == sums.project_cells(project.pk)
    assert pair_parts.kept_parts(project.pk) == pair_parts.project_parts(project.pk)
    assert phenomena_parts.kept_parts(project.pk) == phenomena_parts.project_parts(project.pk)
    figures = kept_figures(project)
    assert figures == library_figures(project)  # exactly: the same counts reach the same formulas
    alignment = kept_alignment(project)
    assert alignment == library_alignment(project)
    phenomena = kept_phenomena(project)
    assert phenomena == library_phenomena(project)  # exactly: floats kept as exact limbs
    assert rebuild(project.pk) == 0
    assert sums.kept_cells(project.pk) == kept and kept_figures(project) == figures
    assert kept_alignment(project) == alignment
    assert kept_phenomena(project) == phenomena


def test_a_read_right_after_a_save_includes_it():
    lead, ana, bo = make.user("lead"), make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    first, second = project.pairs.order_by("position")
    annotation_services.set_pair_label(first, ana, "paraphrase", base_version=None)
    annotation_services.set_pair_label(first, bo, "paraphrase", base_version=None)
    annotation_services.set_pair_label(second, ana, "non_paraphrase", base_version=None)
    recompute(project.pk)
    before = make.api_client(lead).get(f"/api/projects/{project.pk}/agreement/").json()
    cohen = before["snapshot"]["results"]["pair_labels"]["cohen"]
    assert cohen["n_items"] == {"ana|bo": 1}

    response = make.api_client(bo).post(
        "/api/pair-labels/", {"pair": second.pk, "label": "paraphrase", "base_version": 0}, format="json"
    )
    assert response.status_code in (200, 201), response.content
    assert AgreementState.objects.get(project=project).queued_at is not None  # no computation has run since
    after = make.api_client(lead).get(f"/api/projects/{project.pk}/agreement/").json()
    labels = after["snapshot"]["results"]["pair_labels"]
    assert labels["cohen"]["n_items"] == {"ana|bo": 2}
    assert labels["disagreeing_pairs"] == 1
    assert labels["counts"]["bo"] == {"paraphrase": 2, "non_paraphrase": 0}
    assert labels["fleiss"]["n_items"] == 2
    measures = after["snapshot"]["results"]["report"]["measures"]
    assert measures["pair_labels.cohen"]["n_items"] == {"ana|bo": 2}


@pytest.mark.parametrize("ordered_by_id", [True, False])
def test_kept_word_alignment_figures_are_the_library_s(ordered_by_id):
    """Non-trivial counts, with the annotators' names in and against the order of their ids (the kept
    counts of an annotator pair are turned round for the report)."""
    names = ("ana", "bo", "cy") if ordered_by_id else ("cy", "bo", "ana")
    anns = tuple(make.user(name) for name in names)
    project = make.project_with_pairs(n_pairs=2, lead=make.user("lead"), annotators=anns)
    first, second = project.pairs.order_by("position")
    links = {0: [(1, 0), (4, 2)], 1: [(1, 0), (2, 1), (5, 3)], 2: [(0, 0), (4, 2), (5, 3)]}
    for k, who in enumerate(anns):
        annotation_services.set_links(first, who, links[k], sure=True, base_version=None)
        annotation_services.set_links(first, who, [(3, 3)], sure=k != 1, base_version=None)
    annotation_services.set_links(second, anns[0], [(1, 0)], sure=True, base_version=None)
    annotation_services.set_links(second, anns[2], [(1, 0), (2, 1)], sure=False, base_version=None)
    alignment, aligner = kept_alignment(project)
    assert (alignment, aligner) == library_alignment(project)
    assert alignment["alignment.words.f1"]["value"] is not None
    assert sorted(row["pairs"] for row in aligner) == [1, 2, 2]


def test_a_read_right_after_a_link_save_includes_it():
    lead, ana, bo = make.user("lead"), make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    first, second = project.pairs.order_by("position")
    annotation_services.set_links(first, ana, [(1, 0), (2, 1)], sure=True, base_version=None)
    annotation_services.set_links(first, bo, [(1, 0)], sure=True, base_version=None)
    recompute(project.pk)
    url = f"/api/projects/{project.pk}/agreement/"
    before = make.api_client(lead).get(url).json()["snapshot"]["results"]
    assert before["report"]["measures"]["alignment.words.precision"]["by_pair"] == {"ana|bo": 0.5}

    response = make.api_client(bo).post(
        "/api/links/", {"pair": first.pk, "links": [[2, 1]], "sure": True, "base_version": 2}, format="json"
    )
    assert response.status_code in (200, 201), response.content
    assert AgreementState.objects.get(project=project).queued_at is not None  # no computation has run since
    after = make.api_client(lead).get(url).json()["snapshot"]["results"]
    assert after["report"]["measures"]["alignment.words.precision"]["by_pair"] == {"ana|bo": 1.0}
    rows = {row["annotator"]: row for row in after["machine"]["aligner"]}
    assert rows["bo"]["pairs"] == 1 and rows["bo"]["word"] == rows["ana"]["word"]


def test_gold_labels_and_non_annotators_stay_out():
    lead, ana, bo = make.user("lead"), make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=1, lead=lead, annotators=(ana, bo))
    pair = project.pairs.get()
    annotation_services.set_pair_label(pair, ana, "paraphrase", base_version=None)
    annotation_services.set_pair_label(pair, lead, "non_paraphrase", base_version=None)
    annotation_services.set_pair_label(pair, lead, "non_paraphrase", base_version=None, is_gold=True)
    assert sums.kept_cells(project.pk) == {(sums.LABELLED, str(ana.pk), "paraphrase"): 1}


def test_rebuild_agreement_command_repairs_drifted_sums(capsys):
    lead, ana, bo = make.user("lead"), make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    pair = project.pairs.order_by("position").first()
    annotation_services.set_pair_label(pair, ana, "paraphrase", base_version=None)
    annotation_services.set_pair_label(pair, bo, "non_paraphrase", base_version=None)
    kept = sums.kept_cells(project.pk)
    AgreementSum.objects.filter(project=project, measure=sums.DISAGREEING).update(value=5)
    call_command("rebuild_agreement", project.name)
    call_command("rebuild_agreement")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{project.name}: sums rebuilt (2 cells had drifted)"
    assert out[1] == f"{project.name}: sums rebuilt"
    assert sums.kept_cells(project.pk) == kept


def test_the_migration_fills_the_sums_of_existing_projects():
    import importlib

    from django.apps import apps

    migration = importlib.import_module("annotator.migrations.0027_agreement_sums")
    anns = (make.user("ana"), make.user("bo"), make.user("cy"))
    project = make.project_with_pairs(n_pairs=2, lead=make.user("lead"), annotators=anns)
    for k, pair in enumerate(project.pairs.order_by("position")):
        for a, who in enumerate(anns):
            annotation_services.set_pair_label(pair, who, LABELS[(k + a) % 2], base_version=None)
    kept = sums.kept_cells(project.pk)
    AgreementSum.objects.all().delete()
    migration.fill_sums(apps, None)
    assert sums.kept_cells(project.pk) == kept == sums.project_cells(project.pk)


def test_the_migration_fills_the_word_alignment_parts_of_existing_projects():
    import importlib

    from django.apps import apps

    migration = importlib.import_module("annotator.migrations.0032_agreement_pair_parts")
    anns = (make.user("ana"), make.user("bo"), make.user("cy"))
    project = make.project_with_pairs(n_pairs=2, lead=make.user("lead"), annotators=anns)
    for k, pair in enumerate(project.pairs.order_by("position")):
        for a, who in enumerate(anns[k:]):
            annotation_services.set_links(pair, who, [(1, 0), (a, 1)], sure=a != 1, base_version=None)
    kept, parts = sums.kept_cells(project.pk), pair_parts.kept_parts(project.pk)
    assert any(measure == pair_parts.WORDS for measure, _, _ in kept)
    AgreementSum.objects.filter(project=project, measure__in=pair_parts.MEASURES).delete()
    AgreementPairPart.objects.all().delete()
    migration.fill_parts(apps, None)
    assert sums.kept_cells(project.pk) == kept == sums.project_cells(project.pk)
    assert pair_parts.kept_parts(project.pk) == parts


def test_a_link_save_moves_the_sums_in_four_statements():
    """A link save reads the pair (with its project's layer) and its part in one statement and its word
    alignments in another, writes the part and moves the totals (one INSERT … ON CONFLICT DO UPDATE
    each): four statements of its twelve."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    anns = tuple(make.user(f"q{k}") for k in range(4))
    project = make.project_with_pairs(n_pairs=1, lead=make.user("lead"), annotators=anns)
    pair = project.pairs.get()
    for k, who in enumerate(anns):
        annotation_services.set_links(pair, who, [(1, 0), (k, 1)], sure=True, base_version=None)
    with CaptureQueriesContext(connection) as link:
        annotation_services.set_links(pair, anns[0], [(2, 2)], sure=False, base_version=None)
    statements = [q["sql"] for q in link.captured_queries]
    markers = ("layer_word_alignment", "UNION ALL", "annotator_agreementpairpart", "annotator_agreementsum")
    assert sum(any(m in sql for m in markers) for sql in statements) == 4, statements
    assert len(statements) == 12, statements
    assert sums.kept_cells(project.pk) == sums.project_cells(project.pk)


def test_a_read_right_after_a_phenomenon_save_includes_it():
    lead, ana, bo = make.user("lead"), make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    first, _ = project.pairs.order_by("position")
    types = make.types(project)
    same = types["Same polarity"]
    annotation_services.add_phenomenon(
        first, ana, same, scope1=[1], scope2=[0], projection="local", base_version=None
    )
    annotation_services.add_phenomenon(
        first, bo, same, scope1=[1, 2], scope2=[0], projection="local", base_version=None
    )
    recompute(project.pk)
    before = make.api_client(lead).get(f"/api/projects/{project.pk}/agreement/").json()
    assert before["snapshot"]["results"]["report"]["measures"]["iapta.n.ph"]["value"] == 1.0

    response = make.api_client(bo).post(
        "/api/phenomena/",
        {
            "pair": first.pk,
            "ptype": same.pk,
            "scope1": [4],
            "scope2": [2],
            "projection": "global",
            "base_version": 2,
        },
        format="json",
    )
    assert response.status_code in (200, 201), response.content
    assert AgreementState.objects.get(project=project).queued_at is not None  # no computation has run since
    after = make.api_client(lead).get(f"/api/projects/{project.pk}/agreement/").json()
    measures = after["snapshot"]["results"]["report"]["measures"]
    assert measures["iapta.n.ph"]["value"] == 0.5
    assert measures["iapta.phenomena.count"]["by_annotator"] == {"ana": 1, "bo": 2}
    assert measures["iapta.tpo.partial.count"]["by_ordered_pair"] == {"ana>bo": 1, "bo>ana": 1}
    expected = library_phenomena(project)
    assert {key: measures[key] for key in expected} == expected


def test_the_migration_fills_the_phenomena_parts_of_existing_projects():
    import importlib

    from django.apps import apps

    migration = importlib.import_module("annotator.migrations.0033_phenomena_sums")
    anns = (make.user("ana"), make.user("bo"), make.user("cy"))
    project = make.project_with_pairs(n_pairs=2, lead=make.user("lead"), annotators=anns)
    types = make.types(project)
    for k, pair in enumerate(project.pairs.order_by("position")):
        for a, who in enumerate(anns[k:]):
            arg = 4 * a + k
            annotation_services.add_phenomenon(
                pair, who, types[PHENOMENON_TYPES[arg % 4]], base_version=None, **phenomenon_fields(arg)
            )
    kept, parts = sums.kept_cells(project.pk), phenomena_parts.kept_parts(project.pk)
    assert any(measure == "phenomena.overlap" for measure, _, _ in kept)
    AgreementSum.objects.filter(project=project, measure__in=PHENOMENA_MEASURES).delete()
    AgreementPhenomenaPart.objects.all().delete()
    migration.fill_parts(apps, None)
    assert sums.kept_cells(project.pk) == kept == sums.project_cells(project.pk)
    assert phenomena_parts.kept_parts(project.pk) == parts


def test_a_phenomenon_save_moves_the_sums_in_three_statements():
    """A phenomenon save reads the pair's part, phenomena and finished assignments, the tagset's types
    and the project's layer in one statement, writes the part and moves the totals (one INSERT … ON
    CONFLICT DO UPDATE each)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    anns = tuple(make.user(f"q{k}") for k in range(4))
    project = make.project_with_pairs(n_pairs=1, lead=make.user("lead"), annotators=anns)
    pair = project.pairs.get()
    types = make.types(project)
    for k, who in enumerate(anns):
        annotation_services.add_phenomenon(
            pair, who, types[PHENOMENON_TYPES[k % 4]], base_version=None, **phenomenon_fields(k)
        )
    with CaptureQueriesContext(connection) as save:
        annotation_services.add_phenomenon(
            pair, anns[0], types["Diathesis"], base_version=None, **phenomenon_fields(6)
        )
    statements = [q["sql"] for q in save.captured_queries]
    markers = ("layer_phenomena", "UNION ALL", "annotator_agreementphenomenapart", "annotator_agreementsum")
    assert sum(any(m in sql for m in markers) for sql in statements) == 3, statements
    assert sums.kept_cells(project.pk) == sums.project_cells(project.pk)


def test_at_the_demo_s_scale_a_read_right_after_each_save_includes_it():
    """The demo's types project (`load_demo`: 14 pairs, three annotators, one of whom has not reached
    the last pairs) on the embedded default: an annotator labels a new pair, types a phenomenon on it and
    aligns it through the API; the lead's read of the agreement API right after each save's response
    (no computation has run since) gives the pair-label, word-alignment and IAPTA figures of the whole
    document as the library computes them, the save included."""
    from django.contrib.auth import get_user_model

    from annotator.demo import loader as demo
    from annotator.models import Project

    demo.load_demo()
    project = Project.objects.get(name=demo.TYPES_PROJECT)
    recompute(project.pk)
    users = get_user_model().objects.in_bulk(["lena", "chloe"], field_name="username")
    pair = project.pairs.order_by("position")[11]  # chloe has not reached it
    lead, chloe = make.api_client(users["lena"]), make.api_client(users["chloe"])
    same = make.types(project)["Same polarity"]
    saves = [
        ("/api/pair-labels/", {"label": "paraphrase"}),
        ("/api/phenomena/", {"ptype": same.pk, "scope1": [1], "scope2": [0], "projection": "local"}),
        ("/api/links/", {"links": [[0, 0]], "sure": True}),
    ]
    version = 0
    for path, body in saves:
        response = chloe.post(path, {"pair": pair.pk, "base_version": version, **body}, format="json")
        assert response.status_code in (200, 201), response.content
        version = response.json()["version"]
        assert AgreementState.objects.get(project=project).queued_at is not None  # no computation since
        read = lead.get(f"/api/projects/{project.pk}/agreement/").json()["snapshot"]["results"]
        measures = read["report"]["measures"]
        expected = {
            **library_figures(project)["measures"],
            **library_alignment(project)[0],
            **library_phenomena(project),
        }
        assert {key: measures.get(key) for key in expected} == expected, path
    assert (
        measures["iapta.phenomena.count"]["by_annotator"]["chloe"]
        == Phenomenon.objects.filter(pair__project=project, annotator=users["chloe"], is_gold=False).count()
    )
    assert measures["pair_labels.cohen"]["n_items"]["anna|chloe"] == 12
