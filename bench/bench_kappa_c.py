"""Benchmark: κ_C's Monte Carlo at MSRP-A scale spread over 1 and over 2 Celery workers.

    .venv/bin/python bench/bench_kappa_c.py [--pairs 3900] [--workers 1,2] [--chunk-draws N]

A private stack (`bench/stack.py`: PostgreSQL and Redis of its own on loopback) holds a synthetic
project of `--pairs` pairs × 3 annotators with word alignments and an initial alignment
(`metrics.synthetic`, 25 tokens a member; the default options: J = 1,000 samples, seed 0). For each worker count N, N real Celery worker processes
(one pool process each, as `docker compose up --scale worker=N`) serve the private queue; the project's
κ_C is computed from scratch: `annotator.agreement.computation.recompute(full=True)` stores the provisional snapshot
and sends the chord of the Monte Carlo's parts (`annotator.agreement.kappa_c_chunks`), the workers
compute them, and the chord's callback runs the recompute that stores the final snapshot. Printed per
N: parts, wall time from the chord's sending to the final snapshot, the workers' CPU time, the ratio of wall times to 1 worker,
and π̂0 of every annotator pair in full precision — identical for every N (the chunks start their
generator where the single stream of the recipe is, docs/measures.md#kappa-c). The machine's load
average and CPU steal are printed beside: wall times on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.stack import Process, Stack, available, free_port  # noqa: E402

LOAD = """
from bench.bench_dashboard import load_document
from metrics.synthetic import synthetic_document
doc = synthetic_document(n_pairs={pairs}, n_annotators=3, phenomena_per_pair=1, seed=0)
project, _ = load_document(doc, "kc")
print(json.dumps(project.pk))
"""

RUN = """
import time
from annotator.agreement import computation
from annotator.models import AgreementHeadline, AgreementSnapshot, KappaCChunk, KappaCRun
for model in (AgreementHeadline, AgreementSnapshot, KappaCChunk, KappaCRun):
    model.objects.filter(project_id={project}).delete()
started = time.perf_counter()
outcome = computation.recompute({project}, full=True)  # from scratch: every chunk planned afresh
enqueued = time.perf_counter()
deadline = enqueued + {timeout}
while time.perf_counter() < deadline:
    latest = computation.latest_snapshot({project})
    if latest is not None and not latest.results["pending"]:
        break
    time.sleep(0.2)
else:
    raise SystemExit("no final snapshot within {timeout} s")
done = time.perf_counter()
measures = latest.results["report"]["measures"]
print(json.dumps({{
    "outcome": outcome,
    "provisional_s": enqueued - started,
    "kappa_c_s": done - enqueued,
    "chunks": KappaCChunk.objects.filter(project_id={project}).count(),
    "pi0": {{k: repr(v) for k, v in measures["kappa_c.pi0"]["by_pair"].items()}},
    "pi0_se": {{k: repr(v) for k, v in measures["kappa_c.pi0_se"]["by_pair"].items()}},
}}))
"""

PING = """
from annotator.celery import app
print(json.dumps(len(app.control.ping(timeout=1.0))))
"""


def steal_ticks() -> int:
    """CPU steal (hypervisor) since boot, in clock ticks, from /proc/stat."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()
    return int(fields[8]) if len(fields) > 8 else 0


def start_workers(stack: Stack, n: int) -> list[Process]:
    workers = []
    for k in range(n):
        cmd = stack.worker_command(f"{stack.queue}-{k}")
        worker = Process(cmd, stack.env, stack.root / f"worker-{n}-{k}.log")
        worker.start()
        workers.append(worker)
    deadline = time.time() + 120
    while stack.python(PING) < n:
        if time.time() > deadline:
            raise RuntimeError(f"{n} workers did not answer within 120 s; see {stack.root}")
        time.sleep(0.5)
    return workers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3900, help="pairs (MSRP-A: 3,900)")
    parser.add_argument("--workers", default="1,2", help="worker counts to compare (default 1,2)")
    parser.add_argument("--chunk-draws", type=int, default=None, help="AGREEMENT_KAPPA_C_CHUNK_DRAWS")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait for one run")
    args = parser.parse_args(argv)
    reason = available()
    if reason:
        print(f"bench_kappa_c: skipped: {reason}")
        return 0
    counts = [int(x) for x in args.workers.split(",")]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the private stack on the way out
    stack = Stack(pg_port=free_port(), redis_port=free_port(), web_port=free_port())
    results: dict[int, dict] = {}
    workers: list[Process] = []
    try:
        print(f"# bench_kappa_c: private PostgreSQL and Redis under {stack.root}", flush=True)
        stack.start_services("bench")
        if args.chunk_draws:
            stack.env["AGREEMENT_KAPPA_C_CHUNK_DRAWS"] = str(args.chunk_draws)
        project = stack.python(LOAD.format(pairs=args.pairs))
        for n in counts:
            workers = start_workers(stack, n)
            load0, steal0 = os.getloadavg()[0], steal_ticks()
            cpu0 = sum(w.cpu_seconds() for w in workers)
            print(f"κ_C with {n} worker(s) …", flush=True)
            out = stack.python(RUN.format(project=project, timeout=args.timeout))
            out["worker_cpu_s"] = sum(w.cpu_seconds() for w in workers) - cpu0
            out["load"] = (load0, os.getloadavg()[0])
            out["steal_s"] = (steal_ticks() - steal0) / os.sysconf("SC_CLK_TCK")
            results[n] = out
            print(f"  {json.dumps(out, ensure_ascii=False)}", flush=True)
            for w in workers:
                w.stop()
            workers = []
    finally:
        for w in workers:  # interrupted during a run
            w.stop()
        stack.stop()
        stack.cleanup()

    base = results[counts[0]]["kappa_c_s"]
    print(f"\n## κ_C at {args.pairs} pairs × 3 annotators, J = 1,000 samples (3 annotator pairs)")
    print(
        f"{'workers':>7} {'chunks':>6} {'provisional s':>13} {'κ_C wall s':>10} {'workers CPU s':>13} "
        f"{'ratio':>6} {'load 1 min':>11} {'steal s':>7}"
    )
    for n, r in results.items():
        print(
            f"{n:>7} {r['chunks']:>6} {r['provisional_s']:>13.1f} {r['kappa_c_s']:>10.1f} "
            f"{r['worker_cpu_s']:>13.1f} {base / r['kappa_c_s']:>6.2f} "
            f"{r['load'][0]:>5.1f}→{r['load'][1]:<5.1f} {r['steal_s']:>7.1f}"
        )
    print(f"ratio = κ_C wall with {counts[0]} worker(s) / with N workers (the speed-up)")
    for n, r in results.items():
        print(f"π̂0 with {n} worker(s): {json.dumps(r['pi0'], ensure_ascii=False)}")
    same = all(
        r["pi0"] == results[counts[0]]["pi0"] and r["pi0_se"] == results[counts[0]]["pi0_se"]
        for r in results.values()
    )
    print(f"π̂0 and pi0_se identical for every worker count: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
