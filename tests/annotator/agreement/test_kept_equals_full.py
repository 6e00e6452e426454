"""The kept agreement equals a from-scratch computation, on random sequences of edits (hypothesis),
label clearing and deletions included: the sums each save moves (`annotator.agreement.sums`, read by
`current.current`), the report sections a recompute copies from the current agreement when their
inputs did not change, and κ_C from the parts the workers computed — against a `--full` recompute
that reuses nothing and sums rebuilt from the annotations.

Runs on the configured database: SQLite by default, PostgreSQL when DATABASE_URL points at one.
"""

from __future__ import annotations

import contextlib
import itertools

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import override_settings
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from annotator.agreement import current, rebuild
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.models import AgreementSnapshot, Phenomenon
from tests import make

pytestmark = pytest.mark.django_db
_names = itertools.count()
TYPES = ("Synthetic/analytic", "Same polarity")  # both take a projection

edit = st.one_of(
    st.tuples(
        st.just("label"),
        st.integers(0, 2),
        st.integers(0, 2),
        st.sampled_from(["paraphrase", "non_paraphrase", ""]),
    ),
    st.tuples(
        st.just("phenomenon"),
        st.integers(0, 2),
        st.integers(0, 2),
        st.tuples(st.integers(0, 1), st.integers(0, 2), st.integers(0, 5)),
    ),
    st.tuples(st.just("unphenomenon"), st.integers(0, 2), st.integers(0, 2), st.just(None)),
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
)


def apply(edit_: tuple, pairs: list, anns: tuple, types: list) -> None:
    kind, p, a, arg = edit_
    pair, who = pairs[p], anns[a]
    if kind == "label":
        annotation_services.set_pair_label(pair, who, arg, base_version=None)
    elif kind == "phenomenon":
        t, start, width = arg
        scope1 = [i for i in range(start, start + width + 1) if i < len(pair.tokens1)]
        annotation_services.add_phenomenon(
            pair,
            who,
            types[t],
            scope1=scope1,
            scope2=[min(start, len(pair.tokens2) - 1)],
            projection="local",
            base_version=None,
        )
    elif kind == "unphenomenon":
        mine = Phenomenon.objects.filter(pair=pair, annotator=who).order_by("pk").first()
        if mine is not None:
            annotation_services.delete_phenomenon(mine, base_version=None)
    elif kind == "link":
        i, j, sure = arg
        annotation_services.set_links(pair, who, [(i, j)], sure=sure, base_version=None)
    else:
        annotation_services.remove_links(pair, who, [arg], base_version=None)


def comparable(snapshot: current.Current) -> dict:
    return {k: v for k, v in snapshot.results.items() if k != "sections"}


# No shrinking phase (each example recomputes several times): a failure prints its unshrunk edits.
@settings(
    max_examples=8,
    deadline=None,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(edits=st.lists(edit, min_size=1, max_size=6))
@pytest.mark.parametrize("kappa_c_deferred", [False, True], ids=["kappa-c-now", "kappa-c-deferred"])
def test_kept_agreement_equals_a_full_recompute(kappa_c_deferred, edits):
    """`kappa_c_deferred`: every recompute whose links changed leaves κ_C to its Monte Carlo's parts
    (as on a large project, the chord run in this process) instead of computing it at once (a small
    project's path): both paths are held to the full computation's results."""
    # deferred, κ_C's Monte Carlo parts run in this process (not on a worker, when a broker is configured
    # as in CI), so that each computation ends final
    with (
        override_settings(AGREEMENT_KAPPA_C_DEFER_WORK=-1 if kappa_c_deferred else 20_000),
        make.eager_tasks() if kappa_c_deferred else contextlib.nullcontext(),
    ):
        _kept_equals_full(edits, kappa_c_deferred)


def _kept_equals_full(edits: list, kappa_c_deferred: bool) -> None:
    cache.clear()
    n = next(_names)
    anns = tuple(make.user(f"inc{n}-{k}") for k in range(3))
    project = make.project_with_pairs(f"Inc {n}", n_pairs=4, lead=make.user(f"lead{n}"), annotators=anns)
    pairs = list(project.pairs.order_by("position"))
    types = [make.vila().types.get(name=name) for name in TYPES]
    annotation_services.set_pair_label(pairs[0], anns[0], "paraphrase", base_version=None)
    if kappa_c_deferred:  # everyone takes part in every section from the start
        for k in range(len(anns)):
            apply(("phenomenon", 3, k, (0, k, 1)), pairs, anns, types)
            apply(("link", 3, k, (k, 1, True)), pairs, anns, types)
            apply(("label", 3, k, "paraphrase" if k else "non_paraphrase"), pairs, anns, types)
    recompute(project.pk)
    for edit_ in edits:
        apply(edit_, pairs, anns, types)
        recompute(project.pk)
    latest = current.current(project)
    # deferred, κ_C is computed after a provisional store (in process: at once)
    assert recompute(project.pk, full=True) == ("stored provisional+final" if kappa_c_deferred else "stored")
    assert rebuild(project.pk) == 0  # the sums the saves moved are the sums of the annotations
    full = current.current(project)
    assert full.computation != latest.computation and full.fingerprint == latest.fingerprint
    assert comparable(latest) == comparable(full)


def test_recompute_agreement_command_reuses_and_full(capsys):
    lead = make.user("lead")
    ana, bo = make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    annotation_services.set_pair_label(project.pairs.first(), ana, "paraphrase", base_version=None)
    call_command("recompute_agreement", "--project", str(project.pk))
    call_command("recompute_agreement", "--project", project.name)
    call_command("recompute_agreement", "--project", str(project.pk), "--full")
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1].split(" in ")[0] for line in out] == ["stored", "unchanged", "stored"]
    assert AgreementSnapshot.objects.filter(project=project).count() == 2
    with pytest.raises(Exception, match="no project with id or name"):
        call_command("recompute_agreement", "--project", "nope")
