"""The embedded default (no broker): recomputes run in a background thread, coalesced and locked."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import cache

from annotator import taskqueue
from annotator.agreement import computation, scheduling
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.models import AgreementSnapshot
from tests import make


@pytest.fixture(autouse=True)
def background(settings, eager_celery):
    assert taskqueue.runs_in_process()  # the embedded default, also when the suite has a broker
    settings.AGREEMENT_IN_PROCESS_BACKGROUND = True
    settings.AGREEMENT_COALESCE_SECONDS = 0.2
    settings.AGREEMENT_RERUN_DELAY_SECONDS = 0.0
    cache.clear()
    yield
    assert scheduling.wait_for_background(timeout=60)
    cache.clear()


@pytest.mark.django_db(transaction=True)
def test_saves_return_before_the_recompute_which_runs_in_a_thread_and_catches_up(monkeypatch):
    lead = make.user("lead")
    ana, bo = make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=4, lead=lead, annotators=(ana, bo))
    threads: list[str] = []
    real = computation.recompute

    def recording(project_id: int, claim: int | None = None) -> str:
        threads.append(threading.current_thread().name)
        return real(project_id, claim=claim)

    monkeypatch.setattr(computation, "recompute", recording)
    pairs = list(project.pairs.order_by("position"))
    for n, pair in enumerate(pairs):  # a burst of saves, each committed (on_commit → schedule)
        annotation_services.set_pair_label(pair, ana, "paraphrase", base_version=None)
        annotation_services.set_pair_label(
            pair, bo, "paraphrase" if n % 2 else "non_paraphrase", base_version=None
        )
    saved_before_any_store = AgreementSnapshot.objects.filter(project=project).count()
    assert scheduling.wait_for_background(timeout=60)
    assert threads and all(name.startswith("agreement-recompute-") for name in threads)
    assert saved_before_any_store == 0  # the countdown had not elapsed: no save waited for a computation
    stored = AgreementSnapshot.objects.filter(project=project).count()
    assert 1 <= stored < 2 * len(pairs)  # the burst coalesced
    monkeypatch.setattr(computation, "recompute", real)
    assert recompute(project.pk) == "unchanged"  # the background result holds every save


@pytest.mark.django_db(transaction=True)
def test_a_save_during_a_computation_leaves_a_rerun_that_the_thread_runs(monkeypatch):
    lead = make.user("lead")
    ana, bo = make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    first, second = project.pairs.order_by("position")
    started, release = threading.Event(), threading.Event()
    real = computation._compute_and_store

    def slow(*args, **kwargs):  # stores, then holds the lock until released
        outcome = real(*args, **kwargs)
        started.set()
        assert release.wait(30)
        return outcome

    monkeypatch.setattr(computation, "_compute_and_store", slow)
    annotation_services.set_pair_label(first, ana, "paraphrase", base_version=None)
    assert started.wait(30)  # stored without the second save, still holding the lock
    monkeypatch.setattr(computation, "_compute_and_store", real)
    annotation_services.set_pair_label(second, bo, "non_paraphrase", base_version=None)
    assert AgreementSnapshot.objects.filter(project=project).count() == 1
    release.set()
    assert scheduling.wait_for_background(timeout=60)
    assert AgreementSnapshot.objects.filter(project=project).count() == 2  # the rerun stored the save
    assert recompute(project.pk) == "unchanged"
