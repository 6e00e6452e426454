"""Memory of the production-shaped web + worker: idle, through three full-MRPC imports, under an 8-client
save load; RSS and PSS per process (issue 21: ≤ 350 MiB PSS peak, ≤ 250 MiB idle, without PostgreSQL
and Redis; import and export jobs give their memory back when they end).

The web and the worker run exactly as docker-compose.yml runs them (commands and environment read from
the file by bench/production.py; only the hosts, the port, SECRET_KEY and a private queue substituted)
against a private PostgreSQL and Redis (bench/stack.py). The imports go through the REST API as an
admin's uploads do (each ~1.4 MB: a Celery job on the worker), then a native export of each project;
the load is bench_load's 8 saturating clients for 30 s (`--quick`: 8 s, one import).

PSS (proportional set size) counts a page shared by n processes as 1/n in each: the sum over processes
is the memory the stack really takes. RSS counts shared pages in full in every process.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import production  # noqa: E402
from bench.bench_load import run_saturation  # noqa: E402
from bench.stack import REPO, Process, Stack, _tree, available, free_port, seed, wait_for_port  # noqa: E402

MIB = 1024 * 1024
CORPORA = Path(os.environ.get("CORPORA_DIR", REPO.parent / "shared" / "corpora"))
TARGET_PEAK, TARGET_IDLE = 350, 250

ADMIN = """
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from annotator.accounts import services as accounts
admin = accounts.create_account("memadmin", "memadmin-pass-123", is_admin=True)
print(json.dumps(Token.objects.create(user=admin).key))
"""


def memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes of one process, from /proc/<pid>/smaps_rollup."""
    values = {"Rss:": 0, "Pss:": 0}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            key = line.split(":", 1)[0] + ":"
            if key in values:
                values[key] = int(line.split()[1]) * 1024
    except OSError:
        pass
    return values["Rss:"], values["Pss:"]


def processes(name: str, proc: Process) -> list[tuple[str, int]]:
    """(label, pid) of a service's processes: its main process and each child."""
    if not proc.proc or proc.proc.poll() is not None:
        return []
    pids = _tree(proc.proc.pid)
    label = {"web": ("gunicorn master", "gunicorn worker"), "worker": ("celery main", "celery child")}[name]
    out = []
    for pid in pids:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
        except OSError:
            continue
        if cmdline.endswith("nice"):
            continue  # `nice` execs the worker: the same pid, already counted once
        out.append((label[0] if pid == proc.proc.pid or len(out) == 0 else label[1], pid))
    return out


class Sampler:
    """Samples every process's RSS and PSS every 0.25 s; keeps the peak of the stack's total PSS."""

    def __init__(self, services: dict[str, Process]) -> None:
        self.services = services
        self.peak: dict[str, Any] = {"total_pss": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> dict[str, Any]:
        rows = []
        for name, proc in self.services.items():
            for label, pid in processes(name, proc):
                rss, pss = memory(pid)
                rows.append({"service": name, "process": label, "pid": pid, "rss": rss, "pss": pss})
        return {
            "rows": rows,
            "total_pss": sum(r["pss"] for r in rows),
            "total_rss": sum(r["rss"] for r in rows),
        }

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            now = self.sample()
            if now["total_pss"] > self.peak["total_pss"]:
                self.peak = now

    def __enter__(self) -> Sampler:
        self.peak = {"total_pss": 0}
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def start_service(stack: Stack, compose: dict[str, Any], name: str, port: int) -> Process:
    native = production.Native(app=REPO, image=production.read_dockerfile())
    svc = production.service(compose, name)
    env = production.service_env(
        native,
        svc,
        database_url=stack.env["DATABASE_URL"],
        redis_url=stack.env["REDIS_URL"],
        queue=stack.queue,
        bind=f"127.0.0.1:{port}",
    )
    env.update({"VAR_DIR": stack.env["VAR_DIR"], "ACCESS_LOG": "", "LOG_LEVEL": "WARNING"})
    proc = Process(production.native_command(native, svc.command), env, stack.root / f"{name}.log")
    proc.start()
    return proc


def upload(port: int, token: str, name: str, files: list[Path]) -> int:
    import requests

    response = requests.post(
        f"http://127.0.0.1:{port}/api/jobs/import/",
        headers={"Authorization": f"Token {token}"},
        data={"project_name": name, "format": "mrpc"},
        files=[("files", (f.name, f.read_bytes())) for f in files],
        timeout=120,
    )
    response.raise_for_status()
    return response.json()["id"]


def export(port: int, token: str, project: int) -> int:
    import requests

    response = requests.post(
        f"http://127.0.0.1:{port}/api/jobs/export/",
        headers={"Authorization": f"Token {token}"},
        json={"project": project, "format": "native"},
        timeout=60,
    )
    response.raise_for_status()
    return response.json()["id"]


def wait_job(port: int, token: str, job: int, timeout: float = 300) -> dict[str, Any]:
    import requests

    deadline = time.time() + timeout
    while time.time() < deadline:
        body = requests.get(
            f"http://127.0.0.1:{port}/api/jobs/{job}/",
            headers={"Authorization": f"Token {token}"},
            timeout=30,
        ).json()
        if body["status"] in ("succeeded", "failed", "cancelled"):
            return body
        time.sleep(0.5)
    raise RuntimeError(f"job {job} did not finish within {timeout}s")


def settle(sampler: Sampler, seconds: float = 6.0) -> dict[str, Any]:
    time.sleep(seconds)
    return sampler.sample()


def print_table(phases: dict[str, dict[str, Any]]) -> None:
    print("\nMemory of the production stack (web + worker, without PostgreSQL/Redis), MiB")
    print(f"{'phase':<24} {'web PSS':>8} {'worker PSS':>10} {'total PSS':>9} {'total RSS':>9}   target")
    for phase, snap in phases.items():
        by = {s: sum(r["pss"] for r in snap["rows"] if r["service"] == s) for s in ("web", "worker")}
        target = {"idle": f"≤ {TARGET_IDLE}", "peak: imports + exports": f"≤ {TARGET_PEAK}"}.get(phase, "")
        if phase.startswith("peak: load"):
            target = f"≤ {TARGET_PEAK}"
        print(
            f"{phase:<24} {by['web'] / MIB:>8.0f} {by['worker'] / MIB:>10.0f} "
            f"{snap['total_pss'] / MIB:>9.0f} {snap['total_rss'] / MIB:>9.0f}   {target}"
        )
    print("\nPer process, RSS / PSS MiB")
    names = list(phases)
    print(f"{'process':<18}" + "".join(f" {n[:22]:>23}" for n in names))
    labels: list[tuple[str, int]] = []
    for snap in phases.values():
        counts: dict[str, int] = {}
        for r in snap["rows"]:
            counts[r["process"]] = counts.get(r["process"], 0) + 1
            key = (r["process"], counts[r["process"]])
            if key not in labels:
                labels.append(key)
    for label, n in labels:
        cells = []
        for snap in phases.values():
            same = [r for r in snap["rows"] if r["process"] == label]
            row = same[n - 1] if len(same) >= n else None
            cells.append(f"{row['rss'] / MIB:>10.0f} / {row['pss'] / MIB:<10.0f}" if row else f"{'—':>23}")
        print(
            f"{label + (f' {n}' if n > 1 or 'child' in label or 'worker' in label else ''):<18}"
            + "".join(f" {c:>23}" for c in cells)
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one import, 8 s of load")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    reason = available()
    mrpc = [CORPORA / "mrpc" / "msr_paraphrase_train.txt", CORPORA / "mrpc" / "msr_paraphrase_test.txt"]
    if reason or not all(f.exists() for f in mrpc):
        print(f"bench_memory: skipped ({reason or f'MRPC not found under {CORPORA}'})")
        return 0
    stack = Stack(pg_port=free_port(), redis_port=free_port(), web_port=free_port())
    compose = production.read_compose({"SECRET_KEY": "bench-memory-" + "k" * 40, "CELERY_QUEUE": stack.queue})
    try:
        stack.start_services("memory")
        world = seed(stack, n_annotators=8, n_pairs=40)
        admin = stack.python(ADMIN)
        web = start_service(stack, compose, "web", stack.web_port)
        wait_for_port(stack.web_port, 60, proc=web.proc)
        worker = start_service(stack, compose, "worker", stack.web_port)
        stack.web, stack.worker = web, worker
        sampler = Sampler({"web": web, "worker": worker})
        run_saturation(stack.web_port, world, 2, 2.0)  # first requests: connections, lazy imports
        phases = {"idle": settle(sampler, 10)}

        n_imports = 1 if args.quick else 3
        with sampler:
            for n in range(n_imports):
                job = wait_job(stack.web_port, admin, upload(stack.web_port, admin, f"MRPC {n + 1}", mrpc))
                assert job["status"] == "succeeded", job
                done = wait_job(stack.web_port, admin, export(stack.web_port, admin, job["project"]))
                assert done["status"] == "succeeded", done
        phases["peak: imports + exports"] = sampler.peak
        phases["after imports"] = settle(sampler)
        with sampler:
            results = run_saturation(stack.web_port, world, 8, 8.0 if args.quick else 30.0)
        phases["peak: load (8 clients)"] = sampler.peak
        phases["after load"] = settle(sampler)
        print(f"saves under load: {len(results.latencies)}, errors: {len(results.errors)}")
        print_table(phases)
        peak = max(
            phases["peak: imports + exports"]["total_pss"], phases["peak: load (8 clients)"]["total_pss"]
        )
        checks = [
            (f"peak PSS ≤ {TARGET_PEAK} MiB", peak <= TARGET_PEAK * MIB),
            (f"idle PSS ≤ {TARGET_IDLE} MiB", phases["idle"]["total_pss"] <= TARGET_IDLE * MIB),
            (
                "imports give their memory back (after ≤ idle + 25 MiB)",
                phases["after imports"]["total_pss"] <= phases["idle"]["total_pss"] + 25 * MIB,
            ),
        ]
        for label, ok in checks:
            print(f"  {'PASS' if ok else 'MISS'}  {label}")
        if args.json:
            Path(args.json).write_text(json.dumps({"phases": phases, "checks": dict(checks)}, indent=1))
        return 0 if all(ok for _, ok in checks) else 1
    finally:
        stack.stop()
        stack.cleanup()


if __name__ == "__main__":
    sys.exit(main())
