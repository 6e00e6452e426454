"""Load benchmark of annotation saves through the REST API on the production-shaped stack.

    .venv/bin/python bench/bench_load.py [--quick] [--port 8115]

Starts a private stack on loopback (bench/stack.py: PostgreSQL, Redis, gunicorn with
deploy/gunicorn.conf.py, one Celery worker that recomputes agreement after the saves), seeds a project
whose pairs are assigned to every simulated annotator, and drives it with a plain threaded HTTP
client (http.client with one keep-alive connection per simulated user; no locust: a few hundred lines
of dependencies less and no event-loop to calibrate). Every request is bounded (10 s timeout), every
scenario stops by itself after its duration, and all traffic goes to 127.0.0.1.

Scenarios (a save = POST /api/phenomena/ or POST /api/links/ with the sheet version, as the editor's
scripts would send them; each annotator owns its sheets, so any non-2xx is an error):
  1. 50 annotators, each saving on average every 2 s (exponential pauses) for 60 s —
     targets: 0 errors, p95 ≤ 50 ms.
  2. saturation: 8 clients without pauses for 30 s — targets: ≥ 150 saves/s, p95 ≤ 80 ms
     (doccano here: 124 req/s, p95 107 ms; Label Studio: 8 req/s).
Dashboards: agreement computations stored during each scenario, and how long after the scenario's last
save the project's agreement stops being "behind" (the worker runs at nice 10, below the web, so the
figure shows what that costs the dashboards). Memory: proportional set size (PSS, /proc/<pid>/smaps_rollup: shared pages of forked workers counted
once) of all gunicorn and Celery worker processes at idle and the peak under load — target ≤ 500 MiB
together (doccano uses about 1.2 GiB). CPU: time per save of web, worker, PostgreSQL and Redis from
/proc, which, unlike latency, does not depend on what else runs on the machine; the table also says
how many saves per second the machine's cores allow at that cost.

`--quick` (used by tests/services/test_load_quick.py in CI): 10 annotators for 5 s and 4 clients for
3 s; the exit status is non-zero when any request failed. Targets are reported, not enforced, in
--quick mode; the full run exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stack import REPO, Stack, available, seed  # noqa: E402

MIB = 1024 * 1024
N_TOKENS1, N_TOKENS2 = 12, 9  # the seeded pairs' member lengths


@dataclass
class Results:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    saved_at: list[float] = field(default_factory=list)  # epoch of each successful save's response
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, seconds: float, error: str | None) -> None:
        with self.lock:
            self.latencies.append(seconds)
            if error:
                self.errors.append(error)
            else:
                self.saved_at.append(time.time())


class Annotator:
    """One simulated annotator: a keep-alive connection, its token and its sheets' versions."""

    def __init__(self, port: int, token: str, world: dict[str, Any], rng: random.Random) -> None:
        self.port, self.token, self.world, self.rng = port, token, world, rng
        # the sheets' versions live as long as the world: a later scenario continues where one stopped
        self.versions: dict[int, int] = world.setdefault("versions", {}).setdefault(token, {})
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        # the pairs this annotator is assigned (all of the world's unless it says) and the members' lengths
        self.pairs: list[int] = world.get("pairs_of", {}).get(token) or world["pairs"]
        self.n1, self.n2 = world.get("lengths") or (N_TOKENS1, N_TOKENS2)

    def _post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        payload = json.dumps(body)
        headers = {"Authorization": f"Token {self.token}", "Content-Type": "application/json"}
        for attempt in (1, 2):
            try:
                self.conn.request("POST", path, payload, headers)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (OSError, http.client.HTTPException) as exc:
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                # The server closes idle keep-alive connections (gunicorn: after 2 s); like a browser,
                # send once more on a fresh connection. A save that did land would come back as 409.
                stale = isinstance(
                    exc, BrokenPipeError | ConnectionResetError | http.client.RemoteDisconnected
                )
                if attempt == 2 or not stale:
                    return 0, repr(exc)
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, data[:200]

    def save(self) -> tuple[float, str | None]:
        """One save (a phenomenon or a link, half and half); returns its latency and any error."""
        rng = self.rng
        pair = rng.choice(self.pairs)
        base = self.versions.get(pair, 0)
        if rng.random() < 0.5:
            i = rng.randrange(self.n1 - 1)
            j = rng.randrange(self.n2 - 1)
            body = {
                "pair": pair,
                "ptype": rng.choice(self.world["ptypes"]),
                "scope1": [i, i + 1],
                "scope2": [j],
                "base_version": base,
            }
            path = "/api/phenomena/"
        else:
            link = [rng.randrange(self.n1), rng.randrange(self.n2)]
            body = {"pair": pair, "links": [link], "sure": rng.random() < 0.7, "base_version": base}
            path = "/api/links/"
        started = time.perf_counter()
        status, data = self._post(path, body)
        elapsed = time.perf_counter() - started
        if status in (200, 201):
            self.versions[pair] = data["version"]
            return elapsed, None
        if status == 409 and isinstance(data, dict):  # like the editor: reload the version, count the error
            self.versions[pair] = data["current_version"]
        return elapsed, f"{path} → {status}: {str(data)[:160]}"

    def close(self) -> None:
        self.conn.close()


def run_paced(port: int, world: dict[str, Any], n: int, duration: float, mean_pause: float) -> Results:
    """n annotators, each saving after exponential pauses with the given mean, for `duration` s."""
    results = Results()
    deadline = time.monotonic() + duration

    def user(k: int) -> None:
        rng = random.Random(k)
        annotator = Annotator(port, world["annotators"][k], world, rng)
        try:
            while True:
                pause = rng.expovariate(1 / mean_pause)
                if time.monotonic() + pause >= deadline:
                    return
                time.sleep(pause)
                results.add(*annotator.save())
        finally:
            annotator.close()

    _run_threads(user, n, duration)
    return results


def run_saturation(port: int, world: dict[str, Any], n: int, duration: float) -> Results:
    results = Results()
    deadline = time.monotonic() + duration

    def client(k: int) -> None:
        annotator = Annotator(port, world["annotators"][k], world, random.Random(1000 + k))
        try:
            while time.monotonic() < deadline:
                results.add(*annotator.save())
        finally:
            annotator.close()

    _run_threads(client, n, duration)
    return results


def _run_threads(target: Any, n: int, duration: float) -> None:
    threads = [threading.Thread(target=target, args=(k,), daemon=True) for k in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(duration + 30)  # every request has a 10 s timeout: the run ends by itself


class MemoryPeak:
    """Samples the stack's RSS every 0.5 s in the background; keeps the peak of web + worker."""

    def __init__(self, stack: Stack) -> None:
        self.stack, self.peak = stack, {"web": 0, "worker": 0, "total": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            rss = self.stack.rss_bytes()
            total = rss["web"] + rss["worker"]
            if total > self.peak["total"]:
                self.peak = {**rss, "total": total}

    def __enter__(self) -> MemoryPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


CATCH_UP = """
import time
from annotator.models import AgreementHeadline, AgreementState
deadline = time.time() + {timeout}
state = None
while time.time() < deadline:
    state = AgreementState.objects.filter(project_id={project}).first()
    if state is not None and not state.is_behind:
        break
    time.sleep(0.05)
caught_up = state is not None and not state.is_behind
print(json.dumps({{
    "snapshots": AgreementHeadline.objects.filter(project_id={project}).count(),
    "up_to_date_at": state.finished_at.timestamp() if caught_up else None,
}}))
"""


def dashboard_state(stack: Stack, world: dict[str, Any], timeout: float = 120.0) -> tuple[int, float | None]:
    """(agreement computations stored so far — headline rows: full reports follow a slower cadence —, when the project's agreement was last brought up to date
    with every save — `AgreementState.finished_at` of the computation that did, epoch seconds), read
    in a Django process of the stack (polling the web API for a 50-annotator report would inflate the
    web processes' memory that this benchmark measures)."""
    out = stack.python(CATCH_UP.format(project=world["project"], timeout=timeout))
    return int(out["snapshots"]), out["up_to_date_at"]


def lag_after(end: float, up_to_date_at: float | None) -> float:
    return max(0.0, up_to_date_at - end) if up_to_date_at is not None else float("nan")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def summary(name: str, results: Results, duration: float, cpu: dict[str, float]) -> dict[str, Any]:
    ms = [1000 * s for s in results.latencies]
    n = max(1, len(ms))
    return {
        "cpu_ms_per_save": {part: 1000 * seconds / n for part, seconds in cpu.items()},
        "scenario": name,
        "requests": len(ms),
        "errors": len(results.errors),
        "throughput": len(ms) / duration,
        "p50": percentile(ms, 50),
        "p95": percentile(ms, 95),
        "p99": percentile(ms, 99),
        "mean": statistics.fmean(ms) if ms else float("nan"),
    }


def print_table(
    rows: list[dict[str, Any]], memory: dict[str, dict[str, int]], checks: list[tuple[str, bool]]
) -> None:
    print()
    head = f"{'scenario':<34} {'requests':>8} {'errors':>6} {'saves/s':>8} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['scenario']:<34} {r['requests']:>8} {r['errors']:>6} {r['throughput']:>8.1f} "
            f"{r['p50']:>7.1f} {r['p95']:>7.1f} {r['p99']:>7.1f}"
        )
    print(f"{'reference: doccano (saturation)':<34} {'':>8} {'':>6} {124:>8.1f} {'':>7} {107:>7.1f} {'':>7}")
    print(f"{'reference: Label Studio':<34} {'':>8} {'':>6} {8:>8.1f} {'':>7} {'':>7} {'':>7}")
    print()
    # CPU time per save, from /proc: independent of what else runs on the machine (unlike latency).
    cores = os.cpu_count() or 1
    print(
        f"{'CPU ms per save':<34} {'web':>7} {'worker':>7} {'postgres':>8} {'redis':>6} {'total':>7}  saves/s {cores} cores allow"
    )
    for r in rows:
        cpu = r["cpu_ms_per_save"]
        total = sum(cpu.values())
        print(
            f"{r['scenario']:<34} {cpu['web']:>7.1f} {cpu['worker']:>7.1f} {cpu['postgres']:>8.1f} "
            f"{cpu['redis']:>6.1f} {total:>7.1f}  {1000 * cores / total if total else float('nan'):>6.0f}"
        )
    print(f"machine load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {cores} cores")
    steal = ", ".join(f"{r['steal_percent']:.1f} %" for r in rows)
    print(f"CPU time taken by the hypervisor for others (steal) during the scenarios: {steal}")
    print()
    # The worker yields the CPU to the web (nice 10): the dashboards must still follow the saves.
    print(f"{'dashboard (computations)':<34} {'stored during':>13} {'up to date after the last save':>31}")
    for r in rows:
        d = r["dashboard"]
        print(f"{r['scenario']:<34} {d['snapshots']:>13} {d['catch_up_s']:>29.1f} s")
    print()
    print(
        f"{'memory (PSS)':<20} {'web MiB':>8} {'worker MiB':>10} {'total MiB':>9}   target ≤ 500 (doccano ≈ 1,200)"
    )
    for label, rss in memory.items():
        print(f"{label:<20} {rss['web'] / MIB:>8.0f} {rss['worker'] / MIB:>10.0f} {rss['total'] / MIB:>9.0f}")
    print()
    for name, ok in checks:
        print(f"  {'ok  ' if ok else 'MISS'} {name}")


def cpu_steal() -> tuple[int, int]:
    """(steal, total) jiffies of all CPUs from /proc/stat: time the hypervisor gave this machine's
    CPUs to others, which slows every process here without showing in their CPU time."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    return (fields[7] if len(fields) > 7 else 0), sum(fields)


def steal_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    total = after[1] - before[1]
    return 100.0 * (after[0] - before[0]) / total if total > 0 else float("nan")


def _delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {part: max(0.0, after[part] - before[part]) for part in before}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a few seconds at reduced size (CI)")
    parser.add_argument("--port", type=int, default=8115, help="gunicorn port on 127.0.0.1")
    parser.add_argument("--pg-port", type=int, default=55433)
    parser.add_argument("--redis-port", type=int, default=6391)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=10,
        help="the worker's nice level; 10 as in docker-compose.yml and `make worker` (recomputes use "
        "the CPU the web leaves); 0 to measure a worker at the web's priority",
    )
    args = parser.parse_args(argv)
    reason = available()
    if reason:
        print(f"bench_load: cannot run here: {reason}", file=sys.stderr)
        return 2

    paced_n, paced_s, sat_n, sat_s = (10, 5.0, 4, 3.0) if args.quick else (50, 60.0, 8, 30.0)
    stack = Stack(pg_port=args.pg_port, redis_port=args.redis_port, web_port=args.port)
    try:
        print(f"starting PostgreSQL, Redis, gunicorn and a worker under {stack.root} …", flush=True)
        stack.start_services("bench")
        world = seed(stack, n_annotators=max(paced_n, sat_n), n_pairs=20)
        stack.start_web()
        stack.start_worker(nice=args.worker_nice)
        warm = run_saturation(args.port, world, 2, 1.0)  # first requests import and connect
        time.sleep(2)
        rss = stack.rss_bytes()
        idle = {**rss, "total": rss["web"] + rss["worker"]}
        print(
            f"scenario 1: {paced_n} annotators, one save per 2 s each on average, {paced_s:.0f} s …",
            flush=True,
        )
        snapshots0, _ = dashboard_state(stack, world)
        cpu0, steal0 = stack.cpu_seconds(), cpu_steal()
        with MemoryPeak(stack) as peak1:
            paced = run_paced(args.port, world, paced_n, paced_s, mean_pause=2.0)
            end1 = time.time()
        cpu1, steal1 = stack.cpu_seconds(), cpu_steal()
        snapshots1, up_to_date1 = dashboard_state(stack, world)
        print(f"scenario 2: {sat_n} clients without pauses, {sat_s:.0f} s …", flush=True)
        cpu1b, steal1b = stack.cpu_seconds(), cpu_steal()  # the catch-up belongs to neither scenario
        with MemoryPeak(stack) as peak2:
            saturated = run_saturation(args.port, world, sat_n, sat_s)
            end2 = time.time()
        cpu2, steal2 = stack.cpu_seconds(), cpu_steal()
        snapshots2, up_to_date2 = dashboard_state(stack, world)
        load_peak = max(peak1.peak, peak2.peak, key=lambda p: p["total"])
    finally:
        stack.stop()
        failed = locals().get("paced") is None or any(
            r.errors for r in (locals().get("paced"), locals().get("saturated"), locals().get("warm")) if r
        )
        if failed:  # keep the servers' logs for the post-mortem
            kept = REPO / "artifacts" / f"bench-load-{time.strftime('%Y%m%d-%H%M%S')}"
            kept.mkdir(parents=True, exist_ok=True)
            for log in stack.root.glob("*.log"):
                shutil.copy(log, kept / log.name)
            if stack.postgres.log.exists():
                shutil.copy(stack.postgres.log, kept / "postgres.log")
            print(f"logs kept in {kept}", file=sys.stderr)
        stack.cleanup()

    rows = [
        summary(f"1: {paced_n} annotators, 1 save/2 s each", paced, paced_s, _delta(cpu0, cpu1)),
        summary(f"2: saturation, {sat_n} clients", saturated, sat_s, _delta(cpu1b, cpu2)),
    ]
    # snapshots stored during a scenario and its catch-up (at most one computation after the last save)
    rows[0]["steal_percent"] = steal_share(steal0, steal1)
    rows[1]["steal_percent"] = steal_share(steal1b, steal2)
    rows[0]["dashboard"] = {"snapshots": snapshots1 - snapshots0, "catch_up_s": lag_after(end1, up_to_date1)}
    rows[1]["dashboard"] = {"snapshots": snapshots2 - snapshots1, "catch_up_s": lag_after(end2, up_to_date2)}
    memory = {"idle": idle, "under load (peak)": load_peak}
    checks = [
        ("scenario 1: 0 errors", rows[0]["errors"] == 0),
        ("scenario 1: p95 ≤ 50 ms", rows[0]["p95"] <= 50),
        ("scenario 2: 0 errors", rows[1]["errors"] == 0),
        ("scenario 2: ≥ 150 saves/s", rows[1]["throughput"] >= 150),
        ("scenario 2: p95 ≤ 80 ms", rows[1]["p95"] <= 80),
        ("memory under load ≤ 500 MiB", load_peak["total"] <= 500 * MIB),
        ("dashboards updated during both scenarios", all(r["dashboard"]["snapshots"] > 0 for r in rows)),
        ("dashboards brought up to date after both", all(r["dashboard"]["catch_up_s"] >= 0 for r in rows)),
    ]
    print_table(rows, memory, checks)
    for error in (paced.errors + saturated.errors + warm.errors)[:10]:
        print(f"  error: {error}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"rows": rows, "memory": memory, "checks": dict(checks)}, indent=1)
        )
    if any(r["errors"] for r in rows) or warm.errors:
        return 1
    return 0 if args.quick or all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
