"""Shared fixtures: real services (PostgreSQL, Redis, a Celery worker), Chromium, the shared corpora.

Tests that need something absent skip with a reason on a newcomer's laptop, and fail instead when CI
sets REQUIRE_SERVICES=1 / REQUIRE_BROWSER=1 / REQUIRE_CORPORA=1.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
ARTIFACTS = REPO / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


def required(flag: str) -> bool:
    return os.environ.get(flag, "") in {"1", "true", "yes"}


def unavailable(flag: str, reason: str) -> None:
    """Skip, or fail when the environment says this must be available."""
    if required(flag):
        pytest.fail(f"{reason} (required because {flag}=1)")
    pytest.skip(reason)


# ---- parallel runs (pytest-xdist, `make test`) ---------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With `--dist loadgroup`, the tests of a module that share a module- or class-scoped fixture of
    this suite (a started stack, a generated corpus) run on one worker, which builds that fixture once;
    the other tests are spread one by one. Plugins' fixtures (baseid "") are per worker anyway."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info else ()
        if any(d.scope in {"module", "class"} and d.baseid for chain in defs for d in chain):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


# ---- shared corpora and specs ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def corpora_dir() -> Path:
    path = SHARED / "corpora"
    if not path.is_dir():
        unavailable(
            "REQUIRE_CORPORA", f"{path} not found: the real MRPC/ETPC corpora are not on this machine"
        )
    return path


@pytest.fixture(scope="session")
def specs_dir() -> Path:
    path = SHARED / "specs"
    if not path.is_dir():
        unavailable("REQUIRE_CORPORA", f"{path} not found: the agreement spec cases are not on this machine")
    return path


# ---- the test world -------------------------------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def fast_password_hasher() -> Iterator[None]:
    """Every test user gets a cheap password hash (PBKDF2 costs ~1 s per user here and no test needs
    it), set once for the whole session. Without Django loaded (the metrics tests alone) there is
    nothing to set."""
    if "django.conf" not in sys.modules:
        yield
        return
    from django.conf import settings
    from django.test.utils import override_settings

    if not settings.configured:
        yield
        return
    from tests.make import FAST_HASHERS

    with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        yield


@pytest.fixture
def cast(db: None) -> Any:
    """The one cast of tests/make.py: admin, lead, other_lead, anna, ben, cat, outsider."""
    from tests import make

    return make.cast()


@pytest.fixture(scope="module")
def module_world(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[Callable[..., Any]]:
    """A world built once for the tests of a module that use `db` (not `transactional_db`: its flush
    would end the transaction). Yields `build(make_world, *args, **kwargs)`, which runs `make_world`
    in a transaction opened for the module and returns what it returns. Each test's `db` is a savepoint
    inside that transaction, so what a test writes is undone at its end and the next test finds the
    world as built; after the module's last test the transaction is rolled back. The model instances
    built are the module's: a test reads its own copies with `make.fresh`. The world is in the
    database for every later test of the module, so each that uses the database asks for it (through
    the module's function-scoped world fixture, which asks for `db`; the module has no `django_db`
    mark); `builtin_tagsets` fails one that does not."""
    from django.db import transaction

    outer = transaction.atomic()
    outer._from_testcase = True  # as a TestCase's own: the durable blocks of the code may open inside it
    with django_db_blocker.unblock():
        outer.__enter__()

    def build(make_world: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with django_db_blocker.unblock():
            return make_world(*args, **kwargs)

    _world_of_module.add(request.node.nodeid)
    try:
        yield build
    finally:
        _world_of_module.discard(request.node.nodeid)
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


_world_of_module: set[str] = set()  # the modules whose `module_world` is open


@pytest.fixture(autouse=True)
def response_closed_by_the_test_end() -> Iterator[None]:
    """A response a test's WSGI client never closed (schemathesis' client leaves some open) has sent
    `request_started` but not `request_finished`: this thread would count as serving a request for the
    rest of the process, and a later browser test would wait for it at teardown
    (`taskqueue.wait_until_served`). End it with the test, as a server ends a closed response."""
    yield
    from annotator import taskqueue

    if taskqueue.in_request():
        taskqueue.run_after_response()


@pytest.fixture
def eager_celery() -> Iterator[None]:
    """Run tasks in-process even when REDIS_URL points at a broker (tests without a worker)."""
    from tests.make import eager_tasks

    with eager_tasks():
        yield


# ---- database -------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def builtin_tagsets(request: pytest.FixtureRequest) -> None:
    """The data migration's tagsets, restored when a transactional test's flush removed them. Fails a
    test that would meet a module's world it did not ask for, or end it (`module_world`)."""
    uses_db = request.node.get_closest_marker("django_db") or {"db", "transactional_db"} & set(
        request.fixturenames
    )
    if not uses_db:
        return
    if (
        request.node.nodeid.split("::", 1)[0] in _world_of_module
        and "module_world" not in request.fixturenames
    ):
        pytest.fail(
            f"{request.node.nodeid}: the world of its module (module_world) is in the database while this "
            "test runs; have the test ask for it, or move the test to a module without one"
        )
    marker = request.node.get_closest_marker("django_db")
    transactional = "transactional_db" in request.fixturenames or bool(
        marker and marker.kwargs.get("transaction")
    )
    if transactional and "module_world" in request.fixturenames:
        pytest.fail(f"{request.node.nodeid}: a transactional test's flush would end its module's world")
    request.getfixturevalue("transactional_db" if "transactional_db" in request.fixturenames else "db")
    from annotator.core.tagsets import install_builtin_tagsets
    from annotator.models import ParaphraseType, Tagset

    if not Tagset.objects.filter(builtin=True).exists():
        install_builtin_tagsets(Tagset, ParaphraseType)


# ---- services -------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """Give each pytest process its own PostgreSQL test database, so concurrent runs never collide,
    cloned from a migrated template database (`migrated_postgres_template`). On SQLite, when a
    migrated copy of the schema is kept (`migrated_sqlite_template`), the test database is made from
    the models without running the migrations, and `django_db_setup` puts the copy in its place."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    db.setdefault("TEST", {})
    if "postgresql" in db["ENGINE"]:
        db["TEST"]["NAME"] = f"test_{db['NAME']}_{os.getpid()}"
        db["TEST"]["TEMPLATE"] = migrated_postgres_template(db)
    elif "sqlite3" in db["ENGINE"] and migrated_sqlite_template().exists():
        db["TEST"]["MIGRATE"] = False


@functools.cache
def migrations_digest(*extra: str) -> str:
    """A digest of Django's version, `extra`, every installed app's migration files and the files of the
    workbench modules they import (directly or through each other: the built-in tagsets, the
    agreement's stored parts): a change to any of them gives another digest."""
    import hashlib
    import importlib.util

    import django
    from django.apps import apps

    files: set[Path] = set()
    for app in apps.get_app_configs():
        spec = importlib.util.find_spec(f"{app.name}.migrations")
        if spec and spec.origin:
            files |= set(Path(spec.origin).parent.glob("*.py"))
    digest = hashlib.sha256(" ".join([django.__version__, *extra]).encode())
    for path in sorted(_with_imported_modules(files)):
        digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def migrated_sqlite_template() -> Path:
    """Where the SQLite test database is kept right after the migrations ran, under var/: migrating
    costs ~10 s of CPU per test process, copying the kept file a few milliseconds. Named by
    `migrations_digest` with SQLite's version."""
    import sqlite3

    return REPO / "var" / "test-databases" / f"sqlite-{migrations_digest(sqlite3.sqlite_version)}.sqlite3"


def migrated_postgres_template(db: dict[str, Any]) -> str:
    """The name of a PostgreSQL database migrated as a test database is, which each pytest process's
    test database is created from (`CREATE DATABASE … TEMPLATE`, a file copy on the server) instead of
    running the migrations again. It is named by `migrations_digest`; the first process that finds
    none builds it (`manage.py migrate` on a database of its own, renamed when done) while holding an
    advisory lock that the others wait for, and drops the templates of other digests."""
    import psycopg
    from psycopg import sql as pgsql

    name = f"test_{db['NAME']}_tmpl_{migrations_digest()}"[:63]
    prefix = f"test_{db['NAME']}_tmpl_"
    params = {
        "host": db.get("HOST") or "127.0.0.1",
        "port": db.get("PORT") or 5432,
        "user": db.get("USER") or "postgres",
        "password": db.get("PASSWORD") or None,
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as admin:
        admin.execute("SELECT pg_advisory_lock(hashtext(%s))", (prefix,))  # released when this closes
        found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if found is None:
            building = f"test_{db['NAME']}_building_{os.getpid()}"[:63]
            admin.execute(pgsql.SQL("DROP DATABASE IF EXISTS {}").format(pgsql.Identifier(building)))
            admin.execute(pgsql.SQL("CREATE DATABASE {}").format(pgsql.Identifier(building)))
            user, password = params["user"], f":{params['password']}" if params["password"] else ""
            url = f"postgres://{user}{password}@{params['host']}:{params['port']}/{building}"
            migrate = subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "--run-syncdb", "-v", "0"],
                cwd=REPO,
                env={**os.environ, "DATABASE_URL": url, "CONN_MAX_AGE": "0"},
                capture_output=True,
                text=True,
            )
            if migrate.returncode != 0:
                admin.execute(pgsql.SQL("DROP DATABASE IF EXISTS {}").format(pgsql.Identifier(building)))
                raise pytest.UsageError(
                    f"migrating the PostgreSQL template database {building} failed:\n{migrate.stderr}"
                )
            admin.execute(
                pgsql.SQL("ALTER DATABASE {} RENAME TO {}").format(
                    pgsql.Identifier(building), pgsql.Identifier(name)
                )
            )
            admin.execute(
                pgsql.SQL("ALTER DATABASE {} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false").format(
                    pgsql.Identifier(name)
                )
            )
        others = admin.execute(
            "SELECT datname FROM pg_database WHERE starts_with(datname, %s) AND datname <> %s", (prefix, name)
        ).fetchall()
        for (other,) in others:
            try:
                admin.execute(
                    pgsql.SQL("ALTER DATABASE {} WITH IS_TEMPLATE false").format(pgsql.Identifier(other))
                )
                admin.execute(pgsql.SQL("DROP DATABASE {}").format(pgsql.Identifier(other)))
            except psycopg.errors.ObjectInUse:
                pass  # another run is creating its test database from it; a later run drops it
    return name


def _with_imported_modules(files: set[Path]) -> set[Path]:
    """`files` and the files of every `annotator` module they import, followed through those."""
    import ast
    import importlib.util

    found, todo = set(files), list(files)
    while todo:
        for node in ast.walk(ast.parse(todo.pop().read_bytes())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            for name in names:
                if not name.startswith("annotator."):
                    continue
                try:
                    spec = importlib.util.find_spec(name)
                except (ImportError, ValueError):
                    continue
                path = Path(spec.origin) if spec and spec.origin else None
                if path and path.suffix == ".py" and path not in found:
                    found.add(path)
                    todo.append(path)
    return found


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """pytest-django's test databases; on SQLite the migrated schema and data come from the kept
    copy (`migrated_sqlite_template`), or, when there is none yet, the freshly migrated database is
    kept for the next run (written aside and renamed, so parallel workers never read half a file)."""
    import sqlite3

    from django.contrib.contenttypes.models import ContentType
    from django.db import connection

    if connection.vendor != "sqlite":
        return
    template = migrated_sqlite_template()
    with django_db_blocker.unblock():
        connection.ensure_connection()
        if connection.settings_dict["TEST"].get("MIGRATE") is False:
            with sqlite3.connect(template) as kept:
                kept.backup(connection.connection)
            kept.close()
            ContentType.objects.clear_cache()  # the ids the models' set-up cached are the copy's no more
            return
        template.parent.mkdir(parents=True, exist_ok=True)
        aside = template.with_suffix(f".{os.getpid()}.tmp")
        with sqlite3.connect(aside) as copy:
            connection.connection.backup(copy)
        copy.close()
        os.replace(aside, template)


@pytest.fixture
def postgres_required(settings: Any) -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        unavailable("REQUIRE_SERVICES", "needs PostgreSQL: set DATABASE_URL=postgres://…")


def redis_url() -> str:
    return os.environ.get("REDIS_URL", "")


def worker_redis_url(url: str, worker: str) -> str:
    """REDIS_URL for one pytest-xdist worker: the database number of `url` plus the worker's index (gw0
    keeps it, gw1 takes the next), so two workers never share keys (their test databases reuse ids)."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    database = base + int(worker.removeprefix("gw"))
    if database > 15:
        raise pytest.UsageError(
            f"REDIS_URL={url}: xdist worker {worker} would use Redis database {database}; "
            "start from a database number that leaves one free per worker (Redis has 16, 0-15)"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist each worker gets its own Redis database (see `worker_redis_url`) and its own
    VAR_DIR (job files are named by ids that every worker's test database reuses), for the settings,
    the Celery app and the workers and stacks the tests start (they read REDIS_URL and VAR_DIR)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker:
        return
    from django.conf import settings

    from annotator.celery import app

    var = Path(tempfile.mkdtemp(prefix=f"workbench-{worker}-"))
    os.environ["VAR_DIR"] = str(var)
    settings.VAR_DIR, settings.MEDIA_ROOT = var, var / "media"
    config.add_cleanup(lambda: shutil.rmtree(var, ignore_errors=True))
    if url := redis_url():
        own = worker_redis_url(url, worker)
        os.environ["REDIS_URL"] = own
        settings.REDIS_URL = settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = own
        settings.CACHES["default"]["LOCATION"] = own
        app.conf.broker_url = app.conf.result_backend = own


@pytest.fixture
def redis_required() -> str:
    url = redis_url()
    if not url:
        unavailable("REQUIRE_SERVICES", "needs Redis: set REDIS_URL=redis://…")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except Exception as exc:
        unavailable("REQUIRE_SERVICES", f"Redis at {url} does not answer: {exc}")
    return url


class Worker:
    """A real `celery worker` process on a private queue, reading the test database."""

    def __init__(self, env: dict[str, str], queue: str) -> None:
        self.env, self.queue = env, queue
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = ARTIFACTS / f"worker-{queue}.log"

    def start(self) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.proc = subprocess.Popen(
            [
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
                "--pool",
                "prefork",
                "-l",
                "INFO",
                "-n",
                f"{self.queue}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=REPO,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.wait_ready()

    def wait_ready(self, timeout: float = 30) -> None:
        from celery import current_app

        deadline = time.time() + timeout
        while time.time() < deadline:
            replies = current_app.control.ping(
                destination=[f"{self.queue}@{os.uname().nodename}"], timeout=0.5
            )
            if replies:
                return
            if self.proc and self.proc.poll() is not None:
                raise RuntimeError(f"celery worker exited with {self.proc.returncode}; see {self.log}")
        raise RuntimeError(f"celery worker did not answer within {timeout}s; see {self.log}")

    def kill(self) -> None:
        """SIGKILL the whole worker (parent and pool children), as a crash would."""
        import signal

        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        import signal

        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def celery_worker_process(redis_required: str, transactional_db: None, settings: Any) -> Iterator[Worker]:
    """Start a real Celery worker through Redis against the test database (data must be committed)."""
    from celery import current_app
    from django.db import connection

    queue = f"test-{uuid.uuid4().hex[:8]}"
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        database_url = f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    else:
        unavailable(
            "REQUIRE_SERVICES", "a live worker needs PostgreSQL (an in-memory SQLite test DB is not shared)"
        )
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_required,
        "CELERY_QUEUE": queue,
        "DEBUG": "1",
        "CONN_MAX_AGE": "0",
    }
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    current_app.conf.task_default_queue = queue
    current_app.conf.task_always_eager = False
    current_app.conf.broker_url = redis_required
    current_app.conf.result_backend = redis_required
    worker = Worker(env, queue)
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
        current_app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER


# ---- browser --------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        unavailable("REQUIRE_BROWSER", f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    # bypass_csp: Playwright evaluates string predicates (wait_for_function("…")) with eval, which the
    # app's Content-Security-Policy forbids; tests/browser/test_csp_pages.py uses `strict_page`.
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(10000)
    yield page
    context.close()


@pytest.fixture
def strict_page(chromium: Any) -> Iterator[Any]:
    """A page that keeps the app's Content-Security-Policy (no eval of test predicates in it)."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(10000)
    yield page
    context.close()


# ---- the task queue -------------------------------------------------------------------------------


class RecordingQueue:
    """Stands in for the broker at `annotator.taskqueue`'s public seam: records what is sent (no task
    runs), or refuses everything like an unreachable broker once `refuse_with` is set."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[Any, ...]]] = []
        self.countdowns: list[float | None] = []  # the countdown of each sent task, in order
        self.chords: list[tuple[str, tuple[Any, ...]]] = []  # each chord's callback and its args
        self.refuse_with: BaseException | None = None

    def enqueue(
        self, name: str, *args: Any, countdown: float | None = None, after_response: bool = False
    ) -> None:
        from annotator import taskqueue

        if self.refuse_with is not None:
            raise taskqueue.QueueUnavailable(name, self.refuse_with)
        self.sent.append((name, args))
        self.countdowns.append(countdown)

    def enqueue_chord(self, part: str, parts: list[tuple[Any, ...]], callback: str, *args: Any) -> None:
        """A chord: its parts are recorded as sent tasks, and the chord (callback and its args) apart."""
        from annotator import taskqueue

        if self.refuse_with is not None:
            raise taskqueue.QueueUnavailable(callback, self.refuse_with)
        for part_args in parts:
            self.sent.append((part, part_args))
            self.countdowns.append(None)
        self.chords.append((callback, args))

    def args_of(self, name: str) -> list[tuple[Any, ...]]:
        return [args for sent, args in self.sent if sent == name]


@pytest.fixture
def task_queue(monkeypatch: pytest.MonkeyPatch) -> RecordingQueue:
    """Worker mode (a broker is configured) with a recording broker in place of the real one."""
    from annotator import taskqueue

    queue = RecordingQueue()
    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: False)
    monkeypatch.setattr(taskqueue, "enqueue", queue.enqueue)
    monkeypatch.setattr(taskqueue, "enqueue_chord", queue.enqueue_chord)
    return queue
