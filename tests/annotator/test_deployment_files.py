"""docker-compose.yml describes the production-shaped stack; its commands exist in the project."""

import importlib
import re
import shutil
from pathlib import Path

import yaml

from tests.conftest import REPO

VENV_BIN = Path(REPO / ".venv" / "bin")


def compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_compose_has_the_four_services_with_health_checks():
    services = compose()["services"]
    for name in ("postgres", "redis", "web", "worker"):
        assert name in services, name
        assert "healthcheck" in services[name], f"{name} has no health check"
    assert "pgdata:/var/lib/postgresql/data" in services["postgres"]["volumes"]


def test_worker_can_scale_no_fixed_name_or_port():
    worker = compose()["services"]["worker"]
    assert "container_name" not in worker and "ports" not in worker


def test_compose_commands_exist_in_the_project():
    services = compose()["services"]
    web = services["web"]["command"]
    assert web[:2] == ["gunicorn", "annotator.wsgi"]
    assert (REPO / web[web.index("-c") + 1]).is_file()
    importlib.import_module("annotator.wsgi")
    worker = services["worker"]["command"]
    assert worker[:3] == ["nice", "-n", "10"] and shutil.which("nice")  # recomputes yield to the web
    assert services["worker"]["cpu_shares"] < services["web"].get("cpu_shares", 1024)
    assert worker[3:6] == ["celery", "-A", "annotator"]
    importlib.import_module("annotator.celery")
    for tool in ("gunicorn", "celery"):
        assert (VENV_BIN / tool).exists() or shutil.which(tool), tool
    assert (REPO / "Dockerfile").is_file()


def test_app_environment_points_at_the_compose_services():
    env = compose()["x-app-env"]
    assert "@postgres:5432/" in env["DATABASE_URL"] and env["REDIS_URL"].startswith("redis://redis:")
    assert env["DEBUG"] == "0"


def test_native_alternative_exists_as_make_targets():
    makefile = (REPO / "Makefile").read_text()
    for target in ("run", "test", "bench", "worker", "web", "services-up", "lint"):
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), target
    assert (REPO / "deploy" / "services.sh").is_file()


def _queues(command: list[str]) -> list[str]:
    return command[command.index("-Q") + 1].split(",")


def test_the_explorer_refresh_waits_in_a_queue_the_import_and_export_worker_does_not_take(settings):
    from bench import production

    compose = production.read_compose({"SECRET_KEY": "k" * 50, "CELERY_QUEUE": "q"})
    services = compose["services"]
    assert compose["x-app-env"]["CELERY_QUEUE"] == "q"  # the app's queue and the workers' -Q agree
    default, explorer = settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_EXPLORER_QUEUE
    routes = settings.CELERY_TASK_ROUTES
    assert routes["annotator.refresh_explorer"] == {"queue": explorer} and explorer == f"{default}.explorer"
    for task in ("run_import_job", "run_export_job", "run_lexicon_job", "recompute_agreement"):
        assert f"annotator.{task}" not in routes  # the default queue
    assert _queues(services["worker"]["command"]) == ["q", "q.kappa_c"]
    assert _queues(services["explorer-worker"]["command"]) == ["q.explorer", "q.kappa_c"]
    assert "healthcheck" in services["explorer-worker"]
