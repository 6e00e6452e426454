"""Label saves side by side with doccano (issue 31, "Saves stay cheap"): the production stack against
doccano's, on one PostgreSQL server, in one run.

    .venv/bin/python bench/bench_peer_saves.py [--seconds 15] [--rounds 2] [--clients 1,8]

Both systems get the same MRPC pairs (`../shared/corpora/mrpc`, train + test: 5,801 pairs) and the same
number of annotators (the largest client count), each with an API token:

- this workbench: the private stack of `bench/stack.py` (gunicorn with `deploy/gunicorn.conf.py`,
  PostgreSQL, Redis, one Celery worker and beat, DEBUG=0), the corpus imported with `import_corpus`,
  every pair assigned to every annotator; a save is `POST /api/pair-labels/` (label, no version check);
- doccano: its own gunicorn (`config.wsgi`, as many workers and threads as ours) on a database of its
  own in the same PostgreSQL server, a text-classification project with one label per example (each
  example is the pair's two sentences), the annotators its members; a save is
  `POST /v1/projects/{id}/examples/{id}/categories` (doccano's single-label save: replaces the label).

Each client is one annotator on one keep-alive connection, saving labels back to back on pairs of its
own for `--seconds`; the systems alternate within every round (at each client count: this workbench,
then doccano). Printed per system and client count: saves/s, p50 and p95 latency, the web's and
PostgreSQL's CPU per save, this workbench's background CPU per save (its Celery worker, beat and Redis:
the agreement work the saves set off; doccano's stack runs none), and the ratios this workbench /
doccano. Target: ≥ 1.25× doccano's saves/s at 8 clients and a p50 ≤ doccano's at 1 client.

doccano is not a dependency of the project and is never installed into its environment: the bench uses a
virtual environment of its own OUTSIDE the repository, named by DOCCANO_VENV (default:
`../peer/doccano-venv` beside the repository's folder). Create it once with

    python3.11 -m venv ../peer/doccano-venv
    ../peer/doccano-venv/bin/pip install doccano==1.8.4 "marshmallow<4" "numpy<2" psycopg2-binary

(doccano reaches PostgreSQL through psycopg2, which it leaves to an extra; it leaves marshmallow and numpy
unpinned, and what it pins does not import with the newest: environs with marshmallow 4 ("module
'marshmallow' has no attribute '__version_info__'"), pandas 1.5.3 with numpy 2 ("numpy.dtype size
changed, may indicate binary incompatibility").)

Without it, or without the PostgreSQL and Redis binaries the private stack needs, the bench says why and
exits 0 without measuring.
"""

from __future__ import annotations

import argparse
import csv
import http.client
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from stack import Process, Stack, available, free_port, wait_for_port  # noqa: E402

MRPC = REPO.parent / "shared" / "corpora" / "mrpc"
FILES = [MRPC / "msr_paraphrase_train.txt", MRPC / "msr_paraphrase_test.txt"]
DOCCANO_VERSION = "1.8.4"
DOCCANO_VENV = Path(os.environ.get("DOCCANO_VENV", REPO.parent / "peer" / "doccano-venv"))
WEB_WORKERS, WEB_THREADS = 2, 4
TARGETS = {"ratio_8": 1.25, "p50_1": 1.0}

OURS_SEED = """
from annotator.accounts import services as accounts
from annotator.corpus import projects
from annotator.corpus.services import import_corpus
from annotator.models import Pair, Project
from annotator.projects.roles import grant_role
from rest_framework.authtoken.models import Token

import_corpus("mrpc", "MRPC", {files!r})
project = Project.objects.get(name="MRPC")
lead = accounts.create_account("lead", "bench-password-1")
grant_role(project, lead, "lead")
anns = [accounts.create_account(f"ann{{n}}", "bench-password-1") for n in range({n})]
pairs = list(Pair.objects.filter(project=project).order_by("position"))
projects.assign_pairs(project, anns, pairs)
print(json.dumps({{
    "project": project.pk,
    "items": [p.pk for p in pairs],
    "tokens": [Token.objects.create(user=u).key for u in anns],
}}))
"""

DOCCANO_SEED = """
import django, json, sys
django.setup()
from django.conf import settings
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from examples.models import Example
from label_types.models import CategoryType
from projects.models import Member, TextClassificationProject
from roles.models import Role

rows = json.load(open(sys.argv[1]))
User = get_user_model()
admin = User.objects.create_superuser("admin", "admin@example.org", "bench-password-1")
project = TextClassificationProject.objects.create(
    name="MRPC", project_type="DocumentClassification", created_by=admin, single_class_classification=True
)
labels = [CategoryType.objects.create(project=project, text=t) for t in ("paraphrase", "non_paraphrase")]
Example.objects.bulk_create(
    [Example(project=project, text=text, meta={{"id": key}}, upload_name="mrpc") for key, text in rows],
    batch_size=1000,
)
role = Role.objects.get(name=settings.ROLE_ANNOTATOR)
users = [User.objects.create_user(f"ann{{n}}", f"ann{{n}}@example.org", "bench-password-1") for n in range({n})]
for user in users:
    Member.objects.create(user=user, project=project, role=role)
print(json.dumps({{
    "project": project.pk,
    "items": list(Example.objects.filter(project=project).order_by("id").values_list("id", flat=True)),
    "labels": [label.pk for label in labels],
    "tokens": [Token.objects.create(user=u).key for u in users],
}}))
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def mrpc_rows() -> list[tuple[str, str]]:
    """(pair key, the two sentences) of every MRPC pair, in the files' order."""
    rows: list[tuple[str, str]] = []
    for path in FILES:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            for record in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                key = f"{record['#1 ID']}-{record['#2 ID']}"
                rows.append((key, f"{record['#1 String']}\n{record['#2 String']}"))
    return rows


class Doccano:
    """doccano's web process on a database of the private PostgreSQL server (its own gunicorn)."""

    def __init__(self, stack: Stack, port: int) -> None:
        self.stack, self.port = stack, port
        self.python = DOCCANO_VENV / "bin" / "python"
        site = subprocess.run(
            [str(self.python), "-c", "import backend, os; print(os.path.dirname(backend.__file__))"],
            capture_output=True,
            text=True,
            check=True,
        )
        self.backend = Path(site.stdout.strip())
        database_url = stack.postgres.createdb("doccano")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/tmp"),
            "DATABASE_URL": f"{database_url}?sslmode=disable",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DEBUG": "False",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "MEDIA_ROOT": str(stack.root / "doccano-media"),
        }
        self.web: Process | None = None

    def run(self, *args: str) -> str:
        result = subprocess.run(
            [str(self.python), *args], cwd=self.backend, env=self.env, capture_output=True, text=True
        )
        if result.returncode != 0:
            raise RuntimeError(f"doccano {' '.join(args[:2])} failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def seed(self, rows: list[tuple[str, str]], n: int) -> dict[str, Any]:
        self.run("manage.py", "migrate", "--noinput", "-v", "0")
        self.run("manage.py", "create_roles")
        data = self.stack.root / "doccano-rows.json"
        data.write_text(json.dumps(rows))
        out = self.run("-c", DOCCANO_SEED.format(n=n), str(data))
        return json.loads(out.strip().splitlines()[-1])

    def start(self) -> None:
        gunicorn = DOCCANO_VENV / "bin" / "gunicorn"
        cmd = [str(gunicorn), "config.wsgi", "--chdir", str(self.backend), "-b", f"127.0.0.1:{self.port}"]
        cmd += ["-w", str(WEB_WORKERS), "--threads", str(WEB_THREADS), "--log-level", "warning"]
        self.web = Process(cmd, self.env, self.stack.root / "doccano-web.log")
        self.web.start()
        wait_for_port(self.port, timeout=60, proc=self.web.proc)

    def stop(self) -> None:
        if self.web:
            self.web.stop()


class System:
    """One side of the comparison: how a client's save is sent, and whose processes' CPU counts."""

    def __init__(self, name: str, port: int, world: dict[str, Any], web: Process, stack: Stack) -> None:
        self.name, self.port, self.world, self.web, self.stack = name, port, world, web, stack

    def request(self, client: int, n: int) -> tuple[str, str]:
        """The path and JSON body of client `client`'s `n`th save (each client on pairs of its own)."""
        items = self.world["items"]
        item = items[(client * 997 + n) % len(items)]
        if self.name == "workbench":
            label = ("paraphrase", "non_paraphrase")[n % 2]
            return "/api/pair-labels/", json.dumps({"pair": item, "label": label, "base_version": None})
        project, label = self.world["project"], self.world["labels"][n % 2]
        return f"/v1/projects/{project}/examples/{item}/categories", json.dumps({"label": label})

    def cpu(self) -> tuple[float, float, float]:
        """CPU seconds so far of the web process, PostgreSQL, and (this workbench) the worker, beat and
        Redis: the work a save sets off after its answer, on the same two cores."""
        background = 0.0
        if self.name == "workbench":
            used = self.stack.cpu_seconds()
            background = (
                used["worker"] + used["redis"] + (self.stack.beat.cpu_seconds() if self.stack.beat else 0)
            )
        return self.web.cpu_seconds(), self.stack.postgres.cpu_seconds(), background


def drive(system: System, clients: int, seconds: float) -> dict[str, Any]:
    """`clients` annotators saving back to back for `seconds`: saves/s, p50/p95 ms, CPU ms per save."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    stop_at = time.perf_counter() + seconds

    def client(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", system.port, timeout=30)
        headers = {"Authorization": f"Token {system.world['tokens'][k]}", "Content-Type": "application/json"}
        n = 0
        while time.perf_counter() < stop_at:
            path, body = system.request(k, n)
            started = time.perf_counter()
            try:
                conn.request("POST", path, body, headers)
                response = conn.getresponse()
                response.read()
                ok = response.status in (200, 201)
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", system.port, timeout=30)
                ok = False
            if ok:
                latencies[k].append((time.perf_counter() - started) * 1000)
            else:
                errors[k] += 1
            n += 1
        conn.close()

    web0, pg0, bg0 = system.cpu()
    began = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    web1, pg1, bg1 = system.cpu()
    done = [ms for per in latencies for ms in per]
    count = max(len(done), 1)
    return {
        "system": system.name,
        "clients": clients,
        "saves": len(done),
        "errors": sum(errors),
        "rps": len(done) / elapsed,
        "p50": percentile(done, 0.5) if done else float("nan"),
        "p95": percentile(done, 0.95) if done else float("nan"),
        "web_cpu_ms": 1000 * (web1 - web0) / count,
        "pg_cpu_ms": 1000 * (pg1 - pg0) / count,
        "bg_cpu_ms": 1000 * (bg1 - bg0) / count,
    }


def warm(system: System, clients: int) -> None:
    drive(system, clients, 2.0)


def print_rows(rows: list[dict[str, Any]], client_counts: list[int]) -> dict[int, dict[str, float]]:
    print(
        f"{'round':>5} {'system':<10} {'clients':>7} {'saves/s':>8} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'web CPU/save':>12} {'PG CPU/save':>11} {'bg CPU/save':>11} {'errors':>6}"
    )
    for row in rows:
        print(
            f"{row['round']:>5} {row['system']:<10} {row['clients']:>7} {row['rps']:>8.1f} {row['p50']:>7.1f} "
            f"{row['p95']:>7.1f} {row['web_cpu_ms']:>10.2f}ms {row['pg_cpu_ms']:>9.2f}ms "
            f"{row['bg_cpu_ms']:>9.2f}ms {row['errors']:>6}"
        )
    ratios: dict[int, dict[str, float]] = {}
    for clients in client_counts:
        ours = [r for r in rows if r["clients"] == clients and r["system"] == "workbench"]
        peer = [r for r in rows if r["clients"] == clients and r["system"] == "doccano"]
        rps = [a["rps"] / b["rps"] for a, b in zip(ours, peer, strict=True) if b["rps"]]
        p50 = [a["p50"] / b["p50"] for a, b in zip(ours, peer, strict=True) if b["p50"]]
        ratios[clients] = {"rps": min(rps), "p50": max(p50)}
        print(
            f"{clients} client(s): workbench / doccano saves/s "
            + ", ".join(f"{r:.2f}×" for r in rps)
            + "; p50 "
            + ", ".join(f"{r:.2f}×" for r in p50)
        )
    return ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="seconds per system, client count, round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clients", default="1,8", help="client counts, comma-separated")
    args = parser.parse_args(argv)
    client_counts = [int(c) for c in args.clients.split(",")]
    if not (DOCCANO_VENV / "bin" / "gunicorn").exists():
        print(
            f"SKIP: no doccano environment at {DOCCANO_VENV} (see this file's docstring: "
            f"python3.11 -m venv {DOCCANO_VENV} && {DOCCANO_VENV}/bin/pip install doccano=={DOCCANO_VERSION} "
            '"marshmallow<4" "numpy<2" psycopg2-binary)'
        )
        return 0
    reason = available()
    if reason is not None:
        print(f"SKIP: the private stack cannot run here: {reason}")
        return 0
    if not all(path.exists() for path in FILES):
        print(f"SKIP: the MRPC files are not at {MRPC}")
        return 0
    n = max(client_counts)
    stack = Stack(pg_port=free_port(), redis_port=free_port(), web_port=free_port())
    doccano: Doccano | None = None
    try:
        stack.start_services()
        started = time.perf_counter()
        doccano = Doccano(stack, free_port())
        peer = doccano.seed(mrpc_rows(), n)
        ours = stack.python(OURS_SEED.format(files=[str(p) for p in FILES], n=n))
        print(
            f"MRPC: {len(ours['items'])} pairs (workbench) and {len(peer['items'])} examples (doccano "
            f"{DOCCANO_VERSION}), {n} annotators each, set up in {time.perf_counter() - started:.0f} s"
        )
        stack.start_web(workers=WEB_WORKERS, threads=WEB_THREADS)
        stack.start_worker()
        stack.start_beat()
        doccano.start()
        assert stack.web is not None and doccano.web is not None
        systems = [
            System("workbench", stack.web_port, ours, stack.web, stack),
            System("doccano", doccano.port, peer, doccano.web, stack),
        ]
        for system in systems:
            warm(system, n)
        rows: list[dict[str, Any]] = []
        for round_no in range(1, args.rounds + 1):
            for clients in client_counts:
                for system in systems:
                    rows.append({"round": round_no, **drive(system, clients, args.seconds)})
        print(
            f"Label saves through each API, {args.seconds:.0f} s per system and client count, "
            f"gunicorn {WEB_WORKERS}×{WEB_THREADS} each, one PostgreSQL server"
        )
        ratios = print_rows(rows, client_counts)
        failed = [r for r in rows if r["errors"]]
        verdicts = []
        if max(client_counts) in ratios:
            ok = ratios[max(client_counts)]["rps"] >= TARGETS["ratio_8"]
            verdicts.append(
                f"saves/s at {max(client_counts)} clients ≥ 1.25× doccano's: {'yes' if ok else 'NO'}"
            )
        if 1 in ratios:
            ok = ratios[1]["p50"] <= TARGETS["p50_1"]
            verdicts.append(f"p50 at 1 client ≤ doccano's: {'yes' if ok else 'NO'}")
        print("; ".join(verdicts) + (f"; {len(failed)} run(s) with errors" if failed else ""))
        return 1 if failed else 0
    finally:
        if doccano is not None:
            doccano.stop()
        stack.stop()
        stack.cleanup()


if __name__ == "__main__":
    sys.exit(main())
