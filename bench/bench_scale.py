"""Agreement at corpus scale under load: a read right after a save, storage growth, and a soak run.

    .venv/bin/python bench/bench_scale.py [--minutes 10] [--idle-minutes 2] [--workers 1]
    .venv/bin/python bench/bench_scale.py --soak            # 30 minutes, memory and errors over time
    .venv/bin/python bench/bench_scale.py --minutes 1 --idle-minutes 0.5 --pairs 600   # a quick look

Starts the private production-shaped stack (bench/stack.py: PostgreSQL, Redis, gunicorn with
deploy/gunicorn.conf.py, Celery worker(s) at nice 10 as in docker-compose.yml) and loads a project at
the scale of MSRP-A: 3,900 pairs × 3 annotators with ~8 phenomena per pair and annotator, word
alignments and pair labels (`metrics.synthetic`, bulk-loaded as bench/bench_dashboard.py does), whose
agreement is computed once before the run, with 50 more annotators who have each started (a phenomenon
and a link on one pair; `--joining`: they start during the run instead; `--covered`, implied by
`--soak`: they have also annotated every other pair of theirs, so that memory over time shows what
the run leaves behind), and a probe annotator (below): 54 annotators in all. Then these 50 annotators
(each assigned 200 pairs that overlap with their neighbours') save phenomena and links through the REST
API, each every 2 s on average (exponential pauses): first for `--warmup` seconds if asked (default 0,
not measured; the worker's first computation after its start is printed apart), then for `--minutes`
(default 10), measured:

- saves: p50 / p95 latency, errors — target p95 ≤ 50 ms, 0 errors;
- a read right after a save includes it (issue 31, criterion 1: after a save commits, the API's IAPTA,
  TPO, alignment P/R/F1, ALIR/ALIP, Cohen's and Fleiss' κ include it): every ~2 s (`--pause`) the probe
  annotator, assigned every pair (each shared with other annotators), saves a phenomenon or a link, in
  turn, on a pair it has not touched, and right after the save's response the project's lead reads
  `GET /api/projects/<id>/agreement/`. The read must show the probe's phenomenon count
  (``iapta.phenomena.count``) or its pairs aligned (the humans-against-the-aligner row's ``pairs``)
  moved by exactly one: both are read from the sums the database keeps, no one else saves as the probe,
  so the figure the save must give is known whatever the others save. Timed from the save sent to the
  read answered. Target p95 ≤ 1 s and 0 reads that do not include their save;
- the asynchronous measures' lag (κ_C, the sense layers, evaluations, … — what the sums do not keep):
  for every save, the time from its response until the first stored agreement computation that started
  after it (`AgreementHeadline.computed_at`, whose start is `computed_at − duration_ms`; every
  computation leaves one). Printed, with whether the computations caught up after the load (a check);
- storage: growth of the agreement tables (every table whose name starts with `annotator_agreement`,
  `pg_total_relation_size`) during the run, per annotator-hour — target ≤ 50 MB for the run — and
  while idle afterwards (`--idle-minutes`), extrapolated per hour — target ≤ 1 MB per hour; after
  the retention policy ran once (as the beat task runs it); the database's size;
- memory (PSS) of web + worker, sampled every 5 s: first vs last 5 minutes (the soak's flatness
  target: within 10 %), each one's peak and the largest gunicorn worker's alone; CPU per save of web /
  worker / PostgreSQL (the probe's saves and reads included, divided by the 50 annotators' saves), and
  the hypervisor's steal.

`--soak`: 30 minutes at the same rate (`make soak`); not run by CI (too long). Its memory targets are
issue 31's criterion 3: the worker's PSS ≤ 400 MiB and the web's ≤ 250 MiB throughout (every sample).
Both are the service's whole process tree, as docker-compose runs them: the worker's is the Celery
worker with its pool process(es), as the issue's "today ~2.4 GiB" was measured; the web's is gunicorn's
master with its workers (the `web` service). The largest gunicorn worker alone is printed beside it.
Exit status 1 when a target is missed or a request failed.
"""

from __future__ import annotations

import argparse
import bisect
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_load import (  # noqa: E402
    cpu_steal,
    percentile,
    run_paced,
    steal_share,
)
from bench.stack import Stack, available  # noqa: E402

MIB = 1024 * 1024
MB = 1_000_000

SEED = """
import random, sys
sys.path.insert(0, ".")
from bench.bench_dashboard import load_document
from metrics.synthetic import synthetic_document
from annotator.accounts import services as accounts
from annotator.corpus import projects
from annotator.models import Pair, ParaphraseType
from rest_framework.authtoken.models import Token

doc = synthetic_document(n_pairs={pairs}, n_annotators=3, phenomena_per_pair=8, seed=0)
project, _ = load_document(doc, "MSRP-A")
pairs = list(Pair.objects.filter(project=project).order_by("position").values_list("pk", flat=True))
live = [accounts.create_account(f"live{{n:03d}}", "bench-pass-123") for n in range({annotators})]
pairs_of = {{}}
versions = {{}}  # the annotators' sheet versions where the warm-up saved (the editor's base_version)
step = max(1, (len(pairs) - 200) // max(1, len(live) - 1))
for n, user in enumerate(live):
    mine = pairs[n * step : n * step + 200] or pairs[:200]
    projects.assign_pairs(project, [user], Pair.objects.filter(pk__in=mine))
    pairs_of[Token.objects.create(user=user).key] = mine
ptypes = list(
    ParaphraseType.objects.filter(tagset=project.tagset, scope_sides="any").values_list("pk", flat=True)
)
# The probe: one more annotator, assigned every pair (each shared with the three annotators of the
# document and with a live one), whose saves the lead's reads must include at once.
probe = accounts.create_account("probe", "bench-pass-123")
projects.assign_pairs(project, [probe], Pair.objects.filter(pk__in=pairs))
probe_pairs = list(pairs)
from annotator.models import Membership
lead_user = Membership.objects.get(project=project, role=Membership.Role.LEAD).user
if {warm}:
    # Every live annotator has started before the measured run (a phenomenon and a link on the first of
    # their pairs, which the run then leaves alone): the run measures a team at work, not 50 people
    # joining — each joining changes the participants, which only a full computation handles.
    from annotator.annotation import services as annotation_services
    by_key = dict(Token.objects.values_list("key", "user"))
    from django.contrib.auth import get_user_model
    users = get_user_model().objects.in_bulk(list(by_key.values()))
    for key in list(pairs_of):
        first, rest = pairs_of[key][0], pairs_of[key][1:]
        pair, user = Pair.objects.get(pk=first), users[by_key[key]]
        annotation_services.add_phenomenon(
            pair, user, ptypes[0], scope1=[0], scope2=[0], base_version=None, check_open=False
        )
        annotation_services.set_links(pair, user, [(1, 1)], sure=True, base_version=None)
        pairs_of[key] = rest
        if {covered}:
            # ... and has annotated every pair of theirs, so that what the worker keeps (a row per pair
            # either of two annotators annotated) already spans the run's pairs: memory then shows
            # what the run itself leaves behind, not the annotations' own growth.
            for other in Pair.objects.filter(pk__in=rest):
                annotation_services.add_phenomenon(
                    other, user, ptypes[0], scope1=[0], scope2=[0], base_version=None, check_open=False
                )
                versions.setdefault(key, {{}})[other.pk] = annotation_services.sheet_version(other, user)
    # the probe has started as well, on its first pair, which its run leaves alone
    annotation_services.add_phenomenon(
        Pair.objects.get(pk=probe_pairs[0]), probe, ptypes[0], scope1=[0], scope2=[0], base_version=None,
        check_open=False,
    )
    annotation_services.set_links(
        Pair.objects.get(pk=probe_pairs[0]), probe, [(1, 1)], sure=True, base_version=None
    )
    probe_pairs = probe_pairs[1:]
print(json.dumps({{
    "project": project.pk,
    "pairs": pairs,
    "pairs_of": pairs_of,
    "ptypes": ptypes,
    "annotators": list(pairs_of),
    "versions": versions,
    "tokens": [len(doc.pairs[0].tokens1), len(doc.pairs[0].tokens2)],
    "probe": {{"name": probe.username, "token": Token.objects.create(user=probe).key, "pairs": probe_pairs}},
    "lead": Token.objects.get_or_create(user=lead_user)[0].key,
}}))
"""

SIZES = """
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute(
        "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relkind = 'r' AND n.nspname = current_schema() AND c.relname LIKE 'annotator_agreement%%'"
    )
    tables = dict(cursor.fetchall())
    cursor.execute("SELECT pg_database_size(current_database())")
    database = cursor.fetchone()[0]
print(json.dumps({"tables": tables, "database": database}))
"""

HEADLINES = """
import time
from annotator.models import AgreementHeadline, AgreementState
deadline = time.time() + {timeout}
state = None
while time.time() < deadline:
    state = AgreementState.objects.filter(project_id={project}).first()
    if state is not None and not state.is_behind:
        break
    time.sleep(0.1)
rows = AgreementHeadline.objects.filter(project_id={project}).order_by("computed_at")
print(json.dumps({{
    "caught_up": state is not None and not state.is_behind,
    "computations": [[h.computed_at.timestamp(), h.duration_ms] for h in rows],
}}))
"""

RETENTION = """
from annotator.agreement.retention import apply_retention
print(json.dumps({{"deleted": apply_retention({project})}}))
"""


def seed(
    stack: Stack, n_pairs: int, n_annotators: int, *, warm: bool = True, covered: bool = False
) -> dict[str, Any]:
    world = stack.python(
        SEED.format(pairs=n_pairs, annotators=n_annotators, warm=warm, covered=warm and covered)
    )
    # bench_load's simulated annotators pick their pairs and token positions from the world
    world["lengths"] = world.pop("tokens")
    world["versions"] = {
        key: {int(pair): version for pair, version in by_pair.items()}
        for key, by_pair in world["versions"].items()
    }
    return world


def sizes(stack: Stack) -> dict[str, Any]:
    return stack.python(SIZES)


def table_bytes(measured: dict[str, Any]) -> int:
    return sum(int(v) for v in measured["tables"].values())


def save_to_dashboard(saves: list[float], computations: list[list[float]]) -> tuple[list[float], int]:
    """For each save (epoch of its response), seconds until the first computation that started after
    it was stored; and how many saves no computation has covered yet."""
    done = sorted((stored - ms / 1000.0, stored) for stored, ms in computations)
    starts = [s for s, _ in done]
    # the earliest store among computations starting at or after t: a suffix minimum
    earliest = [0.0] * len(done)
    best = float("inf")
    for k in range(len(done) - 1, -1, -1):
        best = min(best, done[k][1])
        earliest[k] = best
    lags, uncovered = [], 0
    for t in saves:
        k = bisect.bisect_left(starts, t)
        if k == len(done):
            uncovered += 1
        else:
            lags.append(earliest[k] - t)
    return lags, uncovered


def _request(
    port: int, method: str, path: str, token: str, body: dict[str, Any] | None = None
) -> tuple[int, Any]:
    """One request on a connection of its own (the probe's requests are 2 s apart: a kept-alive
    connection would have been closed by the server meanwhile)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Token {token}"}
    payload = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        payload = json.dumps(body)
    try:
        conn.request(method, path, payload, headers)
        response = conn.getresponse()
        data = response.read()
    except (OSError, http.client.HTTPException) as exc:
        return 0, repr(exc)
    finally:
        conn.close()
    try:
        return response.status, json.loads(data)
    except ValueError:
        return response.status, data[:200]


def probe_counts(answer: Any, name: str) -> tuple[int, int] | None:
    """(phenomena, pairs aligned) of annotator `name` in the agreement API's answer: the report's
    ``iapta.phenomena.count`` and the humans-against-the-aligner row's ``pairs``, both read from the sums
    the database keeps; None when the answer has no figures."""
    snapshot = answer.get("snapshot") if isinstance(answer, dict) else None
    if not snapshot:
        return None
    results = snapshot["results"]
    count = results["report"]["measures"].get("iapta.phenomena.count", {}).get("by_annotator", {})
    aligned = {
        row["annotator"]: row.get("pairs", 0) for row in (results.get("machine") or {}).get("aligner", [])
    }
    return int(count.get(name, 0)), int(aligned.get(name, 0))


class Probe:
    """Criterion 1, measured: every ~`period` s the probe annotator saves, in turn, a phenomenon or a
    link on a pair it has not touched yet, and right after the save's response the lead reads
    `GET /api/projects/<id>/agreement/`. The save must move the probe's phenomenon count
    (``iapta.phenomena.count``) or its pairs aligned (the aligner row's ``pairs``) by exactly one — no
    one else saves as the probe, so the expected figure is known whatever the 50 others do. Kept per
    save: seconds from the save sent to the read answered, and whether the read included the save
    ("missing": the figure had not moved; "wrong": it moved by another amount)."""

    def __init__(self, port: int, world: dict[str, Any], project: int, period: float = 2.0) -> None:
        self.port, self.period = port, period
        self.name, self.token = world["probe"]["name"], world["probe"]["token"]
        self.pairs: list[int] = list(world["probe"]["pairs"])
        self.lead, self.ptype = world["lead"], world["ptypes"][0]
        self.n1, self.n2 = world["lengths"]
        self.url = f"/api/projects/{project}/agreement/"
        self.rng = random.Random(7)
        self.lags: list[float] = []
        self.reads: list[float] = []
        self.missing: list[str] = []
        self.wrong: list[str] = []
        self.errors: list[str] = []
        self.known: tuple[int, int] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        """Read the probe's figures as they are, then start saving."""
        status, answer = _request(self.port, "GET", self.url, self.lead)
        self.known = probe_counts(answer, self.name) if status == 200 else None
        if self.known is None:
            raise RuntimeError(f"probe: the agreement API answered {status}: {str(answer)[:200]}")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)

    def _run(self) -> None:
        turn = 0
        while self.pairs and not self._stop.wait(self.period * self.rng.uniform(0.75, 1.25)):
            self.once(turn % 2)
            turn += 1

    def once(self, kind: int) -> None:
        """One save (kind 0: a phenomenon, 1: a link) and the lead's read right after it."""
        pair = self.pairs.pop(0)
        i, j = self.rng.randrange(self.n1), self.rng.randrange(self.n2)
        if kind == 0:
            path = "/api/phenomena/"
            body = {"pair": pair, "ptype": self.ptype, "scope1": [i], "scope2": [j], "base_version": 0}
        else:
            path = "/api/links/"
            body = {"pair": pair, "links": [[i, j]], "sure": True, "base_version": 0}
        sent = time.perf_counter()
        status, data = _request(self.port, "POST", path, self.token, body)
        if status not in (200, 201):
            self.errors.append(f"probe {path} → {status}: {str(data)[:160]}")
            return
        answered = time.perf_counter()
        status, answer = _request(self.port, "GET", self.url, self.lead)
        done = time.perf_counter()
        seen = probe_counts(answer, self.name) if status == 200 else None
        if seen is None:
            self.errors.append(f"probe read → {status}: {str(answer)[:160]}")
            return
        assert self.known is not None
        expected = (self.known[0] + (kind == 0), self.known[1] + (kind == 1))
        self.lags.append(done - sent)
        self.reads.append(done - answered)
        if seen == self.known:
            self.missing.append(f"{path} pair {pair}: read {seen}, expected {expected}")
        elif seen != expected:
            self.wrong.append(f"{path} pair {pair}: read {seen}, expected {expected}")
        self.known = expected


class MemoryTrace:
    """PSS of web + worker every `every` seconds, with the time of each sample: each tree (gunicorn's
    master and workers; the Celery workers with their pool processes) and the largest gunicorn worker."""

    def __init__(self, stack: Stack, every: float = 5.0) -> None:
        self.stack, self.every = stack, every
        self.samples: list[tuple[float, int]] = []
        self.parts: list[tuple[float, int, int]] = []  # (time, web, worker)
        self.web_process: list[int] = []  # the largest gunicorn worker's PSS at each sample
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            rss = self.stack.rss_bytes()
            self.samples.append((time.monotonic(), rss["web"] + rss["worker"]))
            self.parts.append((time.monotonic(), rss["web"], rss["worker"]))
            if self.stack.web is not None:
                self.web_process.append(max(self.stack.web.child_pss(), default=0))

    def peak(self, part: int) -> int:
        """The largest PSS sampled of the web tree (0) or the workers' trees (1)."""
        return max((parts[part] for _, *parts in self.parts), default=0)

    def __enter__(self) -> MemoryTrace:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def window_means(self, seconds: float, part: int | None = None) -> tuple[float, float]:
        """Mean PSS of the first and of the last `seconds` of the trace (web + worker, or `part`:
        0 = web, 1 = worker)."""
        samples = self.samples if part is None else [(t, parts[part]) for t, *parts in self.parts]
        if not samples:
            return float("nan"), float("nan")
        t0, t1 = samples[0][0], samples[-1][0]
        first = [v for t, v in samples if t - t0 <= seconds]
        last = [v for t, v in samples if t1 - t <= seconds]
        return statistics.fmean(first), statistics.fmean(last)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="length of the load (default 10)")
    parser.add_argument("--soak", action="store_true", help="30 minutes: errors and memory over time")
    parser.add_argument("--idle-minutes", type=float, default=2.0, help="idle time measured afterwards")
    parser.add_argument("--pairs", type=int, default=3900, help="pairs of the MSRP-A-scale project")
    parser.add_argument("--annotators", type=int, default=50, help="annotators saving during the run")
    parser.add_argument("--pause", type=float, default=2.0, help="mean seconds between an annotator's saves")
    parser.add_argument("--workers", type=int, default=1, help="Celery workers (--scale worker=N)")
    parser.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        help="seconds of the same load before the measured run (default 0: none); the worker's first "
        "computation after its start is reported apart (it keeps nothing: it costs what the next do)",
    )
    parser.add_argument("--port", type=int, default=8117)
    parser.add_argument(
        "--joining",
        action="store_true",
        help="the live annotators start during the run (each one's first save a full computation)",
    )
    parser.add_argument(
        "--covered",
        action="store_true",
        help="the live annotators have annotated all their pairs before the run (implied by --soak)",
    )
    parser.add_argument("--pg-port", type=int, default=55437)
    parser.add_argument("--redis-port", type=int, default=6397)
    args = parser.parse_args(argv)
    reason = available()
    if reason:
        print(f"bench_scale: cannot run here: {reason}", file=sys.stderr)
        return 2
    minutes = 30.0 if args.soak else args.minutes
    duration = 60.0 * minutes

    stack = Stack(pg_port=args.pg_port, redis_port=args.redis_port, web_port=args.port)
    try:
        print(f"starting PostgreSQL, Redis, gunicorn and {args.workers} worker(s) under {stack.root} …")
        stack.start_services("bench_scale")
        started = time.perf_counter()
        world = seed(
            stack, args.pairs, args.annotators, warm=not args.joining, covered=args.covered or args.soak
        )
        print(f"loaded {len(world['pairs'])} pairs × 3 annotators in {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        stack.manage("recompute_agreement", "--project", str(world["project"]), "--full")
        print(f"first full computation: {time.perf_counter() - started:.1f} s wall")
        stack.start_web()
        worker_started = time.time()
        stack.start_worker(nice=10)
        for _ in range(args.workers - 1):
            stack.start_worker(nice=10)
        warm_errors: list[str] = []
        if args.warmup > 0:
            print(f"warm-up: the same load for {args.warmup:g} s, not measured …")
            warm = run_paced(args.port, world, args.annotators, args.warmup, mean_pause=args.pause)
            warmed = stack.python(HEADLINES.format(project=world["project"], timeout=300))
            warm_errors = warm.errors
            durations = [ms for at, ms in warmed["computations"] if at >= worker_started]
            print(
                f"warm-up: {len(warm.latencies)} saves, {len(warm.errors)} errors; the worker's first "
                f"computation after its start took {durations[0] / 1000 if durations else float('nan'):.1f} s, "
                f"the next ones p50 "
                f"{percentile(durations[1:], 50):.0f} ms; caught up: {warmed['caught_up']}"
            )
        before = sizes(stack)
        cpu0, steal0 = stack.cpu_seconds(), cpu_steal()
        print(
            f"{args.annotators} annotators, one save per {args.pause:g} s each on average, {minutes:g} min …"
        )
        probe = Probe(args.port, world, world["project"], period=args.pause)
        with MemoryTrace(stack) as memory:
            probe.start()
            try:
                results = run_paced(args.port, world, args.annotators, duration, mean_pause=args.pause)
            finally:
                probe.stop()
        cpu1, steal1 = stack.cpu_seconds(), cpu_steal()
        headlines = stack.python(HEADLINES.format(project=world["project"], timeout=300))
        after = sizes(stack)
        idle_s = 60.0 * args.idle_minutes
        time.sleep(idle_s)
        idle = sizes(stack)
        stack.python(RETENTION.format(project=world["project"]))
        retained = sizes(stack)
    finally:
        stack.stop()
        stack.cleanup()

    ms = [1000 * s for s in results.latencies]
    lags, uncovered = save_to_dashboard(results.saved_at, headlines["computations"])
    n = max(1, len(ms))
    cpu = {part: 1000 * max(0.0, cpu1[part] - cpu0[part]) / n for part in cpu0}
    growth = table_bytes(after) - table_bytes(before)
    annotator_hours = args.annotators * duration / 3600
    idle_per_hour = (table_bytes(idle) - table_bytes(after)) * 3600 / idle_s if idle_s else float("nan")
    first, last = memory.window_means(300.0)
    computations = [c for c in headlines["computations"]]

    print()
    print(
        f"{'saves':>6} {'errors':>6} {'saves/s':>8} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}   target p95 ≤ 50 ms"
    )
    print(
        f"{len(ms):>6} {len(results.errors):>6} {len(ms) / duration:>8.1f} {percentile(ms, 50):>7.1f} "
        f"{percentile(ms, 95):>7.1f} {percentile(ms, 99):>7.1f}"
    )
    probe_ms = [1000 * x for x in probe.lags]
    read_ms = [1000 * x for x in probe.reads]
    print()
    print(
        f"probe save sent → the lead's read answered, including it: p50 {percentile(probe_ms, 50):.0f} ms, "
        f"p95 {percentile(probe_ms, 95):.0f} ms, max {max(probe_ms, default=float('nan')):.0f} ms over "
        f"{len(probe_ms)} saves (the read alone: p50 {percentile(read_ms, 50):.0f} ms, p95 "
        f"{percentile(read_ms, 95):.0f} ms); reads not including the save: {len(probe.missing)}, with another "
        f"figure: {len(probe.wrong)}, probe errors: {len(probe.errors)} — target p95 ≤ 1,000 ms, 0 missing"
    )
    lag_ms = [1000 * x for x in lags]
    print(
        f"asynchronous measures' lag (κ_C, sense layers, evaluations …), save → stored computation: "
        f"p50 {percentile(lag_ms, 50):.0f} ms, p95 {percentile(lag_ms, 95):.0f} ms, "
        f"max {max(lag_ms, default=float('nan')):.0f} ms over {len(lags)} saves ({uncovered} not covered; "
        f"caught up at the end: {headlines['caught_up']})"
    )
    durations = [c[1] for c in computations]
    print(
        f"computations stored: {len(computations)}, duration p50 {percentile(durations, 50):.0f} ms, "
        f"p95 {percentile(durations, 95):.0f} ms"
    )
    print()
    print(f"{'storage (agreement tables)':<40} {'MB':>9}")
    print(f"{'before the run':<40} {table_bytes(before) / MB:>9.2f}")
    print(f"{f'after {minutes:g} min of load':<40} {table_bytes(after) / MB:>9.2f}")
    print(f"{'growth during the load':<40} {growth / MB:>9.2f}   target ≤ 50 MB for 10 min")
    print(f"{'  per annotator-hour':<40} {growth / MB / annotator_hours:>9.3f}")
    print(
        f"{f'idle {args.idle_minutes:g} min, growth per hour':<40} {idle_per_hour / MB:>9.3f}   target ≤ 1 MB"
    )
    print(f"{'after the retention policy ran':<40} {table_bytes(retained) / MB:>9.2f}")
    print(f"{'database size after the run':<40} {after['database'] / MB:>9.1f}")
    for name, size in sorted(after["tables"].items()):
        print(f"    {name:<48} {int(size) / MB:>9.2f}")
    print()
    cores = os.cpu_count() or 1
    print(
        f"CPU ms per save: web {cpu['web']:.1f}, worker {cpu['worker']:.1f}, PostgreSQL {cpu['postgres']:.1f}, "
        f"Redis {cpu['redis']:.1f}"
    )
    print(
        f"memory (PSS) web + worker: first 5 min mean {first / MIB:.0f} MiB, last 5 min {last / MIB:.0f} MiB "
        f"({100 * (last - first) / first if first else float('nan'):+.1f} %), peak "
        f"{max((v for _, v in memory.samples), default=0) / MIB:.0f} MiB"
    )
    for part, name in ((0, "web"), (1, "worker")):
        part_first, part_last = memory.window_means(300.0, part)
        print(
            f"  {name}: first 5 min {part_first / MIB:.0f} MiB, last 5 min {part_last / MIB:.0f} MiB, "
            f"peak {memory.peak(part) / MIB:.0f} MiB"
        )
    print(f"  largest gunicorn worker alone: peak {max(memory.web_process, default=0) / MIB:.0f} MiB")
    print(
        f"machine: load average {os.getloadavg()[0]:.1f} on {cores} cores; steal during the run "
        f"{steal_share(steal0, steal1):.1f} %"
    )
    checks = [
        ("0 errors", not results.errors and not warm_errors and not probe.errors),
        ("saves p95 ≤ 50 ms", percentile(ms, 95) <= 50),
        (
            "a read right after a save includes it: p95 ≤ 1 s, 0 missing",
            bool(probe_ms) and percentile(probe_ms, 95) <= 1000 and not probe.missing and not probe.wrong,
        ),
        ("the asynchronous measures caught up after the load", bool(headlines["caught_up"])),
        (
            "agreement tables grow ≤ 50 MB in 10 min (scaled to the run's length)",
            growth <= 50 * MB * minutes / 10,
        ),
        ("idle growth ≤ 1 MB per hour", not idle_s or idle_per_hour <= 1 * MB),
    ]
    if args.soak:
        checks.append(("memory flat: last 5 min within 10 % of the first", abs(last - first) <= 0.10 * first))
        checks.append(("worker PSS ≤ 400 MiB throughout", memory.peak(1) <= 400 * MIB))
        checks.append(
            ("web PSS (gunicorn's master and workers) ≤ 250 MiB throughout", memory.peak(0) <= 250 * MIB)
        )
    print()
    for name, ok in checks:
        print(f"  {'ok  ' if ok else 'MISS'} {name}")
    for error in (warm_errors + results.errors + probe.errors)[:10]:
        print(f"  error: {error}")
    for miss in (probe.missing + probe.wrong)[:10]:
        print(f"  probe: {miss}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
