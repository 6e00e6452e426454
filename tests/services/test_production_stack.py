"""The production stack as deployed: the image's build steps and compose's services, run natively.

The `Dockerfile`'s RUN steps run in a copy of the repository (standing for the image's /app), then
docker-compose.yml's `migrate`, `web` and `worker` commands with compose's environment (DEBUG=0,
manifest static files) against PostgreSQL and Redis — all read from those two files by
`bench/production.py`, which substitutes only the hosts, the port, SECRET_KEY and a private queue.
Then, in Chromium: an annotator signs in and annotates a pair, the lead's dashboard updates from the
worker, the lead exports; the dashboard says "stale" when the worker stops and recovers when it starts.
docker-compose.yml itself is validated by Debian's docker-compose (`config` needs no engine).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench import production
from bench.stack import free_port, wait_for_port
from tests import make
from tests.conftest import ARTIFACTS, CHROMIUM, required, unavailable

pytestmark = [pytest.mark.services, pytest.mark.browser, pytest.mark.slow]

SERVICES = ("migrate", "web", "worker")


@dataclass
class Production:
    native: production.Native
    services: dict[str, production.Service]
    envs: dict[str, dict[str, str]]
    port: int
    logs: Path
    web: subprocess.Popen[bytes] | None = None
    worker: subprocess.Popen[bytes] | None = None

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self, name: str) -> subprocess.Popen[bytes]:
        svc = self.services[name]
        return subprocess.Popen(
            production.native_command(self.native, svc.command),
            cwd=self.native.app,
            env=self.envs[name],
            stdout=(self.logs / f"{name}.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def run(self, name: str, command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, cwd=self.native.app, env=self.envs[name], capture_output=True, text=True, timeout=300
        )

    def healthz(self) -> dict[str, Any]:
        try:
            with urllib.request.urlopen(self.url("/healthz"), timeout=5) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return json.loads(exc.read())


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def wait_until(predicate: Any, timeout: float, what: str, interval: float = 0.5) -> Any:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"not within {timeout:.0f}s: {what}")


def _postgres_admin_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        unavailable("REQUIRE_SERVICES", "needs PostgreSQL: set DATABASE_URL=postgres://…")
    return url


def _redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        unavailable("REQUIRE_SERVICES", "needs Redis: set REDIS_URL=redis://…")
    return url


def _fresh_database(admin_url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urllib.parse.urlsplit(admin_url)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


def _drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Production]:
    admin_url, redis_url = _postgres_admin_url(), _redis_url()
    if not Path(CHROMIUM).exists():
        unavailable("REQUIRE_BROWSER", f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)")
    root = tmp_path_factory.mktemp("production")
    logs = ARTIFACTS / "production-stack"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    native = production.build(root / "app", log=logs / "build.log")
    port, queue = free_port(), f"production-{secrets.token_hex(4)}"
    compose = production.read_compose({"SECRET_KEY": secrets.token_urlsafe(50), "CELERY_QUEUE": queue})
    services = {name: production.service(compose, name) for name in SERVICES}
    db_name = f"wb_production_{os.getpid()}_{secrets.token_hex(3)}"
    database_url = _fresh_database(admin_url, db_name)
    envs = {
        name: production.service_env(
            native,
            svc,
            database_url=database_url,
            redis_url=redis_url,
            queue=queue,
            bind=f"127.0.0.1:{port}",
        )
        for name, svc in services.items()
    }
    prod = Production(native, services, envs, port, logs)
    try:
        migrate = prod.run("migrate", production.native_command(native, services["migrate"].command))
        assert migrate.returncode == 0, migrate.stderr
        demo = prod.run("migrate", ["python", "manage.py", "load_demo", "--quiet-users"])
        assert demo.returncode == 0, demo.stderr
        prod.web = prod.start("web")
        wait_for_port(port, 60, proc=prod.web)
        prod.worker = prod.start("worker")
        yield prod
    finally:
        stop(prod.web)
        stop(prod.worker)
        _drop_database(admin_url, db_name)


def test_the_stack_runs_with_debug_off_and_the_files_own_commands(stack: Production) -> None:
    assert all(stack.envs[name]["DEBUG"] == "0" for name in SERVICES)
    assert (stack.native.app / "staticfiles" / "staticfiles.json").is_file()  # the build's collectstatic
    assert stack.services["web"].command[0] == "gunicorn" and "celery" in stack.services["worker"].command
    (stack.logs / "substitutions.txt").write_text("\n".join(stack.native.substitutions))


def test_healthz_and_compose_health_checks_see_the_worker(stack: Production) -> None:
    body = wait_until(
        lambda: (b := stack.healthz())["worker"]["state"] == "ok" and b, 60, "a worker heartbeat"
    )
    assert body["ok"] and body["database"] == "ok" and body["broker"] == "ok"
    for name in ("web", "worker"):
        test = stack.services[name].healthcheck
        assert test, f"docker-compose.yml: {name} has no healthcheck"
        kind, *args = test
        command = ["sh", "-c", args[0]] if kind == "CMD-SHELL" else args
        command = [a.replace("127.0.0.1:8000", f"127.0.0.1:{stack.port}") for a in command]
        env = {**stack.envs[name], "HOSTNAME": os.uname().nodename}  # a container's HOSTNAME is its host name
        result = subprocess.run(command, cwd=stack.native.app, env=env, capture_output=True, text=True)
        assert result.returncode == 0, f"{name} healthcheck {command}: {result.stdout}{result.stderr}"


def _login(page: Any, stack: Production, username: str) -> None:
    response = page.goto(stack.url("/accounts/login/"))
    assert response.status == 200, f"GET /accounts/login/ → {response.status}; see {stack.logs / 'web.log'}"
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", f"{username}-demo-pass")
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def _demo_pair(stack: Production) -> dict[str, int]:
    code = (
        "import json; from annotator.models import Pair; "
        "p = Pair.objects.filter(project__name='Demo: paraphrase types', "
        "assignments__annotator__username='anna').order_by('position').first(); "
        "print(json.dumps({'project': p.project_id, 'pair': p.pk}))"
    )
    result = stack.run("web", ["python", "manage.py", "shell", "-c", code])
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _snapshot_seen(page: Any) -> str:
    return json.loads(page.locator("#snapshot-status").get_attribute("hx-vals"))["seen"]


def test_sign_in_annotate_see_the_dashboard_update_and_export(stack: Production, chromium: Any) -> None:
    ids = _demo_pair(stack)
    lead = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
    annotator = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
    for page in (lead, annotator):
        page.set_default_timeout(20000)
    _login(lead, stack, "lena")
    lead.goto(stack.url(f"/projects/{ids['project']}/dashboard/"))
    wait_until(lambda: _snapshot_seen(lead), 60, "the demo's first snapshot on the dashboard")
    before = _snapshot_seen(lead)
    css = lead.evaluate("[...document.styleSheets].map(s => s.href).filter(Boolean)")
    assert css and all(".css" in href for href in css)
    assert any(len(Path(urllib.parse.urlsplit(h).path).suffixes) >= 2 for h in css)  # hashed names

    _login(annotator, stack, "anna")
    annotator.goto(stack.url(f"/projects/{ids['project']}/pairs/{ids['pair']}/"))
    label = (
        "non_paraphrase"
        if annotator.locator('#pair-label input[value="paraphrase"]').is_checked()
        else "paraphrase"
    )
    annotator.click(f'#pair-label label:has(input[value="{label}"])')
    annotator.wait_for_selector('#save-status.is-saved[data-pending="0"]')
    make.screenshot(annotator, "production-editor-saved")

    wait_until(
        lambda: _snapshot_seen(lead) != before, 60, "a snapshot from the worker on the lead's dashboard"
    )
    assert "stale" not in lead.locator("#snapshot-status").inner_text()
    make.screenshot(lead, "production-dashboard-updated")

    lead.goto(stack.url(f"/projects/{ids['project']}/corpus/"))
    lead.select_option("#export select[name=format]", "native")
    lead.click("#export button[type=submit]")
    lead.wait_for_selector("a.button:has-text('Download')", timeout=60000)
    with lead.expect_download() as download:
        lead.click("a.button:has-text('Download')")
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["workbench"] and "anna" in json.dumps(exported)
    make.screenshot(lead, "production-export")


def test_dashboard_says_stale_within_a_minute_of_the_worker_stopping_and_recovers(
    stack: Production, chromium: Any
) -> None:
    ids = _demo_pair(stack)
    lead = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
    _login(lead, stack, "lena")
    lead.goto(stack.url(f"/projects/{ids['project']}/dashboard/"))
    status = lead.locator("#snapshot-status")
    # A worker that has just started may not have answered yet ("stale: no worker has answered yet"):
    # the point here is what happens after it stops, so wait for its first answer.
    wait_until(lambda: "stale" not in status.inner_text().lower(), 60, "the worker's first answer")

    stop(stack.worker)
    stopped = time.time()
    wait_until(lambda: "stale" in status.inner_text().lower(), 60, "the dashboard saying stale")
    print(f"stale shown {time.time() - stopped:.0f} s after the worker stopped: {status.inner_text()!r}")
    assert "no worker has answered for" in status.inner_text()
    assert stack.healthz()["worker"]["state"] == "silent"
    make.screenshot(lead, "production-dashboard-stale")

    stack.worker = stack.start("worker")
    wait_until(lambda: "stale" not in status.inner_text().lower(), 60, "the dashboard recovering")
    assert stack.healthz()["worker"]["state"] == "ok"


def test_docker_compose_validates_the_file_and_resolves_the_same_services() -> None:
    """Debian's docker-compose parses the file (no engine needed) to what the check above runs."""
    if shutil.which("docker-compose") is None:
        reason = "docker-compose not installed (apt-get install -y docker-compose)"
        if required("REQUIRE_SERVICES"):
            pytest.fail(f"{reason} (required because REQUIRE_SERVICES=1)")
        pytest.skip(reason)
    environ = {"SECRET_KEY": "compose-config-check-key"}
    result = subprocess.run(
        ["docker-compose", "-f", str(production.REPO / "docker-compose.yml"), "config"],
        env={"PATH": os.environ.get("PATH", ""), **environ},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    import yaml

    # `config` prints a resolved file, so its literal dollars stay escaped ($$) for the next reader.
    resolved = production._interpolate_all(yaml.safe_load(result.stdout), {})
    ours = production.read_compose(environ)
    for name in SERVICES:
        theirs = production.service(resolved, name)
        mine = production.service(ours, name)
        assert (theirs.command, theirs.environment, theirs.healthcheck) == (
            mine.command,
            mine.environment,
            mine.healthcheck,
        ), name
