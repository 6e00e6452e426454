"""The recompute pipeline: snapshots equal the CLI, coalescing, idempotency, the lock, failures."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.cache import cache
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from sklearn.metrics import cohen_kappa_score

from annotator import tasks
from annotator.agreement import computation, current, kappa_c_chunks, scheduling
from annotator.agreement.computation import document_fingerprint, recompute
from annotator.agreement.document import project_document
from annotator.annotation import services as annotation_services
from annotator.core import sql
from annotator.models import (
    AgreementSnapshot,
    AgreementState,
    Assignment,
    EvaluationItem,
    EvaluationUnit,
    Judgement,
    ParaphraseType,
)
from metrics.document import parse_document
from metrics.report import build_report
from tests import make

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    yield
    cache.clear()


def ptype(name: str) -> ParaphraseType:
    return make.vila().types.get(name=name)


@pytest.fixture
def team():
    lead = make.cast().lead
    anns = make.cast().annotators
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=anns)
    return project, anns


def cli_report(doc: dict, tmp_path: Path) -> dict:
    path = tmp_path / "project.json"
    path.write_text(json.dumps(doc))
    out = subprocess.run(
        [sys.executable, "-m", "metrics", "report", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"},
    )
    return json.loads(out.stdout)


def test_snapshot_report_equals_metrics_cli_on_the_exported_document(team, tmp_path):
    project, anns = team
    make.partly_agree(project, anns)
    assert recompute(project.pk) == "stored"
    snapshot = current.current(project)
    report = snapshot.results["report"]
    assert report == cli_report(project_document(project), tmp_path)
    assert "iapta.do.f1" in report["measures"] and "kappa_c" in report["measures"]
    assert snapshot.fingerprint == document_fingerprint(project, project_document(project))


def test_snapshot_after_partial_change_still_equals_cli(team, tmp_path):
    project, anns = team
    make.partly_agree(project, anns)
    recompute(project.pk)
    first = current.current(project)
    pair = project.pairs.get(source_id="p2")
    annotation_services.add_phenomenon(
        pair, anns[1], ptype("Diathesis"), scope1=[3], scope2=[1], base_version=None
    )
    assert recompute(project.pk) == "stored"
    second = current.current(project)
    assert second.computation != first.computation
    assert second.results["sections"]["word_alignments"] == first.results["sections"]["word_alignments"]
    assert second.results["sections"]["phenomena"] != first.results["sections"]["phenomena"]
    assert second.results["report"] == cli_report(project_document(project), tmp_path)


def test_same_inputs_store_no_second_snapshot(team):
    project, anns = team
    make.partly_agree(project, anns)
    assert recompute(project.pk) == "stored"
    assert recompute(project.pk) == "unchanged"
    assert AgreementSnapshot.objects.filter(project=project).count() == 1
    state = AgreementState.objects.get(project=project)
    assert state.finished_at is not None and state.last_error == "" and not state.is_behind


def test_expensive_kappa_c_is_stored_provisionally_then_exactly(team, settings, tmp_path, eager_celery):
    project, anns = team
    make.partly_agree(project, anns)
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 0
    assert recompute(project.pk) == "stored provisional+final"
    provisional, final = AgreementSnapshot.objects.filter(project=project).order_by("id")
    assert provisional.results["pending"] == ["kappa_c"]
    assert "kappa_c" not in provisional.results["report"]["measures"]  # nothing to carry over yet
    assert "alignment.words.f1" in provisional.results["report"]["measures"]
    assert final.results["pending"] == []
    assert final.results["report"] == cli_report(project_document(project), tmp_path)


def test_after_one_annotators_change_only_their_pairs_run_kappa_c_again(
    team, settings, tmp_path, eager_celery, monkeypatch
):
    """The stored parts keep each annotator pair's κ_C Monte Carlo: after a change by one annotator only
    that annotator's pairs' parts are computed again (`kappa_c_chunks`), and the report still equals
    the CLI's."""
    project, anns = team
    make.partly_agree(project, anns)
    # 4 pairs × 1,000 samples per annotator pair: all three pairs are 12,000, the changed two 8,000
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 10_000
    assert recompute(project.pk) == "stored provisional+final"  # cold: all three pairs to compute
    pair = project.pairs.order_by("position").first()
    annotation_services.set_links(pair, anns[2], [(0, 0)], sure=True, base_version=None)
    computed = []
    real = kappa_c_chunks.chance_chunk
    monkeypatch.setattr(kappa_c_chunks, "chance_chunk", lambda part: computed.append(part) or real(part))
    assert recompute(project.pk) == "stored provisional+final"
    assert computed and all(anns[2].username in part.key.split("|") for part in computed)
    latest = current.current(project)
    assert latest.results["pending"] == []
    assert latest.results["report"] == cli_report(project_document(project), tmp_path)


def test_results_hold_pairs_pair_labels_progress_and_headline(team):
    project, anns = team
    make.partly_agree(project, anns)
    Assignment.objects.filter(annotator=anns[0], pair__source_id="p1").update(
        status=Assignment.Status.DONE, time_spent=90
    )
    recompute(project.pk)
    results = current.current(project).results
    assert "pairs" not in results  # per-pair values are the explorer's (`annotator.leadtools`)
    ana_training = [r for r in results["progress"] if r["annotator"] == "anna"][0]
    assert ana_training == {
        "annotator": "anna",
        "phase": "training",
        "kind": "pairs",
        "done": 1,
        "postponed": 0,
        "todo": 3,
        "total": 4,
        "time_spent": 90,
    }
    assert results["headline"]["iapta.do.f1"] == results["report"]["measures"]["iapta.do.f1"]["value"]


def test_pair_label_kappas_match_scikit_learn(team):
    project, anns = team
    make.partly_agree(project, anns)
    recompute(project.pk)
    labels = current.current(project).results["pair_labels"]
    doc = project_document(project)["pair_labels"]
    ids = sorted(doc["anna"])
    expected = cohen_kappa_score([doc["anna"][i] for i in ids], [doc["ben"][i] for i in ids])
    assert labels["cohen"]["by_pair"]["anna|ben"] == pytest.approx(expected)
    assert labels["cohen"]["by_pair"]["anna|cat"] is None  # one category only: undefined
    assert labels["fleiss"]["n_items"] == 4
    assert labels["counts"]["ben"] == {"paraphrase": 3, "non_paraphrase": 1}
    measures = current.current(project).results["report"]["measures"]
    if "pair_labels.cohen" in measures:  # the metrics report reads the extension section too
        assert measures["pair_labels.cohen"]["by_pair"] == labels["cohen"]["by_pair"]
        assert measures["pair_labels.fleiss"]["value"] == pytest.approx(labels["fleiss"]["value"])


def test_evaluation_judgements_reach_the_report(team, tmp_path):
    project, anns = team
    project.layer_evaluation = True
    project.save()
    unit = EvaluationUnit.objects.create(
        project=project, source_id="u1", source_sentence="a b c", phrase="b", phrase_start=2, phrase_end=3
    )
    grades = [("Perfect", "Awkward", "Perfect"), ("Major Problem", "Irredeemable", "Awkward")]
    for n, row in enumerate(grades):
        item = EvaluationItem.objects.create(
            unit=unit,
            source_id=f"e{n}",
            position=n,
            paraphrase="x",
            sentence="a x c",
            substitution_start=2,
            substitution_end=3,
        )
        for who, label in zip(anns, row, strict=True):
            Judgement.objects.create(item=item, rater=who, step="grammaticality", label=label)
            Judgement.objects.create(item=item, rater=who, step="meaning", label="Equivalent")
    recompute(project.pk)
    report = current.current(project).results["report"]
    assert report == cli_report(project_document(project), tmp_path)
    assert report["measures"]["fleiss.G2"]["n_items"] == 2


RECOMPUTE = "annotator.recompute_agreement"


def label(pair, who, value, on_commit) -> None:
    """One committed pair-label save (its on-commit work runs)."""
    with on_commit(execute=True):
        annotation_services.set_pair_label(pair, who, value, base_version=None)


def recomputes_sent(task_queue) -> list:
    """The tasks sent but the explorer's refresh (which a stored computation sends)."""
    return [sent for sent in task_queue.sent if sent[0] != computation.EXPLORER_TASK]


def test_a_burst_of_saves_sends_one_recompute(team, task_queue, django_capture_on_commit_callbacks):
    project, anns = team
    pair = project.pairs.order_by("position").first()
    for n in range(20):
        label(
            pair, anns[n % 3], "paraphrase" if n % 2 else "non_paraphrase", django_capture_on_commit_callbacks
        )
    assert task_queue.sent == [(RECOMPUTE, (project.pk,))]
    assert task_queue.countdowns == [scheduling.COALESCE_SECONDS]
    assert AgreementState.objects.get(project=project).queued_at is not None  # dirty, its task waits


def test_the_change_mark_says_whether_it_made_the_project_dirty(team):
    """`changes.mark_changed`: None without a state row; a change to a clean project dirties it (its save
    sends the task) in two UPDATEs, one to a dirty project only moves `changed_at`, in one."""
    from django.test.utils import CaptureQueriesContext

    from annotator.agreement import changes

    project, _ = team
    AgreementState.objects.filter(project=project).delete()
    assert changes.mark_changed(project.pk, timezone.now()) is None  # no state row yet
    AgreementState.objects.create(project=project)
    first = timezone.now() - dt.timedelta(hours=1)
    with CaptureQueriesContext(connection) as clean:
        assert changes.mark_changed(project.pk, first) is True  # it was clean: this change sends the task
    later = first + dt.timedelta(seconds=1)
    with CaptureQueriesContext(connection) as dirty:
        assert changes.mark_changed(project.pk, later) is False  # a task waits already
    assert (len(clean.captured_queries), len(dirty.captured_queries)) == (2, 1)
    state = AgreementState.objects.get(project=project)
    assert (state.changed_at, state.queued_at) == (later, first)
    scheduling.take_queued(project.pk)  # the computation started
    assert changes.mark_changed(project.pk, later + dt.timedelta(seconds=1)) is True


@pytest.mark.django_db(transaction=True)
def test_a_computation_starting_during_a_save_waits_for_the_save_s_change_mark(team):
    """The change mark of a save to a dirty project locks the state row until the save commits, so the
    computation's start (`take_queued`) waits for it and then reads the save (PostgreSQL's row locks)."""
    from django.db import transaction

    from annotator.agreement import changes

    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    project, _ = team
    AgreementState.objects.update_or_create(project=project, defaults={"queued_at": timezone.now()})
    marked, release, started = threading.Event(), threading.Event(), threading.Event()

    def save() -> None:
        try:
            with transaction.atomic():
                assert changes.mark_changed(project.pk, timezone.now()) is False
                marked.set()
                release.wait(10)
        finally:
            connection.close()

    def start() -> None:
        try:
            scheduling.take_queued(project.pk)
            started.set()
        finally:
            connection.close()

    saving = threading.Thread(target=save)
    saving.start()
    assert marked.wait(10)
    starting = threading.Thread(target=start)
    starting.start()
    assert not started.wait(0.5)  # the save has not committed: the computation waits
    release.set()
    saving.join(10)
    starting.join(10)
    assert started.is_set()


def test_a_save_after_the_computation_started_sends_again(
    team, task_queue, django_capture_on_commit_callbacks
):
    project, anns = team
    pair = project.pairs.order_by("position").first()
    label(pair, anns[0], "paraphrase", django_capture_on_commit_callbacks)
    assert tasks.recompute_agreement(project.pk).startswith("stored")  # the worker takes the task
    state = AgreementState.objects.get(project=project)
    assert state.queued_at is None and state.started_at is not None
    label(pair, anns[1], "non_paraphrase", django_capture_on_commit_callbacks)
    label(pair, anns[2], "non_paraphrase", django_capture_on_commit_callbacks)
    assert recomputes_sent(task_queue) == [(RECOMPUTE, (project.pk,))] * 2
    assert tasks.recompute_agreement(project.pk).startswith("stored")
    assert recompute(project.pk) == "unchanged"  # the second computation read both saves


def test_a_task_that_finds_the_project_busy_is_retried_by_celery(team, monkeypatch):
    from celery.exceptions import Retry

    project, _ = team
    make.partly_agree(project, team[1])

    @contextmanager
    def held_elsewhere(project_id):
        yield False

    monkeypatch.setattr(scheduling, "project_lock", held_elsewhere)
    assert recompute(project.pk) == "busy"
    with pytest.raises(Retry):
        tasks.recompute_agreement(project.pk)
    assert not AgreementSnapshot.objects.filter(project=project).exists()


def test_in_process_a_change_committed_during_the_computation_is_computed_after_it(
    team, monkeypatch, eager_celery
):
    """Without a broker the request that saved while another request's computation held the project
    found it busy; the holder sees the project dirty when it ends and computes again."""
    from annotator.agreement import changes

    project, anns = team
    make.partly_agree(project, anns)
    pair = project.pairs.order_by("position").first()
    runs = []
    real, compute = computation.project_document, computation._compute_and_store

    def a_save_arrives(p):
        doc = real(p)  # the computation has read the annotations: the save is not in this one
        if not runs:
            annotation_services.set_pair_label(pair, anns[0], "non_paraphrase", base_version=None)
            changes.project_changed(project.pk, pair.pk)
        return doc

    def counted(*args, **kwargs):
        runs.append(compute(*args, **kwargs))
        return runs[-1]

    monkeypatch.setattr(computation, "project_document", a_save_arrives)
    monkeypatch.setattr(computation, "_compute_and_store", counted)
    assert recompute(project.pk).startswith("stored")
    monkeypatch.setattr(computation, "project_document", real)
    assert len(runs) == 2 and runs[0].startswith("stored")
    assert AgreementState.objects.get(project=project).queued_at is None
    assert current.fingerprint(project) == document_fingerprint(project, project_document(project))


@pytest.mark.django_db(transaction=True)
def test_in_process_a_save_computes_in_its_own_request_and_starts_no_thread(client, eager_celery):
    """The embedded default: the recompute is a task run where it is sent — in the request that saved,
    after its response (the test client returns once it ran) — not a thread."""
    lead = make.user("lead")
    ana, bo = make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    pair = project.pairs.order_by("position").first()
    client.force_login(ana)
    threads = set(threading.enumerate())
    response = client.post(
        reverse("annotator:pair-label", args=[project.pk, pair.pk]),
        {"label": "paraphrase", "base_version": annotation_services.sheet_version(pair, ana)},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert set(threading.enumerate()) == threads
    state = AgreementState.objects.get(project=project)
    assert not state.is_behind and state.queued_at is None
    assert current.fingerprint(project) == document_fingerprint(project, project_document(project))


@pytest.mark.django_db(transaction=True)
def test_the_project_lock_is_exclusive_and_the_server_frees_a_dead_session_s_lock():
    """PostgreSQL: a second computation of the project is busy while another session holds it; a
    session that ends without unlocking (a killed worker) holds nothing. Elsewhere the lock is the
    computation's transaction."""
    if connection.vendor != "postgresql":
        with scheduling.project_lock(1) as held:
            assert held and connection.in_atomic_block
        return
    project = make.project_with_pairs(n_pairs=1)
    holding, release = threading.Event(), threading.Event()

    def killed_worker() -> None:
        assert sql.try_advisory_lock(scheduling.ADVISORY_LOCK_CLASS, project.pk)
        holding.set()
        release.wait(30)
        connection.close()  # its session ends without unlocking

    thread = threading.Thread(target=killed_worker)
    thread.start()
    assert holding.wait(30)
    with scheduling.project_lock(project.pk) as held:
        assert held is False
    assert recompute(project.pk) == "busy"
    release.set()
    thread.join(30)
    deadline = time.monotonic() + 10  # the server ends the closed session's backend within moments
    while recompute(project.pk) == "busy" and time.monotonic() < deadline:
        time.sleep(0.1)
    with scheduling.project_lock(project.pk) as held:
        assert held is True


def test_bug_fails_loudly_and_is_recorded(team, monkeypatch):
    project, _ = team

    def broken(project):
        raise KeyError("tokens1")

    monkeypatch.setattr(computation, "project_document", broken)
    with pytest.raises(KeyError):
        recompute(project.pk)
    state = AgreementState.objects.get(project=project)
    assert "KeyError" in state.last_error and "tokens1" in state.last_error
    assert not AgreementSnapshot.objects.filter(project=project).exists()


def test_deleted_project_is_skipped():
    assert recompute(987654) == "deleted"


def test_broker_down_marks_the_project_and_the_catch_up_resends(
    team, task_queue, django_capture_on_commit_callbacks
):
    from kombu.exceptions import OperationalError

    project, anns = team
    pair = project.pairs.order_by("position").first()
    task_queue.refuse_with = OperationalError("connection refused")
    label(pair, anns[0], "paraphrase", django_capture_on_commit_callbacks)
    state = AgreementState.objects.get(project=project)
    assert state.enqueue_failed and state.queued_at is None  # the next save tries again
    label(pair, anns[1], "paraphrase", django_capture_on_commit_callbacks)
    assert scheduling.catch_up() == 0 and task_queue.sent == []  # still down
    task_queue.refuse_with = None  # the broker is back: the periodic catch-up re-sends
    assert scheduling.catch_up() == 1
    assert task_queue.sent == [(RECOMPUTE, (project.pk,))]
    state = AgreementState.objects.get(project=project)
    assert not state.enqueue_failed and state.queued_at is not None
    assert scheduling.catch_up() == 0  # a task waits for the changes
    assert tasks.recompute_agreement(project.pk).startswith("stored")
    assert scheduling.catch_up() == 0 and len(recomputes_sent(task_queue)) == 1  # nothing waits


def test_the_catch_up_resends_a_task_that_never_started(team, task_queue, django_capture_on_commit_callbacks):
    project, anns = team
    label(
        project.pairs.order_by("position").first(), anns[0], "paraphrase", django_capture_on_commit_callbacks
    )
    assert scheduling.catch_up() == 0
    lost = timezone.now() - dt.timedelta(seconds=scheduling.LOST_AFTER_SECONDS + 1)
    AgreementState.objects.filter(project=project).update(queued_at=lost)  # its message was lost
    assert scheduling.catch_up() == 1
    assert recomputes_sent(task_queue) == [(RECOMPUTE, (project.pk,))] * 2


def test_report_sections_equal_build_report_of_whole_document(team):
    project, anns = team
    make.partly_agree(project, anns)
    doc = project_document(project)
    from annotator.agreement.results import report_sections

    report, _, _, pending = report_sections(doc)
    assert pending == []
    assert report == build_report(parse_document(doc))


def test_a_change_made_while_a_computation_ran_keeps_the_project_behind():
    """The computation read the annotations when it started: a change made while it ran is not in its
    snapshot, although the computation finished after the change."""
    from datetime import datetime, timedelta

    t0 = datetime(2026, 1, 1, 12, 0)
    state = AgreementState(started_at=t0, finished_at=t0 + timedelta(seconds=2))
    assert not state.is_behind  # nothing changed
    state.changed_at = t0 - timedelta(seconds=1)
    assert not state.is_behind  # changed before the computation started: in its snapshot
    state.changed_at = t0 + timedelta(seconds=1)
    assert state.is_behind  # changed while it ran
    state.started_at, state.changed_at = t0 + timedelta(seconds=3), t0 - timedelta(seconds=1)
    assert state.is_behind  # a computation is running
