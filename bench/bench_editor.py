"""Benchmark of the annotation editor: the page, and one save through HTTP.

    .venv/bin/python bench/bench_editor.py [--pages 100] [--saves 200] [--strict]

Stack: a private PostgreSQL and Redis from `bench/stack.py` (throwaway, on free loopback ports), the
schema migrated, DEBUG off. Requests go through Django's test client: the whole server side runs
(middleware, session, access check, form, service transaction with version check and history, the
recompute enqueued on commit through Redis, partial rendering), without a socket; one client, one
request at a time. Times are wall-clock per request.

Targets (issue 5): the editor page for a 60-token pair with 20 phenomena and 40 links, median ≤ 100 ms;
one save p50 ≤ 15 ms and p95 ≤ 25 ms (the reference column is doccano's plain label insert measured on
this machine: 14 / 22 ms); the number of queries per save does not depend on how much is on the pair
(compared with a 6-token pair holding one phenomenon and one link).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stack import PrivatePostgres, PrivateRedis, available  # noqa: E402

DOCCANO = (14.0, 22.0)
WORDS = (
    "the committee said on Tuesday that its members had reviewed the proposal carefully and would vote "
    "next week after hearing from residents who opposed the new road through the old market district , "
    "while supporters argued that traffic would ease and shops would gain customers ."
).split()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def configure(database_url: str, redis_url: str) -> None:
    os.environ.update(
        {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "CELERY_QUEUE": "bench-editor",
            "DEBUG": "0",
            "SECRET_KEY": "bench-editor-" + "k" * 40,
            "SECURE_SSL_REDIRECT": "0",
            "CONN_MAX_AGE": "60",
            "DJANGO_SETTINGS_MODULE": "annotator.settings",
            "LOG_LEVEL": "WARNING",
            "VAR_DIR": str(Path(tempfile.gettempdir()) / "bench-editor-var"),
        }
    )
    import django
    from django.conf import settings

    django.setup()
    # No collectstatic here: plain static storage instead of the manifest (templates only build URLs).
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def build() -> dict[str, Any]:
    """A 60-token pair with 20 phenomena and 40 links for the annotator, and a small pair for comparison."""
    from annotator.annotation import services as annotation_services
    from annotator.corpus import projects
    from annotator.models import ParaphraseType
    from annotator.projects import services as project_setup
    from tests import make

    ann, bob = make.user("ann"), make.user("bob")
    project = project_setup.create_project(
        None, name="Bench editor", tagset=make.vila(), annotators=[ann, bob]
    )
    tokens1 = (WORDS * 2)[:60]
    tokens2 = (WORDS * 2)[5:65]
    big = projects.add_pair(project, "big", tokens1=tokens1, tokens2=tokens2)
    small = projects.add_pair(
        project,
        "small",
        tokens1=["The", "film", "opened", "on", "Friday", "."],
        tokens2=["Film", "premiered", "Friday", "."],
    )
    projects.assign_pairs(project, [ann, bob], [big, small])
    types = list(ParaphraseType.objects.filter(tagset=project.tagset).order_by("position"))
    for user in (ann, bob):
        annotation_services.set_pair_label(big, user, "paraphrase", base_version=None)
        for k in range(20):
            ptype = types[k % len(types)]
            scope1, scope2 = ([k * 3, k * 3 + 1], [k * 2 + 2]) if ptype.scope_sides != "one" else ([k], [])
            annotation_services.add_phenomenon(
                big,
                user,
                ptype,
                scope1=scope1,
                scope2=scope2,
                key1=[k * 3] if ptype.keys_allowed else [],
                projection="local" if ptype.projection_required else "",
                base_version=None,
            )
        annotation_services.set_links(
            big, user, [(k, (k + 3) % len(tokens2)) for k in range(40)], sure=True, base_version=None
        )
        annotation_services.set_pair_label(small, user, "paraphrase", base_version=None)
        annotation_services.add_phenomenon(
            small, user, types[0], scope1=[1], scope2=[0], projection="local", base_version=None
        )
        annotation_services.set_links(small, user, [(1, 0)], sure=True, base_version=None)
    return {"ann": ann, "big": big, "small": small, "types": {t.name: t for t in types}}


def saves(world: dict[str, Any], pair: Any) -> dict[str, list[tuple[str, Callable[[int], dict[str, Any]]]]]:
    """Each kind of save as a cycle of requests that leaves the pair as it found it."""
    inflectional = world["types"]["Inflectional"].pk
    return {
        "pair label": [("pair-label", lambda n: {"label": "non_paraphrase" if n % 2 else "paraphrase"})],
        "link add / remove": [
            ("link-add", lambda n: {"i": "2", "j": "1", "kind": "possible"}),
            ("link-remove", lambda n: {"i": "2", "j": "1"}),
        ],
        "phenomenon create": [
            (
                "phenomenon-create",
                lambda n: {"ptype": inflectional, "scope1": "0,2", "scope2": "1", "projection": "local"},
            )
        ],
        "comment": [("pair-comment", lambda n: {"comment": f"note {n}"})],
    }


class Timer:
    """Wall-clock and process CPU time of one request, in ms. CPU time is this process's work (Django,
    templates, the driver); the database's own work and waiting on a busy machine only show in wall time."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def measure(self, fn: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        self.cpu.append((time.process_time() - cpu) * 1000)
        self.wall.append((time.perf_counter() - wall) * 1000)
        return result


def install_plain_insert() -> str:
    """A doccano-style plain label insert, for a same-run reference: membership check, one INSERT, JSON.
    Registered only in this process, in front of the app's URLs."""
    from django.http import HttpRequest, JsonResponse
    from django.urls import clear_url_caches, path

    from annotator import urls
    from annotator.models import AnnotationHistory, Membership

    def plain_insert(request: HttpRequest, project_pk: int) -> JsonResponse:
        if not Membership.objects.filter(user=request.user, project_id=project_pk).exists():
            return JsonResponse({"detail": "not a member"}, status=403)
        row = AnnotationHistory.objects.create(
            project_id=project_pk,
            model="bench",
            object_id=0,
            action="create",
            after={"label": request.POST["label"]},
        )
        return JsonResponse({"id": row.pk, "label": request.POST["label"]}, status=201)

    urls.urlpatterns.insert(0, path("bench/plain-insert/<int:project_pk>/", plain_insert))
    clear_url_caches()
    return "/bench/plain-insert/{}/"


def run(args: argparse.Namespace) -> int:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from annotator.annotation.services import sheet_version
    from annotator.models import Phenomenon

    world = build()
    plain_url = install_plain_insert().format(world["big"].project_id)
    client = Client()
    client.force_login(world["ann"])
    big, small = world["big"], world["small"]

    def url(name: str, pair: Any) -> str:
        return reverse(f"annotator:{name}", args=[pair.project_id, pair.pk])

    def post(name: str, pair: Any, data: dict[str, Any], timer: Timer | None = None) -> Any:
        payload = {"base_version": sheet_version(pair, world["ann"]), **data}

        def send() -> Any:
            return client.post(url(name, pair), payload, HTTP_HX_REQUEST="true")

        response = timer.measure(send) if timer else send()
        if response.status_code != 200:
            raise RuntimeError(f"{name}: HTTP {response.status_code}: {response.content[:300]!r}")
        return response

    roundtrip = Timer()
    for _ in range(200):
        roundtrip.measure(lambda: connection.cursor().execute("SELECT 1"))

    for _ in range(10):
        client.get(url("pair-edit", big))
    page = Timer()
    for _ in range(args.pages):
        page.measure(lambda: client.get(url("pair-edit", big)))
    queries = {}
    for name, pair in (("small", small), ("big", big)):
        with CaptureQueriesContext(connection) as captured:
            client.get(url("pair-edit", pair))
        queries[name] = len(captured)
    rows = [
        (
            "editor page (60+60 tokens, 20 phenomena, 40 links)",
            page,
            "median ≤ 100",
            statistics.median(page.wall) <= 100,
            "—",
            f"{queries['small']} / {queries['big']}",
        )
    ]

    kinds = saves(world, big)
    counts = {}
    for kind, cycle in kinds.items():  # steady-state queries per save on the small and the big pair
        per_pair = []
        for pair in (small, big):
            for name, data in cycle:
                post(name, pair, data(1))
            with CaptureQueriesContext(connection) as captured:
                for name, data in cycle:
                    post(name, pair, data(2))
            per_pair.append(len(captured) // len(cycle))
        counts[kind] = per_pair
    timers = {kind: Timer() for kind in kinds}
    everything, plain = Timer(), Timer()
    n = 0
    while n < args.saves:  # the kinds interleaved, so a change in the machine's load hits all alike
        response = plain.measure(lambda: client.post(plain_url, {"label": "positive"}))
        assert response.status_code == 201, response.content[:300]
        for kind, cycle in kinds.items():
            for name, data in cycle:
                post(name, big, data(n), timers[kind])
                everything.wall.append(timers[kind].wall[-1])
                everything.cpu.append(timers[kind].cpu[-1])
            if kind == "phenomenon create":  # keep 20 phenomena on the pair
                Phenomenon.objects.filter(pair=big, annotator=world["ann"]).order_by("-id").first().delete()
        n += 1
    for kind, timer in timers.items():
        ok = percentile(timer.wall, 0.5) <= 15 and percentile(timer.wall, 0.95) <= 25
        rows.append(
            (
                f"save: {kind}",
                timer,
                "p50 ≤ 15, p95 ≤ 25",
                ok,
                f"{DOCCANO[0]:.0f} / {DOCCANO[1]:.0f}",
                f"{counts[kind][0]} / {counts[kind][1]}",
            )
        )
    ok = percentile(everything.wall, 0.5) <= 15 and percentile(everything.wall, 0.95) <= 25
    rows.append(
        ("save: all kinds", everything, "p50 ≤ 15, p95 ≤ 25", ok, f"{DOCCANO[0]:.0f} / {DOCCANO[1]:.0f}", "")
    )
    reference = "reference: plain label insert, same stack and run"
    rows.append((reference, plain, "(doccano-like)", True, f"{DOCCANO[0]:.0f} / {DOCCANO[1]:.0f}", "4"))

    load = os.getloadavg()[0]
    print(
        f"\nEditor benchmark · PostgreSQL {connection.pg_version // 10000} (private, loopback) · Redis broker "
        f"· Django test client (in-process, no socket) · DEBUG off · one client"
    )
    print(
        f"machine: {os.cpu_count()} CPUs, load average {load:.1f}; SELECT 1 round trip p50 "
        f"{percentile(roundtrip.wall, 0.5):.2f} ms, p95 {percentile(roundtrip.wall, 0.95):.2f} ms"
    )
    head = (
        f"{'measure':<51} {'n':>4} {'p50 ms':>7} {'p95 ms':>7} {'cpu p50':>8} {'cpu p95':>8}  {'target':<18} "
        f"{'doccano':>8} {'queries s/L':>12}  result"
    )
    print(head)
    print("-" * len(head))
    missed = 0
    for name, timer, target, passed, ref, q in rows:
        missed += not passed
        w, c = timer.wall, timer.cpu
        print(
            f"{name:<51} {len(w):>4} {percentile(w, 0.5):>7.1f} {percentile(w, 0.95):>7.1f} "
            f"{percentile(c, 0.5):>8.1f} {percentile(c, 0.95):>8.1f}  {target:<18} {ref:>8} {q:>12}  "
            f"{'ok' if passed else 'MISSED'}"
        )
    constant = all(a == b for a, b in counts.values())
    print(
        f"\nqueries per save independent of the pair's size: {'yes' if constant else 'NO'} "
        "(s/L = the 6-token pair with 1 phenomenon and 1 link / the 60-token pair)"
    )
    ratio = percentile(everything.wall, 0.5) / percentile(plain.wall, 0.5)
    print(f"an editor save costs {ratio:.1f}× the plain insert measured alongside it (p50).")
    if load > (os.cpu_count() or 1):
        print(
            f"note: the load average ({load:.1f}) exceeds the CPU count: wall times include waiting for a CPU."
        )
    return 1 if args.strict and (missed or not constant) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    reason = available()
    if reason:
        print(f"bench_editor: skipped, no private PostgreSQL/Redis stack here: {reason}")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-editor-") as tmp:
        root = Path(tmp)
        root.chmod(0o755)  # the postgres user must reach its data directory inside
        pg, redis = PrivatePostgres(free_port(), root / "pg"), PrivateRedis(free_port(), root)
        pg.start()
        try:
            redis.start()
            try:
                configure(pg.createdb("bench_editor"), f"redis://127.0.0.1:{redis.port}/0")
                return run(args)
            finally:
                from django.db import connections

                connections.close_all()
                redis.stop()
        finally:
            pg.stop()


if __name__ == "__main__":
    sys.exit(main())
