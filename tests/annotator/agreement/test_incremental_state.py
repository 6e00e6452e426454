"""The agreement state kept per pair: a save that names its pair is taken in by an incremental update
that rewrites that pair's state row only; changes without a pair lead to a full computation."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.agreement import current, incremental
from annotator.agreement.changes import project_changed
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.models import AgreementChange, AgreementPairState, AgreementSection
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def project_with_state():
    anns = tuple(make.user(f"st-{k}") for k in range(3))
    project = make.project_with_pairs("State", n_pairs=4, lead=make.user("st-lead"), annotators=anns)
    pairs = list(project.pairs.order_by("position"))
    for pair in pairs:
        for who in anns:
            annotation_services.set_pair_label(pair, who, "paraphrase", base_version=None)
    assert recompute(project.pk) == "stored"  # full: stores the per-pair state
    return project, anns, pairs


def _spy(monkeypatch):
    calls = []
    real = incremental.update

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append(out)
        return out

    monkeypatch.setattr(incremental, "update", spy)
    return calls


def test_full_computation_stores_one_state_row_per_pair_and_the_sections(project_with_state):
    project, _, pairs = project_with_state
    assert AgreementPairState.objects.filter(project=project).count() == len(pairs)
    names = set(AgreementSection.objects.filter(project=project).values_list("name", flat=True))
    assert {"state", "pair_labels", "phenomena"} <= names and "pairs" not in names
    assert all(AgreementPairState.objects.filter(project=project).values_list("entry", flat=True))
    assert not AgreementChange.objects.filter(project=project).exists()


def test_label_change_updates_one_pair_row_and_equals_full(project_with_state, monkeypatch):
    project, anns, pairs = project_with_state
    calls = _spy(monkeypatch)
    annotation_services.set_pair_label(pairs[2], anns[1], "non_paraphrase", base_version=None)
    assert list(AgreementChange.objects.filter(project=project).values_list("pair_id", flat=True)) == [
        pairs[2].pk
    ]
    with CaptureQueriesContext(connection) as queries:
        assert recompute(project.pk) == "stored"
    assert calls and calls[-1] is not None  # the incremental update served it
    state_writes = [
        q["sql"] for q in queries if q["sql"].startswith("UPDATE") and "agreementpairstate" in q["sql"]
    ]
    assert len(state_writes) == 1
    incremental_results = current.current(project).results
    assert incremental_results["pair_labels"]["counts"][anns[1].username] == {
        "paraphrase": 3,
        "non_paraphrase": 1,
    }
    assert recompute(project.pk, full=True) == "stored"
    full_results = current.current(project).results
    assert {k: v for k, v in full_results.items() if k != "sections"} == {
        k: v for k, v in incremental_results.items() if k != "sections"
    }


def test_change_without_a_pair_runs_the_full_computation(project_with_state, monkeypatch):
    project, anns, pairs = project_with_state
    calls = _spy(monkeypatch)
    annotation_services.set_pair_label(pairs[0], anns[0], "non_paraphrase", base_version=None)
    project_changed(project.pk)  # e.g. an import: anything may have changed
    assert recompute(project.pk) == "stored"
    assert calls == [None]
    assert not AgreementChange.objects.filter(project=project).exists()


def test_after_a_restart_the_stored_state_serves_the_update(project_with_state, monkeypatch):
    project, anns, pairs = project_with_state
    annotation_services.add_phenomenon(
        pairs[1],
        anns[0],
        make.vila().types.get(name="Same polarity"),
        scope1=[0],
        scope2=[0],
        projection="local",
        base_version=None,
    )
    annotation_services.add_phenomenon(
        pairs[1],
        anns[1],
        make.vila().types.get(name="Same polarity"),
        scope1=[0],
        scope2=[0],
        projection="local",
        base_version=None,
    )
    recompute(project.pk)
    incremental.forget_kept()  # nothing in memory
    calls = _spy(monkeypatch)
    annotation_services.add_phenomenon(
        pairs[3],
        anns[1],
        make.vila().types.get(name="Same polarity"),
        scope1=[1],
        scope2=[1],
        projection="local",
        base_version=None,
    )
    assert recompute(project.pk) == "stored"
    assert calls and calls[-1] is not None
    after_restart = current.current(project).results
    entries = current.pair_entries(project)
    assert recompute(project.pk, full=True) == "stored"
    full = current.current(project).results
    assert after_restart["report"] == full["report"] and entries == current.pair_entries(project)
