"""Benchmark of the embedded default (issue 16): one pair-label save through the API on SQLite without a
broker, with the full MRPC imported (5,801 pairs, 3 annotators).

    .venv/bin/python bench/bench_embedded.py [--saves 60] [--labelled 300]

One run in its own process on a throwaway SQLite database (VAR_DIR in a temporary directory). Each save
is a call of Django's WSGI application as a server makes it: the call returns the response (its time is
the save's: "response"), then closing it fires `request_finished`, which runs the work the request left
for after its response — without a broker, the agreement recompute (its time: "after"). The next save
starts once that ended. Per run: p50 / p95 of `--saves` sequential saves (back to back, and paced every
0.5 s), the p50 of the work after the response, whether the latest stored computation holds every save,
and the size of the agreement tables. Targets: response p50 ≤ 15 ms, p95 ≤ 30 ms.
Then concurrency as `make run` serves it: `manage.py runserver` (threaded; each request's thread runs its
recompute after its response, before it reads the next request of its connection) on a fresh database
of the same corpus, 8 clients (one annotator and API token each, one keep-alive connection each) saving
pair labels without pauses for `--client-seconds`: target 0 errors.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
MRPC = REPO.parent / "shared" / "corpora" / "mrpc"
FILES = [MRPC / "msr_paraphrase_train.txt", MRPC / "msr_paraphrase_test.txt"]
TARGETS = {"p50": 15.0, "p95": 30.0}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def child(saves: int, labelled: int) -> dict[str, Any]:
    """One run in this process (Django set up here, on the VAR_DIR SQLite database)."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    django.setup()
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from annotator.agreement.computation import latest_snapshot, recompute
    from annotator.models import PairLabel

    project, anns, pairs = prepare(labelled, n_annotators=3)
    application = WSGIHandler()
    token = Token.objects.create(user=anns[0]).key

    def post(body: dict[str, Any]) -> tuple[str, bytes, float, float]:
        """POST the body as a WSGI server would: (status, content, ms to the response, ms of its close)."""
        payload = json.dumps(body).encode()
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": "/api/pair-labels/",
            "QUERY_STRING": "",
            "SERVER_NAME": "localhost",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "localhost",
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(payload)),
            "HTTP_AUTHORIZATION": f"Token {token}",
            "wsgi.input": io.BytesIO(payload),
            "wsgi.errors": sys.stderr,
            "wsgi.url_scheme": "http",
            "wsgi.version": (1, 0),
            "wsgi.multithread": False,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        statuses: list[str] = []
        started = time.perf_counter()
        result = application(environ, lambda status, headers, exc_info=None: statuses.append(status))
        content = b"".join(result)
        answered = time.perf_counter()
        result.close()  # the server has written the body: request_finished
        closed = time.perf_counter()
        return statuses[0], content, 1000 * (answered - started), 1000 * (closed - answered)

    post({"pair": pairs[0].pk, "label": "paraphrase", "base_version": None})
    after: list[float] = []

    def save(n: int) -> float:
        pair = pairs[labelled + n]
        version = (
            PairLabel.objects.filter(pair=pair, annotator=anns[0]).values_list("version", flat=True).first()
        )
        body = {
            "pair": pair.pk,
            "label": "paraphrase" if n % 2 else "non_paraphrase",
            "base_version": version,
        }
        status, content, elapsed, closing = post(body)
        if not status.startswith(("200", "201")):
            raise SystemExit(f"save {n}: HTTP {status} {content[:300]!r}")
        after.append(closing)
        return elapsed

    back_to_back = [save(n) for n in range(saves)]
    paced = []
    for n in range(saves, saves + saves // 2):
        if paced:
            time.sleep(0.5)
        paced.append(save(n))
    fresh = recompute(project.pk) == "unchanged"
    try:  # dbstat needs SQLite built with SQLITE_ENABLE_DBSTAT_VTAB
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT name, SUM(pgsize) FROM dbstat WHERE name LIKE 'annotator_agreement%' GROUP BY name"
            )
            sizes = {name: int(size) for name, size in cursor.fetchall()}
    except Exception:  # noqa: BLE001 — the size column then stays empty
        sizes = {}
    return {
        "back_to_back": back_to_back,
        "paced": paced,
        "after": after,
        "latest_holds_every_save": fresh,
        "snapshots": latest_snapshot(project).pk if latest_snapshot(project) else 0,
        "table_bytes": sizes,
    }


def prepare(labelled: int, n_annotators: int) -> tuple[Any, list[Any], list[Any]]:
    """Migrate, import the full MRPC, a lead and `n_annotators` annotators assigned every pair, the
    first `labelled` pairs labelled by all of them, one agreement computation (Django set up)."""
    from django.core.management import call_command

    from annotator.accounts import services as accounts
    from annotator.agreement import changes
    from annotator.agreement.computation import recompute
    from annotator.annotation import services as annotation_services
    from annotator.corpus import projects
    from annotator.corpus.services import import_corpus
    from annotator.models import Pair, Project
    from annotator.projects.roles import grant_role

    call_command("migrate", verbosity=0)
    import_corpus("mrpc", "MRPC", [str(p) for p in FILES])
    project = Project.objects.get(name="MRPC")
    lead = accounts.create_account("lead", "bench-password-1")
    grant_role(project, lead, "lead")
    anns = [accounts.create_account(f"ann{n}", "bench-password-1") for n in range(n_annotators)]
    pairs = list(Pair.objects.filter(project=project).order_by("position"))
    projects.assign_pairs(project, anns, pairs)
    with changes.batched():
        for n, pair in enumerate(pairs[:labelled]):
            for k, who in enumerate(anns[:3]):
                label = "non_paraphrase" if (n + k) % 5 == 0 else "paraphrase"
                annotation_services.set_pair_label(pair, who, label, base_version=None)
    recompute(project.pk)
    return project, anns, pairs


def child_clients(n_clients: int, labelled: int) -> dict[str, Any]:
    """Prepare the database for the concurrent run: `n_clients` annotators with API tokens."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    django.setup()
    from rest_framework.authtoken.models import Token

    project, anns, pairs = prepare(labelled, n_annotators=n_clients)
    return {
        "project": project.pk,
        "tokens": [Token.objects.create(user=a).key for a in anns],
        "pairs": [p.pk for p in pairs[labelled : labelled + 2000]],
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_clients(n_clients: int, seconds: float, labelled: int) -> dict[str, Any]:
    """`manage.py runserver` on a fresh SQLite database, `n_clients` threads saving without pauses."""
    env = {**os.environ, "VAR_DIR": tempfile.mkdtemp(prefix="bench-embedded-clients-")}
    for name in ("DATABASE_URL", "REDIS_URL"):
        env.pop(name, None)
    out = subprocess.run(
        [sys.executable, __file__, "--child-clients", str(n_clients), "--labelled", str(labelled)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise SystemExit(f"clients: {out.stderr[-2000:]}")
    world = json.loads(out.stdout.strip().splitlines()[-1])
    port = free_port()
    log = Path(env["VAR_DIR"]) / "runserver.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        latencies: list[float] = []
        errors: list[str] = []
        lock = threading.Lock()
        stop_at = time.monotonic() + seconds

        def client(k: int) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            headers = {"Authorization": f"Token {world['tokens'][k]}", "Content-Type": "application/json"}
            versions: dict[int, int | None] = {}
            n = 0
            while time.monotonic() < stop_at:
                pair = world["pairs"][(k * 131 + n) % len(world["pairs"])]
                body = json.dumps(
                    {
                        "pair": pair,
                        "label": "paraphrase" if n % 2 else "non_paraphrase",
                        "base_version": versions.get(pair),
                    }
                )
                n += 1
                started = time.perf_counter()
                try:
                    conn.request("POST", "/api/pair-labels/", body, headers)
                    response = conn.getresponse()
                    data = response.read()
                    status = response.status
                except (OSError, http.client.HTTPException) as exc:
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    status, data = 0, repr(exc).encode()
                elapsed = 1000 * (time.perf_counter() - started)
                with lock:
                    latencies.append(elapsed)
                    if status in (200, 201):
                        versions[pair] = json.loads(data)["version"]
                    else:
                        errors.append(f"HTTP {status}: {data[:200]!r}")
            conn.close()

        threads = [threading.Thread(target=client, args=(k,)) for k in range(n_clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        server.terminate()
        server.wait(30)
    return {"latencies": latencies, "errors": errors, "seconds": seconds, "log": str(log)}


def run(mode: str, saves: int, labelled: int) -> dict[str, Any]:
    env = {**os.environ, "VAR_DIR": tempfile.mkdtemp(prefix="bench-embedded-")}
    for name in ("DATABASE_URL", "REDIS_URL"):
        env.pop(name, None)
    out = subprocess.run(
        [sys.executable, __file__, "--child", "--saves", str(saves), "--labelled", str(labelled)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise SystemExit(f"{mode}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=60)
    parser.add_argument("--labelled", type=int, default=300, help="pairs labelled by all 3 annotators first")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients against runserver")
    parser.add_argument("--client-seconds", type=float, default=20.0)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-clients", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not all(p.is_file() for p in FILES):
        print(f"skipped: the MRPC files are not in {MRPC}")
        return 0
    if args.child:
        print(json.dumps(child(args.saves, args.labelled)))
        return 0
    if args.child_clients:
        print(json.dumps(child_clients(args.child_clients, args.labelled)))
        return 0
    print(f"Embedded default (SQLite, no broker), full MRPC, {args.saves} sequential pair-label saves")
    print(
        f"{'':<12} {'p50 ms':>8} {'p95 ms':>8} {'paced p50':>10} {'paced p95':>10} {'after p50':>10}  tables"
    )
    r = run("saves", args.saves, args.labelled)
    b, p = r["back_to_back"], r["paced"]
    kib = sum(r["table_bytes"].values()) / 1024
    print(
        f"{'response':<12} {statistics.median(b):8.1f} {percentile(b, 0.95):8.1f} {statistics.median(p):10.1f} "
        f"{percentile(p, 0.95):10.1f} {statistics.median(r['after']):8.1f}ms  {kib:.0f} KiB"
        f"{'' if r['latest_holds_every_save'] else '  (latest snapshot misses a save!)'}"
    )
    print(f"targets: p50 ≤ {TARGETS['p50']:.0f} ms, p95 ≤ {TARGETS['p95']:.0f} ms")
    c = run_clients(args.clients, args.client_seconds, args.labelled)
    lat = c["latencies"]
    print(
        f"\n{args.clients} clients against `manage.py runserver` (SQLite, each recompute after its response), "
        f"{c['seconds']:.0f} s without pauses:"
    )
    print(f"{'saves':>6} {'errors':>6} {'saves/s':>8} {'p50 ms':>8} {'p95 ms':>8}   target: 0 errors")
    print(
        f"{len(lat):>6} {len(c['errors']):>6} {len(lat) / c['seconds']:>8.1f} "
        f"{statistics.median(lat) if lat else float('nan'):>8.1f} {percentile(lat, 0.95) if lat else float('nan'):>8.1f}"
    )
    for error in c["errors"][:5]:
        print(f"  error: {error}")
    print(f"machine load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 1 if c["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
