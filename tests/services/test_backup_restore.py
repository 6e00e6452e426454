"""`manage.py backup FILE` / `manage.py restore FILE`: a restore into an empty database gives every export
byte-identical and every agreement figure equal (SQLite and PostgreSQL); a backup taken while 8 clients
save restores with every save acknowledged before the backup started.

The commands run as an admin runs them, in processes of their own against the configured databases.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.bench_load import Annotator
from bench.stack import REPO, Stack, available, free_port, seed
from tests.conftest import unavailable

pytestmark = [pytest.mark.services, pytest.mark.slow]

EXPORTS = [
    ("native", []),
    ("native", ["--history"]),
    ("etpc", ["--annotator", "anna"]),
    ("csv", []),
    ("pharaoh", ["--annotator", "ben"]),
    ("report", []),
]
SNAPSHOTS = (
    "from annotator.models import AgreementSnapshot; "
    "print(json.dumps([[s.project.name, s.scope, s.fingerprint, s.results] "
    "for s in AgreementSnapshot.objects.order_by('id')], sort_keys=True))"
)


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"manage.py {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def app_env(database_url: str, var_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST_", "REDIS_URL"))}
    return {
        **env,
        "DATABASE_URL": database_url,
        "VAR_DIR": str(var_dir),
        "DEBUG": "1",
        "LOG_LEVEL": "WARNING",
    }


def exports(env: dict[str, str], out: Path) -> dict[str, bytes]:
    """Every export of both demo projects, written by `export_corpus` with the options an admin gives
    it, all in one process of their own (a Django start-up per export would be 12 of them)."""
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    for project in ("Demo: paraphrase types", "Demo: substitution evaluation"):
        for n, (fmt, extra) in enumerate(EXPORTS):
            path = out / f"{project[:10]}-{n}-{fmt}.out"
            runs.append(["--format", fmt, "--project", project, "--output", str(path), *extra])
    manage(
        env,
        "shell",
        "-c",
        "from django.core.management import call_command\n"
        f"for args in {runs!r}:\n"
        "    call_command('export_corpus', *args)",
    )
    return {Path(args[5]).name: Path(args[5]).read_bytes() for args in runs}


def snapshots(env: dict[str, str]) -> Any:
    return json.loads(manage(env, "shell", "-c", "import json; " + SNAPSHOTS).strip().splitlines()[-1])


def media_files(var_dir: Path) -> dict[str, bytes]:
    media = var_dir / "media"
    return {str(p.relative_to(media)): p.read_bytes() for p in media.rglob("*") if p.is_file()}


def round_trip(source: dict[str, str], target: dict[str, str], tmp: Path) -> None:
    manage(source, "migrate", "--noinput", "-v", "0")
    manage(source, "load_demo", "--quiet-users")
    # a media file (an import job's upload) that must come back too
    manage(
        source,
        "shell",
        "-c",
        "from django.conf import settings; from pathlib import Path; "
        "p = Path(settings.MEDIA_ROOT) / 'corpus_jobs' / '1'; p.mkdir(parents=True, exist_ok=True); "
        "(p / '00-upload.txt').write_bytes(bytes(range(256)))",
    )
    before, figures = exports(source, tmp / "before"), snapshots(source)
    archive = tmp / "workbench.tar"
    manage(source, "backup", str(archive))
    manage(target, "restore", str(archive))
    after = exports(target, tmp / "after")
    assert after.keys() == before.keys()
    assert [name for name in before if before[name] != after[name]] == []  # byte-identical
    assert snapshots(target) == figures and figures  # every agreement figure equal
    assert media_files(Path(target["VAR_DIR"])) == media_files(Path(source["VAR_DIR"]))
    # the restored database is complete: nothing left to migrate
    assert "No planned migration operations" in manage(target, "migrate", "--plan")


def test_sqlite_backup_restores_every_export_and_figure(tmp_path: Path) -> None:
    source = app_env(f"sqlite:///{tmp_path / 'source.sqlite3'}", tmp_path / "source-var")
    target = app_env(f"sqlite:///{tmp_path / 'restored.sqlite3'}", tmp_path / "restored-var")
    round_trip(source, target, tmp_path)


def test_restore_refuses_a_database_that_is_not_empty(tmp_path: Path) -> None:
    env = app_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path / "var")
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "backup", str(tmp_path / "b.tar"))
    result = subprocess.run(
        [sys.executable, "manage.py", "restore", str(tmp_path / "b.tar")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "the database is not empty" in result.stderr


@pytest.fixture
def postgres_urls() -> Iterator[tuple[str, str]]:
    admin = os.environ.get("DATABASE_URL", "")
    if not admin.startswith(("postgres://", "postgresql://")):
        unavailable("REQUIRE_SERVICES", "needs PostgreSQL: set DATABASE_URL=postgres://…")
    import psycopg

    names = [f"wb_backup_{os.getpid()}_{secrets.token_hex(3)}_{n}" for n in (1, 2)]
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in names:
            conn.execute(f'CREATE DATABASE "{name}"')
    parts = urllib.parse.urlsplit(admin)
    try:
        yield tuple(urllib.parse.urlunsplit(parts._replace(path=f"/{n}")) for n in names)  # type: ignore[misc]
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_postgres_backup_restores_every_export_and_figure(
    tmp_path: Path, postgres_urls: tuple[str, str]
) -> None:
    source = app_env(postgres_urls[0], tmp_path / "source-var")
    target = app_env(postgres_urls[1], tmp_path / "restored-var")
    round_trip(source, target, tmp_path)


class RecordingAnnotator(Annotator):
    """bench_load's annotator that also records when each save was acknowledged and its sheet version."""

    acked: list[tuple[float, str, int, int]]

    def save(self) -> tuple[float, str | None]:
        before = dict(self.versions)
        elapsed, error = super().save()
        if error is None:
            for pair in [p for p, v in self.versions.items() if before.get(p) != v]:
                self.acked.append((time.time(), self.token, pair, self.versions[pair]))
        return elapsed, error


def test_backup_during_an_8_client_save_load_restores_every_acknowledged_save(tmp_path: Path) -> None:
    reason = available()
    if reason:
        unavailable("REQUIRE_SERVICES", f"private stack cannot start: {reason}")
    stack = Stack(pg_port=free_port(), redis_port=free_port(), web_port=free_port())
    try:
        stack.start_services("live")
        world = seed(stack, n_annotators=8, n_pairs=12)
        stack.start_web()
        acked: list[tuple[float, str, int, int]] = []
        stop = threading.Event()

        def client(k: int) -> None:
            annotator = RecordingAnnotator(stack.web_port, world["annotators"][k], world, random.Random(k))
            annotator.acked = acked
            while not stop.is_set():
                annotator.save()
            annotator.close()

        threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(8)]
        for thread in threads:
            thread.start()
        # The backup starts once the load has visibly run (a hundred acknowledged saves), however
        # busy the machine is; a minute without them is a failure of the stack, not of the backup.
        deadline = time.time() + 60
        while len(acked) <= 100 and time.time() < deadline:
            time.sleep(0.1)
        started = time.time()
        archive = tmp_path / "live.tar"
        manage(stack.env, "backup", str(archive))
        time.sleep(1)
        stop.set()
        for thread in threads:
            thread.join(30)
        before_backup = [a for a in acked if a[0] < started]
        assert len(before_backup) > 100, "the load did not run"

        restored_url = stack.postgres.createdb("restored")
        restored = {**stack.env, "DATABASE_URL": restored_url, "VAR_DIR": str(tmp_path / "restored-var")}
        manage(restored, "restore", str(archive))
        code = (
            "from annotator.models import PairLabel; from rest_framework.authtoken.models import Token; "
            "keys = dict(Token.objects.values_list('user_id', 'key')); "
            "print(json.dumps([[keys.get(a), p, v] for a, p, v in "
            "PairLabel.objects.filter(is_gold=False).values_list('annotator_id', 'pair_id', 'version')]))"
        )
        stack_env, stack.env = stack.env, restored
        rows = stack.python(code)
        stack.env = stack_env
        versions = {(token, pair): version for token, pair, version in rows}
        lost = [
            (token[:6], pair, version)
            for _, token, pair, version in before_backup
            if versions.get((token, pair), 0) < version
        ]
        assert lost == [], f"{len(lost)} acknowledged saves missing from the restored database"
        final = {(t, p): v for _, t, p, v in acked}
        assert all(versions.get(key, 0) <= v for key, v in final.items())  # nothing from after the end
        print(f"{len(acked)} saves, {len(before_backup)} before the backup started; all restored")
    finally:
        stack.stop()
        stack.cleanup()
