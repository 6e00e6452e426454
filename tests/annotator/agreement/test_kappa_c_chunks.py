"""κ_C's Monte Carlo in chunks that any worker takes (annotator.agreement.kappa_c_chunks): the combined
snapshot equals the single-process one bit for bit, unchanged chunks are reused, a dead worker's chunk
is taken over, and the dashboard shows how far the chunks are."""

from __future__ import annotations

import datetime
import json

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from annotator.agreement import current, kappa_c_chunks, results, scheduling
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.models import AgreementSnapshot, KappaCChunk, KappaCRun
from metrics.chance import ChanceChunk
from tests import make

pytestmark = pytest.mark.django_db
CHUNK = "annotator.compute_kappa_c_chunk"


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    results.forget_memos()
    yield
    results.forget_memos()


@pytest.fixture
def team(settings):
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 0  # always expensive: provisional, then chunks
    settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS = 1  # one item per chunk: 4 pairs × 3 annotator pairs
    c = make.cast()
    project = make.project_with_pairs(n_pairs=4, lead=c.lead, annotators=c.annotators)
    make.partly_agree(project, c.annotators)
    return project, c


def kappa_c_measures(snapshot: AgreementSnapshot) -> dict:
    return {k: v for k, v in snapshot.results["report"]["measures"].items() if k.startswith("kappa_c")}


def single_process_kappa_c(project, settings) -> dict:
    """The same project's κ_C computed in one process, the chunks switched off and nothing reused."""
    settings.AGREEMENT_KAPPA_C_CHUNKS = False
    results.forget_memos()
    recompute(project.pk, full=True)
    settings.AGREEMENT_KAPPA_C_CHUNKS = True
    return kappa_c_measures(current.current(project))


def test_in_process_chunks_give_the_single_process_kappa_c_bit_for_bit(team, settings, eager_celery):
    project, _ = team
    assert recompute(project.pk) == "stored provisional+final"
    provisional, final = AgreementSnapshot.objects.filter(project=project).order_by("id")
    assert provisional.results["pending"] == ["kappa_c"] and final.results["pending"] == []
    assert KappaCChunk.objects.filter(project=project, status="done").count() == 12
    chunked = kappa_c_measures(final)
    assert chunked["kappa_c.pi0"]["by_pair"]  # three annotator pairs with a sampled π̂0
    assert chunked == single_process_kappa_c(project, settings)  # == on floats: bit for bit


def test_chunks_go_to_the_workers_and_the_last_schedules_the_combination(team, settings, task_queue):
    project, _ = team
    outcome = recompute(project.pk)
    assert outcome == "stored provisional; κ_C in 12 chunks (0 done)"
    assert current.current(project).results["pending"] == ["kappa_c"]
    sent = [args[0] for args in task_queue.args_of(CHUNK)]
    assert len(sent) == 12 and kappa_c_chunks.progress(project.pk) == (0, 12)
    for k, chunk_id in enumerate(reversed(sent)):  # any order, any worker
        assert kappa_c_chunks.compute(chunk_id) == "done"
        assert kappa_c_chunks.compute(chunk_id) == "skipped"  # a redelivered task changes nothing
        assert kappa_c_chunks.progress(project.pk) == (k + 1, 12)
        scheduled = task_queue.args_of("annotator.recompute_agreement")
        assert [a[0] for a in scheduled] == (
            [project.pk] if k == 11 else []
        )  # only the last chunk schedules it
    assert recompute(project.pk) == "stored"
    assert current.current(project).results["pending"] == []
    assert kappa_c_measures(current.current(project)) == single_process_kappa_c(project, settings)


def test_a_change_by_one_annotator_recomputes_only_their_pairs_chunks(team, settings, task_queue):
    project, c = team
    recompute(project.pk)
    for (chunk_id,) in task_queue.args_of(CHUNK):
        kappa_c_chunks.compute(chunk_id)
    recompute(project.pk)
    task_queue.sent.clear()
    pair = project.pairs.get(source_id="p1")
    annotation_services.set_links(pair, c.annotators[2], [(0, 0)], sure=True, base_version=None)
    assert recompute(project.pk) == "stored provisional; κ_C in 12 chunks (4 done)"
    keys = set(
        KappaCChunk.objects.filter(pk__in=[a[0] for a in task_queue.args_of(CHUNK)]).values_list(
            "key", flat=True
        )
    )
    assert len(task_queue.args_of(CHUNK)) == 8 and "anna|ben" not in keys  # cat's two pairs only
    assert KappaCChunk.objects.filter(project=project).count() == 12  # the old plan's chunks are gone
    assert KappaCRun.objects.filter(project=project).count() == 1


def test_a_chunk_steps_aside_for_a_due_recompute_and_resumes_where_it_stopped(
    team, settings, task_queue, monkeypatch
):
    """A worker's only pool process must not keep a due recompute of the project waiting for a whole
    chunk: the chunk stops after the item it is on, keeps its items' values and is queued again; run
    again it resumes after them. The combined κ_C is still the single-process one, bit for bit."""
    project, _ = team
    settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS = 10**12  # one chunk of 4 items per annotator pair
    settings.AGREEMENT_KAPPA_C_YIELD_CHECK = 0
    recompute(project.pk)
    sent = [args[0] for args in task_queue.args_of(CHUNK)]
    assert len(sent) == 3
    answers: list[bool] = []  # what `recompute_due` answers next (then: not due)
    monkeypatch.setattr(
        kappa_c_chunks.scheduling, "recompute_due", lambda _pk: answers.pop(0) if answers else False
    )
    first = sent[0]
    task_queue.sent.clear()
    answers[:] = [False, False, True]  # not due when it starts, due after its second item
    assert kappa_c_chunks.compute(first) == "yielded"
    row = KappaCChunk.objects.get(pk=first)
    assert (row.status, row.done_items, len(row.means) // 8, row.attempts) == ("pending", 2, 2, 0)
    assert task_queue.args_of(CHUNK) == [(first,)]  # queued again, behind the others
    answers[:] = [True]  # due before it starts: nothing is claimed, the task sends it again later
    assert kappa_c_chunks.compute(first) == "deferred"
    assert KappaCChunk.objects.get(pk=first).claimed_at is None
    answers[:] = [False, True]  # due after one more item
    assert kappa_c_chunks.compute(first) == "yielded"
    assert KappaCChunk.objects.get(pk=first).done_items == 3
    for chunk_id in sent:
        assert kappa_c_chunks.compute(chunk_id) == "done"
    assert KappaCChunk.objects.get(pk=first).done_items == 4
    assert recompute(project.pk) == "stored"
    assert kappa_c_measures(current.current(project)) == single_process_kappa_c(project, settings)


def test_a_plan_is_computed_in_the_recompute_only_when_its_chunks_left_are_few(team, settings, task_queue):
    """`start_plan(here=True)` (a small κ_C after an update) computes the chunks still pending in the
    recompute — unless they are more than AGREEMENT_KAPPA_C_DEFER_WORK items × samples (say, an older
    plan's chunks nobody took): those are queued for the workers as usual."""
    project, _ = team
    recompute(project.pk)
    run = KappaCRun.objects.get(project=project)
    specs = dict(KappaCChunk.objects.filter(project=project).values_list("digest", "spec"))
    plan = {
        key: [ChanceChunk.from_dict(json.loads(specs[d])) for d in digests]
        for key, digests in run.chunks.items()
    }
    task_queue.sent.clear()
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 11 * 1000  # 12 items pending × 1,000 samples: too many
    assert kappa_c_chunks.start_plan(project, plan, run.fingerprint, here=True) == (0, 12)
    assert len(task_queue.args_of(CHUNK)) == 12
    task_queue.sent.clear()
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 12 * 1000
    assert kappa_c_chunks.start_plan(project, plan, run.fingerprint, here=True) == (12, 12)
    assert task_queue.sent == []  # computed here; not even the combining recompute is scheduled


def test_a_recompute_is_due_once_its_countdown_has_passed(task_queue):
    project = make.project_with_pairs("Due", n_pairs=1)
    assert not scheduling.recompute_due(project.pk)  # nothing scheduled
    assert scheduling.schedule(project.pk, countdown=60)
    assert not scheduling.recompute_due(project.pk)  # scheduled, not due yet
    cache.delete(scheduling.SCHEDULED_KEY.format(project.pk))
    assert scheduling.schedule(project.pk, countdown=0)
    assert scheduling.recompute_due(project.pk)
    recompute(project.pk)  # a recompute that starts takes the key: chunks go on
    assert not scheduling.recompute_due(project.pk)


def test_a_chunk_whose_worker_stopped_is_taken_over_and_requeued(team, settings, task_queue):
    project, _ = team
    settings.AGREEMENT_KAPPA_C_CHUNK_STALE = 30
    recompute(project.pk)
    first = task_queue.args_of(CHUNK)[0][0]
    now = timezone.now()
    # a live worker holds it: another delivery skips it, the status poll leaves it alone
    KappaCChunk.objects.filter(pk=first).update(claimed_at=now, heartbeat_at=now, attempts=1)
    assert kappa_c_chunks.compute(first) == "held"
    assert kappa_c_chunks.requeue_stale(project.pk) == 0
    # the worker was killed: its heartbeat stops
    KappaCChunk.objects.filter(pk=first).update(heartbeat_at=now - datetime.timedelta(seconds=31))
    task_queue.sent.clear()
    assert kappa_c_chunks.requeue_stale(project.pk) == 1
    assert task_queue.args_of(CHUNK) == [(first,)]
    assert kappa_c_chunks.requeue_stale(project.pk) == 0  # sent once, not at every poll
    assert kappa_c_chunks.compute(first) == "done"
    assert KappaCChunk.objects.get(pk=first).attempts == 2


def test_dashboard_status_shows_the_chunks_done(team, client, task_queue):
    project, c = team
    recompute(project.pk)
    sent = [args[0] for args in task_queue.args_of(CHUNK)]
    for chunk_id in sent[:7]:
        kappa_c_chunks.compute(chunk_id)
    client.force_login(c.lead)
    url = reverse("annotator:dashboard", args=[project.pk])
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "snapshot-status"}
    first = client.get(url, {"seen": ""}, **headers)
    assert 'κ_C: <span class="kappa-c-chunks">7 of 12 chunks</span>' in first.content.decode()
    kappa_c_chunks.compute(sent[7])
    again = client.get(url, {"seen": ""}, HTTP_IF_NONE_MATCH=first["ETag"], **headers)
    assert (
        again.status_code == 200 and "8 of 12 chunks" in again.content.decode()
    )  # progress changes the ETag


def test_a_chunk_that_failed_again_and_again_is_not_requeued_forever(team, task_queue):
    project, _ = team
    recompute(project.pk)
    first = task_queue.args_of(CHUNK)[0][0]
    long_ago = timezone.now() - datetime.timedelta(hours=1)
    KappaCChunk.objects.filter(pk=first).update(
        claimed_at=long_ago, heartbeat_at=long_ago, attempts=kappa_c_chunks.MAX_ATTEMPTS
    )
    assert kappa_c_chunks.requeue_stale(project.pk) == 0


def _stored_plan(project, fingerprint: str, **chunk: object) -> KappaCChunk:
    KappaCRun.objects.create(project=project, fingerprint=fingerprint, chunks={"a|b": ["d1", "d2"]})
    KappaCChunk.objects.create(
        project=project, digest="d1", key="a|b", start=0, n_items=1, draws=1, spec="{}", status="done"
    )
    fields = {"queued_at": timezone.now(), **chunk}
    return KappaCChunk.objects.create(
        project=project, digest="d2", key="a|b", start=1, n_items=1, draws=1, spec="{}", **fields
    )


def test_a_new_plan_waits_while_another_plan_is_computed_by_the_workers(monkeypatch) -> None:
    """With a broker, a plan for newer inputs is not stored while the workers still compute the project's
    plan (a chunk queued recently, or held with a fresh heartbeat): its progress is answered instead,
    and nothing of it is deleted or queued again."""
    monkeypatch.setattr(kappa_c_chunks.taskqueue, "runs_in_process", lambda: False)
    project = make.project_with_pairs("In flight", n_pairs=2)
    _stored_plan(project, "older inputs")
    assert kappa_c_chunks.plan_in_flight(project.pk, "newer inputs") == (1, 2)
    assert kappa_c_chunks.start_plan(project, {}, "newer inputs") == (1, 2)
    assert list(KappaCRun.objects.values_list("fingerprint", flat=True)) == ["older inputs"]
    assert KappaCChunk.objects.filter(project=project).count() == 2
    assert (
        kappa_c_chunks.plan_in_flight(project.pk, "older inputs") is None
    )  # the same inputs: not another plan


@pytest.mark.parametrize(
    "chunk",
    [
        {"claimed_at": timezone.now(), "heartbeat_at": timezone.now() - datetime.timedelta(minutes=5)},
        {"queued_at": timezone.now() - datetime.timedelta(hours=2)},
    ],
    ids=["its worker died", "its message was lost"],
)
def test_a_plan_whose_chunks_nobody_computes_is_replaced(monkeypatch, chunk: dict) -> None:
    monkeypatch.setattr(kappa_c_chunks.taskqueue, "runs_in_process", lambda: False)
    project = make.project_with_pairs("Stuck plan", n_pairs=2)
    _stored_plan(project, "older inputs", **chunk)
    assert kappa_c_chunks.plan_in_flight(project.pk, "newer inputs") is None
    assert kappa_c_chunks.start_plan(project, {}, "newer inputs") == (0, 0)
    assert list(KappaCRun.objects.values_list("fingerprint", flat=True)) == ["newer inputs"]
    assert not KappaCChunk.objects.filter(project=project).exists()
