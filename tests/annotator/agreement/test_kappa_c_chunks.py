"""κ_C's Monte Carlo in parts computed by one Celery chord (annotator.agreement.kappa_c_chunks): the
combined snapshot equals the single-process one bit for bit, unchanged parts are reused, a part
delivered twice changes nothing, an older plan's tasks step back for a newer one, and the dashboard
shows how far the parts are."""

from __future__ import annotations

import importlib

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotator import tasks
from annotator.agreement import current, kappa_c_chunks
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.models import AgreementSnapshot, KappaCChunk, KappaCRun
from tests import make

pytestmark = pytest.mark.django_db
PART = kappa_c_chunks.PART_TASK
FINISH = kappa_c_chunks.FINISH_TASK


@pytest.fixture(autouse=True)
def clean_cache():
    cache.clear()
    yield


@pytest.fixture
def team(settings):
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 0  # always expensive: provisional, then parts
    settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS = 1  # one item per part: 4 pairs × 3 annotator pairs
    c = make.cast()
    project = make.project_with_pairs(n_pairs=4, lead=c.lead, annotators=c.annotators)
    make.partly_agree(project, c.annotators)
    return project, c


def kappa_c_measures(snapshot: AgreementSnapshot | current.Current) -> dict:
    return {k: v for k, v in snapshot.results["report"]["measures"].items() if k.startswith("kappa_c")}


def single_process_kappa_c(project, settings) -> dict:
    """The same project's κ_C computed in one process: not deferred (no parts), nothing reused."""
    before = settings.AGREEMENT_KAPPA_C_DEFER_WORK
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 10**12
    recompute(project.pk, full=True)
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = before
    return kappa_c_measures(current.current(project))


def test_in_process_parts_give_the_single_process_kappa_c_bit_for_bit(team, settings, eager_celery):
    project, _ = team
    assert recompute(project.pk) == "stored provisional+final"
    provisional, final = AgreementSnapshot.objects.filter(project=project).order_by("id")
    assert provisional.results["pending"] == ["kappa_c"] and final.results["pending"] == []
    assert KappaCChunk.objects.filter(project=project, status="done").count() == 12
    assert kappa_c_chunks.progress(project.pk) == (12, 12)
    chunked = kappa_c_measures(final)
    assert chunked["kappa_c.pi0"]["by_pair"]  # three annotator pairs with a sampled π̂0
    assert chunked == single_process_kappa_c(project, settings)  # == on floats: bit for bit


def test_parts_go_to_the_workers_as_one_chord_whose_callback_stores_kappa_c(team, settings, task_queue):
    project, _ = team
    assert recompute(project.pk) == "stored provisional; κ_C in 12 parts (0 done)"
    assert current.current(project).results["pending"] == ["kappa_c"]
    run = KappaCRun.objects.get(project=project)
    assert task_queue.chords == [(FINISH, (project.pk, run.pk))]
    sent = [args[0] for args in task_queue.args_of(PART)]
    assert len(sent) == 12 and kappa_c_chunks.progress(project.pk) == (0, 12)
    outcomes = []
    for k, part_id in enumerate(reversed(sent)):  # any order, any worker
        outcomes.append(tasks.compute_kappa_c_part(part_id))
        assert tasks.compute_kappa_c_part(part_id) == "already done"  # delivered again: nothing changes
        assert kappa_c_chunks.progress(project.pk) == (k + 1, 12)
    assert outcomes == ["done"] * 12
    assert task_queue.args_of("annotator.recompute_agreement") == []  # the chord's callback finishes it
    assert tasks.finish_kappa_c(outcomes, project.pk, run.pk) == "stored"
    assert current.current(project).results["pending"] == []
    assert kappa_c_measures(current.current(project)) == single_process_kappa_c(project, settings)


def test_a_change_by_one_annotator_recomputes_only_their_pairs_parts(team, settings, task_queue):
    project, c = team
    recompute(project.pk)
    for (part_id,) in task_queue.args_of(PART):
        kappa_c_chunks.compute(part_id)
    recompute(project.pk)
    task_queue.sent.clear()
    pair = project.pairs.get(source_id="p1")
    annotation_services.set_links(pair, c.annotators[2], [(0, 0)], sure=True, base_version=None)
    assert recompute(project.pk) == "stored provisional; κ_C in 12 parts (4 done)"
    keys = set(
        KappaCChunk.objects.filter(pk__in=[a[0] for a in task_queue.args_of(PART)]).values_list(
            "key", flat=True
        )
    )
    assert len(task_queue.args_of(PART)) == 8 and "anna|ben" not in keys  # cat's two pairs only
    assert KappaCChunk.objects.filter(project=project).count() == 12  # the old plan's parts are gone
    assert KappaCRun.objects.filter(project=project).count() == 1
    assert recompute(project.pk) == "waiting; κ_C in 12 parts (4 done)"  # nothing new: no second chord
    assert len(task_queue.chords) == 2


def test_an_older_plans_tasks_step_back_for_a_newer_plan(team, settings, task_queue):
    """A change while a chord runs: the next recompute plans again (reusing the parts computed so far);
    the older chord's parts no longer used return at once and its callback stores nothing."""
    project, c = team
    recompute(project.pk)
    old_run = KappaCRun.objects.get(project=project)
    old_parts = [a[0] for a in task_queue.args_of(PART)]
    anna_ben = KappaCChunk.objects.filter(project=project, key="anna|ben").values_list("pk", flat=True)
    for part_id in anna_ben:  # a worker got through these before the change
        kappa_c_chunks.compute(part_id)
    task_queue.sent.clear()
    pair = project.pairs.get(source_id="p1")
    annotation_services.set_links(pair, c.annotators[2], [(0, 0)], sure=True, base_version=None)
    assert recompute(project.pk) == "stored provisional; κ_C in 12 parts (4 done)"
    run = KappaCRun.objects.get(project=project)
    assert run.pk != old_run.pk and task_queue.chords[-1] == (FINISH, (project.pk, run.pk))
    dropped = [pk for pk in old_parts if not KappaCChunk.objects.filter(pk=pk).exists()]
    assert len(dropped) == 8  # cat's pairs' parts of the old plan
    assert {kappa_c_chunks.compute(pk) for pk in dropped} == {"dropped"}
    assert tasks.finish_kappa_c([], project.pk, old_run.pk) == "superseded"
    assert current.current(project).results["pending"] == ["kappa_c"]
    outcomes = [kappa_c_chunks.compute(a[0]) for a in task_queue.args_of(PART)]
    assert tasks.finish_kappa_c(outcomes, project.pk, run.pk) == "stored"
    assert kappa_c_measures(current.current(project)) == single_process_kappa_c(project, settings)


def test_parts_not_sent_are_planned_again_by_the_next_recompute(team, settings, task_queue):
    project, _ = team
    task_queue.refuse_with = ConnectionRefusedError("broker down")
    assert recompute(project.pk) == "stored provisional; κ_C in 12 parts (0 done)"
    assert not KappaCRun.objects.filter(project=project).exists()  # nothing waits for a chord never sent
    task_queue.refuse_with = None
    assert recompute(project.pk) == "waiting; κ_C in 12 parts (0 done)"  # planned and sent this time
    assert len(task_queue.args_of(PART)) == 12 and len(task_queue.chords) == 1


def test_the_dashboard_says_how_far_kappa_c_is_without_sending_anything(team, settings, task_queue, client):
    project, c = team
    recompute(project.pk)
    for (part_id,) in task_queue.args_of(PART)[:7]:
        kappa_c_chunks.compute(part_id)
    sent = list(task_queue.sent)
    client.force_login(c.lead)
    page = client.get(reverse("annotator:dashboard", args=[project.pk])).content.decode()
    assert '<span class="kappa-c-parts">7 of 12 parts</span>' in page
    assert task_queue.sent == sent  # a GET sends nothing


def test_the_migration_counts_finished_plans_and_drops_those_with_parts_pending(cast):
    """Migration 0027: a plan whose parts are all computed gets its (done, total); one with a part
    pending (sent as a task of the previous design) is deleted, for the next recompute to plan again."""
    from django.apps import apps

    migration = importlib.import_module("annotator.migrations.0030_kappa_c_chord")
    finished = make.project_with_pairs("Finished", n_pairs=1)
    halfway = make.project_with_pairs("Halfway", n_pairs=1)
    for project, statuses in ((finished, ["done", "done"]), (halfway, ["done", "pending"])):
        KappaCRun.objects.create(project=project, fingerprint="f", chunks={"a|b": ["d0", "d1"]})
        for k, status in enumerate(statuses):
            KappaCChunk.objects.create(
                project=project,
                digest=f"d{k}",
                key="a|b",
                start=k,
                n_items=1,
                draws=1,
                spec="{}",
                status=status,
                means=b"\0" * 8,
                variances=b"\0" * 8,
            )
    migration.count_or_drop_plans(apps, None)
    assert kappa_c_chunks.progress(finished.pk) == (2, 2)
    assert not KappaCRun.objects.filter(project=halfway).exists()
    assert KappaCChunk.objects.get(project=halfway, status="pending").means is None
    assert KappaCChunk.objects.get(project=halfway, status="done").means is not None


def test_a_callback_the_chord_sent_before_its_last_part_waits_for_it(team, settings, task_queue):
    """A part counted twice by the chord (stored, its worker lost before acknowledging it, delivered
    again: "already done") makes the callback come while another part is still to compute: the callback
    is retried, not taken for a superseded plan's, and the next one combines the parts."""
    from celery.exceptions import Retry

    project, _ = team
    recompute(project.pk)
    run = KappaCRun.objects.get(project=project)
    parts = [a[0] for a in task_queue.args_of(PART)]
    outcomes = [kappa_c_chunks.compute(pk) for pk in parts[:-1]]
    with pytest.raises(Retry):
        tasks.finish_kappa_c([*outcomes, outcomes[0]], project.pk, run.pk)
    assert current.current(project).results["pending"] == ["kappa_c"]
    outcomes.append(kappa_c_chunks.compute(parts[-1]))
    assert tasks.finish_kappa_c(outcomes, project.pk, run.pk) == "stored"
    assert kappa_c_measures(current.current(project)) == single_process_kappa_c(project, settings)
