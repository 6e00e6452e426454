"""Settings come from the environment and fail loudly on bad values."""

import os
import subprocess
import sys

from tests.conftest import REPO


def load_settings(**env: str) -> subprocess.CompletedProcess:
    code = "import django; django.setup(); from django.conf import settings; print(settings.DATABASES['default']['ENGINE'], settings.CELERY_TASK_ALWAYS_EAGER, settings.DEBUG)"
    base = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}
    }
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**base, "DJANGO_SETTINGS_MODULE": "annotator.settings", **env},
        timeout=60,
    )


def test_default_is_embedded_sqlite_with_in_process_tasks():
    result = load_settings()
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.sqlite3", "True", "True"]


def test_postgres_and_redis_from_urls():
    result = load_settings(DATABASE_URL="postgres://u@db:5432/x", REDIS_URL="redis://r:6379/0")
    assert result.stdout.split() == ["django.db.backends.postgresql", "False", "True"]


def test_secret_key_required_when_debug_off():
    result = load_settings(DEBUG="0")
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


def test_bad_boolean_and_bad_database_url_say_what_is_wrong():
    assert "DEBUG='maybe'" in load_settings(DEBUG="maybe").stderr
    assert "expected postgres://" in load_settings(DATABASE_URL="mysql://x/y").stderr


def test_production_settings_pass_check_deploy():
    # DJANGO_ALLOW_ASYNC_UNSAFE is set by the browser fixtures of this test process; production never has it.
    unwanted = {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {k: v for k, v in os.environ.items() if k not in unwanted}
    env.update(
        DEBUG="0", SECRET_KEY="x" * 20 + "production-secret-0123456789abcdefghij", ALLOWED_HOSTS="example.org"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
