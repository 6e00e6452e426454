"""κ_C finished alone from the stored per-pair parts (annotator.agreement.kappa_c_section) after an
incremental update, and when the chord of its Monte Carlo's parts is done: the κ_C section equals a full
single-process recomputation's bit for bit, on random link edits (hypothesis); the full computation
does not run; a state stored without the κ_C parts falls back to it.

Runs on the configured database: SQLite by default, PostgreSQL when DATABASE_URL points at one.
"""

from __future__ import annotations

import itertools

import pytest
from django.core.cache import cache
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from annotator import tasks
from annotator.agreement import computation, current, incremental, kappa_c_chunks
from annotator.agreement import results as agreement_results
from annotator.agreement.computation import latest_snapshot, recompute
from annotator.annotation import services as annotation_services
from annotator.models import AgreementPairState, AgreementSection, AgreementSnapshot
from tests import make

# κ_C's parts run in-process (no worker here), also when the suite has a broker
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
_names = itertools.count()
PART = kappa_c_chunks.PART_TASK

edit = st.one_of(
    st.tuples(
        st.just("link"),
        st.integers(0, 2),
        st.integers(0, 2),
        st.tuples(st.integers(0, 5), st.integers(0, 3), st.booleans()),
    ),
    st.tuples(
        st.just("unlink"),
        st.integers(0, 2),
        st.integers(0, 2),
        st.tuples(st.integers(0, 5), st.integers(0, 3)),
    ),
    st.tuples(st.just("restart"), st.just(0), st.just(0), st.just(None)),
)

#: A link nobody has yet (`team` aligns (1, 0), (4, 2) and (k, k)): κ_C's inputs change at least once.
first_link = st.tuples(
    st.just("link"), st.integers(0, 2), st.integers(0, 2), st.tuples(st.just(0), st.just(3), st.booleans())
)


def apply(edit_: tuple, pairs: list, anns: tuple) -> None:
    kind, p, a, arg = edit_
    pair, who = pairs[p], anns[a]
    if kind == "restart":  # a new worker process: nothing kept in memory, only the stored state
        agreement_results.forget_memos()
        agreement_results.forget_phenomena_states()
        incremental.forget_kept()
    elif kind == "link":
        i, j, sure = arg
        annotation_services.set_links(pair, who, [(i, j)], sure=sure, base_version=None)
    else:
        annotation_services.remove_links(pair, who, [arg], base_version=None)


def kappa_c_measures(snapshot: AgreementSnapshot | current.Current) -> dict:
    return {k: v for k, v in snapshot.results["report"]["measures"].items() if k.startswith("kappa_c")}


def comparable(snapshot: AgreementSnapshot | current.Current) -> dict:
    return {k: v for k, v in snapshot.results.items() if k != "sections"}


def single_process(project, settings_) -> AgreementSnapshot:
    """A full recomputation in one process: nothing reused, κ_C not deferred, no parts."""
    settings_.AGREEMENT_KAPPA_C_DEFER_WORK = 10**12
    agreement_results.forget_memos()
    assert recompute(project.pk, full=True) == "stored"
    return latest_snapshot(project)


class FullComputations:
    """Counts the full computations (`computation._compute_and_store_all`) while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = computation._compute_and_store_all

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(computation, "_compute_and_store_all", counted)


def team(n: int, n_pairs: int = 3):
    anns = tuple(make.user(f"kcs{n}-{k}") for k in range(3))
    project = make.project_with_pairs(
        f"KCS {n}", n_pairs=n_pairs, lead=make.user(f"kcslead{n}"), annotators=anns
    )
    make.long_pair(project, anns, n_tokens=9)  # another length: the edit models' slopes are not 0
    pairs = list(project.pairs.order_by("position"))
    for k, who in enumerate(anns):  # everybody aligns every pair a little differently
        for pair in pairs:
            annotation_services.set_links(pair, who, [(1, 0), (4, 2)], sure=True, base_version=None)
            annotation_services.set_links(pair, who, [(k, k)], sure=False, base_version=None)
    return project, pairs, anns


# No shrinking phase (each example recomputes several times): a failure prints its unshrunk edits.
@settings(
    max_examples=8,
    deadline=None,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    edits=st.tuples(first_link, st.lists(edit, max_size=5)).map(lambda x: [x[0], *x[1]]), chunks=st.booleans()
)
def test_kappa_c_finished_alone_equals_the_full_computation_bit_for_bit(edits, chunks, settings, monkeypatch):
    cache.clear()
    agreement_results.forget_memos()
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 0  # κ_C after every link change: provisional, then finished
    # a few items per part, or one part per annotator pair (run in-process: no broker)
    settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS = 60_000 if chunks else 10**12
    project, pairs, anns = team(next(_names))
    assert recompute(project.pk).startswith("stored")  # the first computation is full: it stores the state
    full = FullComputations(monkeypatch)
    outcomes = []
    for edit_ in edits:
        apply(edit_, pairs, anns)
        outcomes.append(recompute(project.pk))
    print("outcomes:", outcomes)
    assert full.calls == 0  # κ_C was finished alone every time it was pending
    latest = current.current(project)  # the current agreement (a report is stored at the cadence)
    assert latest.results["pending"] == []
    assert "stored provisional+final" in outcomes  # …and it was pending at least once (the first edit)
    finished = kappa_c_measures(latest)
    assert finished["kappa_c.pi0"]["by_pair"] and finished["kappa_c.edit_model"]["by_annotator"]
    monkeypatch.undo()
    reference = single_process(project, settings)
    assert reference.fingerprint == latest.fingerprint
    assert finished == kappa_c_measures(reference)  # == on floats: bit for bit (π̂0, κ_C, pi0_se, models)
    assert comparable(latest) == comparable(reference)  # and the rest of the report as it was
    section = AgreementSection.objects.get(project=project, name="kappa_c")
    assert section.measures == finished


def test_the_chords_callback_finishes_kappa_c_alone(settings, task_queue, monkeypatch):
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 0
    settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS = 1  # one item per part: 4 pairs × 3 annotator pairs
    project, pairs, anns = team(next(_names))
    recompute(project.pk)
    for (part_id,) in task_queue.args_of(PART):
        kappa_c_chunks.compute(part_id)
    assert recompute(project.pk) == "stored"  # the first plan's parts combined
    task_queue.sent.clear()
    annotation_services.set_links(pairs[1], anns[2], [(0, 0)], sure=True, base_version=None)
    full = FullComputations(monkeypatch)
    assert recompute(project.pk) == "stored provisional; κ_C in 12 parts (4 done)"  # anns[2]'s pairs again
    assert recompute(project.pk) == "waiting; κ_C in 12 parts (4 done)"  # a recompute meanwhile: nothing new
    sent = [part_id for (part_id,) in task_queue.args_of(PART)]
    assert len(sent) == 8
    outcomes = [kappa_c_chunks.compute(part_id) for part_id in sent]
    callback, args = task_queue.chords[-1]
    assert callback == kappa_c_chunks.FINISH_TASK
    assert tasks.finish_kappa_c(outcomes, *args) == "stored"
    assert full.calls == 0
    finished = current.current(project)
    assert finished.results["pending"] == []
    monkeypatch.undo()
    assert kappa_c_measures(finished) == kappa_c_measures(single_process(project, settings))


def test_a_small_kappa_c_after_an_update_is_computed_with_it_without_the_full_computation(
    settings, task_queue, monkeypatch
):
    """With workers (a broker), a link change whose κ_C Monte Carlo is small (below
    AGREEMENT_KAPPA_C_DEFER_WORK: here, one annotator's two pairs) is stored final by the update itself:
    the changed parts are computed in the recompute, the others reused, nothing is queued, and the
    full computation (a whole project's document: tens of seconds at corpus scale) does not run."""
    settings.AGREEMENT_KAPPA_C_CHUNK_DRAWS = 1  # one item per chunk: 4 pairs × 3 annotator pairs
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 0
    project, pairs, anns = team(next(_names))
    recompute(project.pk)
    for (part_id,) in task_queue.args_of(PART):
        kappa_c_chunks.compute(part_id)
    assert recompute(project.pk) == "stored"
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 10_000  # anns[2]'s two annotator pairs: 8 items × 1,000
    task_queue.sent.clear()
    annotation_services.set_links(pairs[1], anns[2], [(0, 0)], sure=True, base_version=None)
    full = FullComputations(monkeypatch)
    headlines = project.agreement_headlines.count()
    assert recompute(project.pk) == "stored"
    assert full.calls == 0 and task_queue.sent == []
    assert project.agreement_headlines.count() == headlines + 1  # one store: no provisional one
    finished = current.current(project)
    assert finished.results["pending"] == []
    monkeypatch.undo()
    assert kappa_c_measures(finished) == kappa_c_measures(single_process(project, settings))


def test_a_state_without_kappa_c_parts_is_finished_by_the_full_computation(settings, monkeypatch):
    settings.AGREEMENT_KAPPA_C_DEFER_WORK = 0
    project, pairs, anns = team(next(_names))
    recompute(project.pk)
    for row in AgreementPairState.objects.filter(project=project):  # as stored before parts were kept
        row.contributions.pop("kappa_c")
        row.save(update_fields=["contributions"])
    annotation_services.set_links(pairs[0], anns[0], [(0, 0)], sure=True, base_version=None)
    full = FullComputations(monkeypatch)
    assert recompute(project.pk) == "stored provisional+final"
    assert full.calls == 1
    assert all("kappa_c" in row.contributions for row in AgreementPairState.objects.filter(project=project))
