"""A private, throwaway production-shaped stack on loopback: PostgreSQL, Redis, gunicorn and a worker.

Used by `bench/bench_load.py` and `tests/services/test_faults.py`. Everything runs in a temporary
directory on ports of its own, so stopping or restarting it never touches the machine's shared
PostgreSQL/Redis that other test runs use:

- `PrivatePostgres`: `initdb` + `pg_ctl` (as the `postgres` user when run as root) on 127.0.0.1;
- `PrivateRedis`: `redis-server --save "" --appendonly no`;
- `Web`: gunicorn with `deploy/gunicorn.conf.py` (the same settings as docker-compose's `web`);
- `Worker`: a Celery worker on a private queue.

All processes are started in their own session and stopped by their own pid.
"""

from __future__ import annotations

import glob
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


def pg_bin() -> Path:
    """The PostgreSQL server binaries (PG_BIN, else the newest /usr/lib/postgresql/*/bin)."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name))
    if not found:
        raise RuntimeError("PostgreSQL server binaries not found (set PG_BIN)")
    return Path(found[-1])


def available() -> str | None:
    """None when a private stack can run here, else the reason it cannot."""
    try:
        pg_bin()
    except RuntimeError as exc:
        return str(exc)
    if shutil.which("redis-server") is None:
        return "redis-server not found"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser to start PostgreSQL as the postgres user"
    return None


def wait_for_port(port: int, timeout: float = 30, *, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process {proc.args[0]} exited with {proc.returncode}")
        with socket.socket() as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def free_port() -> int:
    """A TCP port nothing listens on right now (tests use these: two test runs on one machine must not
    share a stack's ports, or one run's shutdown stops the other's servers)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class PrivatePostgres:
    def __init__(self, port: int, root: Path) -> None:
        self.port, self.root = port, root
        self.data = root / "pgdata"
        self.log = root / "postgres.log"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = _as_postgres([str(pg_bin() / args[0]), *args[1:]])
        result = subprocess.run(cmd, capture_output=True, text=True)
        if check and result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stdout}{result.stderr}"
            )
        return result

    def start(self) -> None:
        if not self.data.exists():
            self.root.mkdir(parents=True, exist_ok=True)
            if os.geteuid() == 0:
                shutil.chown(self.root, "postgres", "postgres")
            self._run(
                "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"
            )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c max_connections=200",
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        self.stop()
        self.start()

    def cpu_seconds(self) -> float:
        """CPU time of the postmaster and its backends."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return 0.0
        return cpu_seconds(pid)

    def createdb(self, name: str) -> str:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"


class Process:
    """A child process in its own session, stopped by its pid (and its group)."""

    def __init__(self, cmd: list[str], env: dict[str, str], log: Path) -> None:
        self.cmd, self.env, self.log = cmd, env, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            self.cmd,
            cwd=REPO,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def signal(self, sig: int) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)

    def stop(self, timeout: float = 15) -> None:
        if self.proc and self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.proc.wait(10)

    def rss_bytes(self) -> int:
        """Memory (PSS) of the process and all its descendants (from /proc)."""
        if not self.proc or self.proc.poll() is not None:
            return 0
        return sum(_rss(pid) for pid in _tree(self.proc.pid))

    def child_pss(self) -> list[int]:
        """Memory (PSS) of each child of the process with its own descendants: gunicorn's workers
        under its master."""
        if not self.proc or self.proc.poll() is not None:
            return []
        children = _children()
        return [sum(_rss(pid) for pid in _tree(child, children)) for child in children.get(self.proc.pid, [])]

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.proc.pid) if self.proc and self.proc.poll() is None else 0.0


def _children() -> dict[int, list[int]]:
    """Parent pid → the pids of its children, from /proc."""
    children: dict[int, list[int]] = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue
        fields = text.rsplit(")", 1)[1].split()
        children.setdefault(int(fields[1]), []).append(int(text.split(" ", 1)[0]))
    return children


def _tree(root: int, children: dict[int, list[int]] | None = None) -> list[int]:
    children = _children() if children is None else children
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def _rss(pid: int) -> int:
    """Proportional set size (PSS) of the process: its private memory plus its share of pages it
    shares with others. Forked gunicorn/Celery workers share most of their parent's pages; summing
    their RSS would count those pages once per process. Falls back to RSS where PSS is unavailable."""
    for path, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            for line in Path(path).read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        except OSError:
            continue
    return 0


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(root: int) -> float:
    """User + system CPU time of a process tree, counting children that already exited and were
    waited for (cutime/cstime), from /proc/<pid>/stat."""
    total = 0
    for pid in _tree(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
    return total / CLOCK_TICKS


class PrivateRedis(Process):
    def __init__(self, port: int, root: Path) -> None:
        cmd = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        super().__init__(cmd + ["--dir", str(root)], dict(os.environ), root / "redis.log")
        self.port = port

    def start(self) -> None:
        super().start()
        wait_for_port(self.port, proc=self.proc)

    def kill(self) -> None:
        """Gone at once, as a crash or a network cut would make it."""
        self.signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait(10)


class Stack:
    """The private stack with the app's environment (DEBUG off, secrets from the environment)."""

    def __init__(self, *, pg_port: int, redis_port: int, web_port: int, root: Path | None = None) -> None:
        self.root = root or Path(tempfile.mkdtemp(prefix="workbench-stack-"))
        self.root.chmod(0o755)  # the postgres user must reach its data directory inside
        self.postgres = PrivatePostgres(pg_port, self.root / "pg")
        self.redis = PrivateRedis(redis_port, self.root)
        self.web_port = web_port
        self.queue = f"stack-{secrets.token_hex(4)}"
        self.env: dict[str, str] = {}
        self.web: Process | None = None
        self.worker: Process | None = None
        self.more_workers: list[Process] = []  # `--scale worker=N`: the second and later workers
        self.beat: Process | None = None  # the one Celery beat (periodic tasks), when started

    def start_services(self, db_name: str = "workbench") -> None:
        self.postgres.start()
        self.redis.start()
        database_url = self.postgres.createdb(db_name)
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST_"))},
            "DATABASE_URL": database_url,
            "REDIS_URL": f"redis://127.0.0.1:{self.redis.port}/0",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            "CELERY_QUEUE": self.queue,
            "VAR_DIR": str(self.root / "var"),
            "DJANGO_SETTINGS_MODULE": "annotator.settings",
            # BENCH_APP_LOG_LEVEL=INFO: the app's own reasons (e.g. why a computation was a full one)
            "LOG_LEVEL": os.environ.get("BENCH_APP_LOG_LEVEL", "WARNING"),
        }
        self.manage("migrate", "--noinput", "-v", "0")

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO, env=self.env, capture_output=True, text=True
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def python(self, code: str) -> Any:
        """Run `code` in a Django process of the stack; it prints one JSON value, returned here."""
        prelude = "import django, json; django.setup()\n"
        result = subprocess.run(
            [sys.executable, "-c", prelude + code], cwd=REPO, env=self.env, capture_output=True, text=True
        )
        if result.returncode != 0:
            raise RuntimeError(f"stack python failed:\n{result.stderr}")
        return json.loads(result.stdout.strip().splitlines()[-1])

    def start_web(self, workers: int = 2, threads: int = 4) -> None:
        env = {
            **self.env,
            "BIND": f"127.0.0.1:{self.web_port}",
            "WEB_WORKERS": str(workers),
            "WEB_THREADS": str(threads),
            "ACCESS_LOG": "",
        }
        self.web = Process(
            [str(VENV_BIN / "gunicorn"), "annotator.wsgi", "-c", "deploy/gunicorn.conf.py"],
            env,
            self.root / "web.log",
        )
        self.web.start()
        wait_for_port(self.web_port, proc=self.web.proc)

    def worker_command(self, name: str, level: str = "WARNING") -> list[str]:
        """A Celery worker of one pool process on the private queue, its explorer queue and its κ_C chunk
        queue (in the order settings' CELERY_TASK_QUEUES lists them: the default one first), named
        `name`@host."""
        return [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "annotator",
            "worker",
            "-Q",
            f"{self.queue},{self.queue}.explorer,{self.queue}.kappa_c",
            "-c",
            "1",
            "-l",
            level,
            "-n",
            f"{name}@%h",
            "--without-gossip",
            "--without-mingle",
        ]

    def start_worker(self, nice: int = 0) -> None:
        """One Celery worker process; `nice` > 0 lowers its CPU priority below the web's."""
        n = 1 + len(self.more_workers) + (self.worker is not None)
        level = os.environ.get("BENCH_WORKER_LOG_LEVEL", "WARNING")  # INFO: every task with its outcome
        cmd = ["nice", "-n", str(nice)] if nice else []
        cmd += self.worker_command(f"{self.queue}-{n}", level)
        worker = Process(cmd, self.env, self.root / ("worker.log" if n == 1 else f"worker{n}.log"))
        worker.start()
        if self.worker is None:
            self.worker = worker
        else:
            self.more_workers.append(worker)
        if nice and worker.proc:
            # The worker runs in a session of its own; with the kernel's autogroup scheduling
            # (sched_autogroup_enabled) a nice value only ranks processes inside one session, so the
            # session's group gets it too — as docker-compose's cpu_shares does for the worker container.
            autogroup = Path(f"/proc/{worker.proc.pid}/autogroup")
            try:
                autogroup.write_text(str(nice))
            except OSError:
                pass  # no autogroup scheduling (or not allowed): plain nice is all there is

    def start_beat(self) -> None:
        """Celery beat, the one scheduler of the periodic tasks (settings' CELERY_BEAT_SCHEDULE: the
        agreement's catch-up and retention), as `make beat` or docker-compose's `beat` service runs it."""
        cmd = [sys.executable, "-m", "celery", "-A", "annotator", "beat", "-l", "WARNING"]
        cmd += ["-s", str(self.root / "celerybeat-schedule")]
        self.beat = Process(cmd, self.env, self.root / "beat.log")
        self.beat.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.web_port}{path}"

    def get_json(self, path: str, token: str | None = None, timeout: float = 10) -> tuple[int, Any]:
        request = urllib.request.Request(self.url(path))
        if token:
            request.add_header("Authorization", f"Token {token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            body = exc.read()
            try:
                return exc.code, json.loads(body)
            except ValueError:
                return exc.code, body.decode(errors="replace")

    def cpu_seconds(self) -> dict[str, float]:
        return {
            "web": self.web.cpu_seconds() if self.web else 0.0,
            "worker": sum(w.cpu_seconds() for w in self._workers()),
            "postgres": self.postgres.cpu_seconds(),
            "redis": self.redis.cpu_seconds(),
        }

    def rss_bytes(self) -> dict[str, int]:
        return {
            "web": self.web.rss_bytes() if self.web else 0,
            "worker": sum(w.rss_bytes() for w in self._workers()),
        }

    def _workers(self) -> list[Process]:
        return ([self.worker] if self.worker else []) + self.more_workers

    def stop(self) -> None:
        for process in (self.web, self.beat, *self._workers()):
            if process:
                process.stop()
        self.redis.stop()
        self.postgres.stop()

    def cleanup(self) -> None:
        keep = os.environ.get("BENCH_KEEP_LOGS")  # a folder: the stack's logs are copied there first
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            for log in self.root.glob("*.log"):
                shutil.copy(log, Path(keep) / log.name)
        shutil.rmtree(self.root, ignore_errors=True)


SEED = """
from annotator.models import Tagset
from annotator.accounts import services as accounts
from annotator.corpus import projects
from annotator.core.tagsets import VILA_NAME
from annotator.projects import services as project_setup
from rest_framework.authtoken.models import Token
from django.contrib.auth import get_user_model

N_ANNOTATORS, N_PAIRS = {n_annotators}, {n_pairs}
User = get_user_model()
lead = accounts.create_account("lead", "lead-pass-123")
annotators = [accounts.create_account(f"ann{{n:03d}}", "ann-pass-123") for n in range(N_ANNOTATORS)]
project = project_setup.create_project(lead, name="Load", tagset=Tagset.objects.get(name=VILA_NAME))
pairs = [
    projects.add_pair(
        project, f"p{{n}}",
        tokens1="The film opened on Friday in twelve cities across the country .".split(),
        tokens2="The movie premiered Friday in twelve cities nationwide .".split(),
    )
    for n in range(N_PAIRS)
]
projects.assign_pairs(project, annotators, pairs)
ptypes = list(project.tagset.types.filter(projection_required=False, scope_sides="both").values_list("pk", flat=True))
print(json.dumps({{
    "project": project.pk,
    "pairs": [p.pk for p in pairs],
    "ptypes": ptypes,
    "lead": Token.objects.create(user=lead).key,
    "annotators": [Token.objects.create(user=u).key for u in annotators],
}}))
"""


def seed(stack: Stack, n_annotators: int, n_pairs: int) -> dict[str, Any]:
    """A project with `n_pairs` pairs assigned to `n_annotators` annotators; their API tokens."""
    return stack.python(SEED.format(n_annotators=n_annotators, n_pairs=n_pairs))
