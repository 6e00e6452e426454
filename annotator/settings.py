"""One settings module; every deployment value comes from the environment.

DATABASE_URL   postgres://user@host:5432/db or sqlite:///path  (default: SQLite file var/db.sqlite3)
REDIS_URL      redis://host:6379/0  — Celery broker/result backend and cache; absent → tasks run in-process
SECRET_KEY     required when DEBUG is off
DEBUG          1/0 (default 1 for the embedded quick start, 0 when REDIS_URL/DATABASE_URL point at services
               is NOT assumed: set it explicitly in production)
ALLOWED_HOSTS  comma-separated
AGREEMENT_REPORT_INTERVAL_SECONDS  at most one full agreement report per this many seconds while changes
               stream in (default 60; every computation still updates the current agreement and the trend)
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean environment variable; anything but the usual spellings fails loudly."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected 1/0, true/false, yes/no or on/off")


def env_int(name: str, default: int) -> int:
    """Read a whole-number environment variable; anything else fails loudly, naming the variable."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a whole number") from None


def env_float(name: str, default: float) -> float:
    """Read a numeric environment variable; anything else fails loudly, naming the variable."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a number") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if not raw:
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set in the environment when DEBUG is off")
    SECRET_KEY = "insecure-development-key-only-for-DEBUG-mode-" + "x" * 20

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "annotator",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "annotator.core.headers.SecurityHeadersMiddleware",  # Content-Security-Policy, Permissions-Policy
    "annotator.core.request_checks.NulBytesMiddleware",  # 400 for a NUL in the path or query
    "annotator.home.errors.OwnErrorPages",  # the app's 404 page under DEBUG too (inside the headers)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked sign-in into its response
]

ROOT_URLCONF = "annotator.urls"
WSGI_APPLICATION = "annotator.wsgi.application"
ASGI_APPLICATION = "annotator.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "annotator.home.context_processors.roles",
            ],
            "builtins": ["django_htmx.templatetags.django_htmx"],
        },
    }
]

VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
if not DATABASE_URL.startswith(("postgres://", "postgresql://", "sqlite://")):
    raise ImproperlyConfigured(f"DATABASE_URL={DATABASE_URL!r}: expected postgres://… or sqlite:///path")
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("CONN_MAX_AGE", 60))}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
else:
    DATABASES["default"].setdefault("OPTIONS", {})
    # Server-side parameter binding lets psycopg prepare the statements a connection runs again and
    # again (after DB_PREPARE_THRESHOLD runs; psycopg's default 5): PostgreSQL then skips parsing and
    # planning them — about a third of its CPU per annotation save. DB_SERVER_SIDE_BINDING=0 turns it
    # off (e.g. behind a pooler in transaction mode, which cannot keep prepared statements).
    if env_bool("DB_SERVER_SIDE_BINDING", True):
        DATABASES["default"]["OPTIONS"]["server_side_binding"] = True
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = int(
            os.environ.get("DB_PREPARE_THRESHOLD", "5")
        )
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery: with REDIS_URL the broker and result backend; without it tasks run in-process (eager).
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task whose worker died unacknowledged is redelivered after the visibility timeout (seconds); workers
# look for such tasks every CELERY_UNACKED_RESTORE_INTERVAL seconds (kombu's default is ~100 s).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 300),
    "unacked_restore_interval": env_int("CELERY_UNACKED_RESTORE_INTERVAL", 10),
    "unacked_restore_throttle": 1,
    "socket_connect_timeout": 2,
    "max_retries": 1,
    # a worker takes from its queues in the order they are listed (below): the default queue first
    "queue_order_strategy": "priority",
}
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "workbench")
# κ_C's Monte Carlo parts (minutes of CPU at corpus scale, sent as one Celery chord) wait in a queue of
# their own, which every worker consumes after the default one: a recompute, an import or an export sent
# while parts are queued is taken next, not after them (`celery worker -Q <queue>,<queue>.kappa_c`).
CELERY_KAPPA_C_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.kappa_c"
# The disagreement explorer's refresh (about 3 minutes at 1,000,000 pairs) waits in a queue that the
# workers of imports, exports and recomputes do not take (docker-compose's `worker` consumes
# `<queue>,<queue>.kappa_c`); its own worker (`explorer-worker`: `<queue>.explorer,<queue>.kappa_c`)
# takes it, so an import or export never waits behind a refresh. A worker started without -Q
# (`make worker`) takes every queue.
CELERY_EXPLORER_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.explorer"
CELERY_TASK_QUEUES = (
    Queue(CELERY_TASK_DEFAULT_QUEUE, routing_key=CELERY_TASK_DEFAULT_QUEUE),
    Queue(CELERY_EXPLORER_QUEUE, routing_key=CELERY_EXPLORER_QUEUE),
    Queue(CELERY_KAPPA_C_QUEUE, routing_key=CELERY_KAPPA_C_QUEUE),
)
# The confidence intervals of the figures and the corpus statistics (seconds of CPU per stored report)
# wait with κ_C's parts.
CELERY_TASK_ROUTES = {
    "annotator.compute_kappa_c_part": {"queue": CELERY_KAPPA_C_QUEUE},
    "annotator.compute_agreement_intervals": {"queue": CELERY_KAPPA_C_QUEUE},
    "annotator.compute_statistics": {"queue": CELERY_KAPPA_C_QUEUE},
    "annotator.refresh_explorer": {"queue": CELERY_EXPLORER_QUEUE},
}
# A pool process whose resident memory passed this after a task is replaced by a fresh one (KiB): an
# import or export of a whole corpus grows its process by ~60 MiB that Python's allocator keeps
# otherwise. A fresh pool process has ~110 MiB resident, nearly all shared with the worker's main
# process (annotator.celery preloads the tasks' modules); nothing is kept between tasks, so a replaced
# process costs a fork (an agreement computation at 3,900 pairs × 53 annotators takes ~300 MiB).
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env_int("WORKER_MAX_MEMORY_PER_CHILD_MB", 160) * 1024
# κ_C's Monte Carlo of more than AGREEMENT_KAPPA_C_DEFER_WORK items × samples leaves κ_C pending and is
# computed by the workers in parts of at most AGREEMENT_KAPPA_C_CHUNK_DRAWS uniform draws, one Celery
# chord (annotator.agreement.kappa_c_chunks; without a broker the parts run in the recompute).
AGREEMENT_KAPPA_C_DEFER_WORK = env_int("AGREEMENT_KAPPA_C_DEFER_WORK", 20_000)
AGREEMENT_KAPPA_C_CHUNK_DRAWS = env_int("AGREEMENT_KAPPA_C_CHUNK_DRAWS", 25_000_000)
# Every agreement computation rewrites the current agreement in place and leaves a small headline row; a
# full report (AgreementSnapshot) is stored after a full computation, when κ_C becomes final, and
# otherwise at most once per AGREEMENT_REPORT_INTERVAL_SECONDS while changes stream in
# (annotator.agreement.computation.report_due); the confidence intervals' task is sent at most once per
# project and such window (annotator.agreement.intervals).
AGREEMENT_REPORT_INTERVAL_SECONDS = env_float("AGREEMENT_REPORT_INTERVAL_SECONDS", 60.0)
# Retention of the full reports (annotator.agreement.retention): every report of the last
# AGREEMENT_RETENTION_ALL_SECONDS, then the newest of each UTC hour for AGREEMENT_RETENTION_HOURLY_DAYS,
# then the newest of each UTC day; the latest and pinned ones always.
AGREEMENT_RETENTION_ALL_SECONDS = env_float("AGREEMENT_RETENTION_ALL_SECONDS", 3600.0)
AGREEMENT_RETENTION_HOURLY_DAYS = env_float("AGREEMENT_RETENTION_HOURLY_DAYS", 7.0)
# Agreement figures that miss changes for longer than this are called stale although a worker answers
# (annotator.core.health.figures_freshness).
AGREEMENT_LAG_SECONDS = env_float("AGREEMENT_LAG_SECONDS", 60.0)
# Periodic tasks (`make beat` / `celery -A annotator beat`, one scheduler): the reports' retention every
# ten minutes, the agreement's catch-up (annotator.agreement.scheduling.catch_up: recomputes the broker
# refused, or lost) every 15 s, and the confidence intervals' tasks that are due
# (annotator.agreement.intervals) every 2 s.
CELERY_BEAT_SCHEDULE = {
    "agreement-retention": {"task": "annotator.apply_agreement_retention", "schedule": 600.0},
    "agreement-catch-up": {"task": "annotator.catch_up_agreement", "schedule": 15.0},
    "agreement-intervals": {"task": "annotator.send_due_agreement_intervals", "schedule": 2.0},
    "job-files-retention": {"task": "annotator.clean_up_job_files", "schedule": 3600.0},
}
CELERY_RESULT_EXPIRES = 3600

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
]
# Sign-in throttling (django-axes, database handler): after SIGN_IN_FAILURE_LIMIT wrong passwords for a
# username from one client address, that username is locked for that address for SIGN_IN_LOCKOUT_MINUTES,
# on the login page and the token endpoint alike (the owner signing in from elsewhere is not locked out;
# docs/security.md gives the trade-off); admins see locks and lift them at /security/. Every sign-in and
# failed attempt is logged. The client address is SIGN_IN_CLIENT_IP_META (REMOTE_ADDR: forwarded headers,
# which a client can write, are not believed; behind a proxy that sets it, e.g. HTTP_X_REAL_IP).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("SIGN_IN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SIGN_IN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["ip_address", "username"]]
AXES_IPWARE_META_PRECEDENCE_ORDER = (os.environ.get("SIGN_IN_CLIENT_IP_META", "REMOTE_ADDR"),)
AXES_RESET_ON_SUCCESS = True
AXES_ENABLE_ACCESS_FAILURE_LOG = True
AXES_LOCKOUT_CALLABLE = "annotator.accounts.views.locked_out"
# Password reset mails: at most this many an hour per address and per client IP (more are not sent).
PASSWORD_RESET_MAILS_PER_HOUR = env_int("PASSWORD_RESET_MAILS_PER_HOUR", 3)
# The page of measure explanations the dashboard shows ("?" beside each measure).
MEASURES_DOC = BASE_DIR / "docs" / "measures.md"
# Uploads: per-user limits on imports, and how long a failed import's files are kept (then removed by
# the hourly beat task `annotator.clean_up_job_files`, or `manage.py clean_up_uploads` without a broker;
# the files of other jobs are removed when they end).
UPLOADS_PER_HOUR = env_int("UPLOADS_PER_HOUR", 30)
UPLOAD_MB_PER_HOUR = env_int("UPLOAD_MB_PER_HOUR", 1000)
FAILED_UPLOAD_KEEP_DAYS = env_float("FAILED_UPLOAD_KEEP_DAYS", 7.0)
# The files of one import together (MB), checked before they are stored.
UPLOAD_MAX_MB = env_int("UPLOAD_MAX_MB", 200)
# An import still queued or running after UPLOAD_KEEP_DAYS never ends: `clean_up_uploads` fails it and
# removes its files.
UPLOAD_KEEP_DAYS = env_float("UPLOAD_KEEP_DAYS", 2.0)
# Exports: an export file larger than EXPORT_MAX_MB fails its job (the partial file is removed); a
# finished export's file is removed EXPORT_KEEP_DAYS after it was written (`clean_up_uploads`).
EXPORT_MAX_MB = env_int("EXPORT_MAX_MB", 1024)
EXPORT_KEEP_DAYS = env_float("EXPORT_KEEP_DAYS", 7.0)

# API tokens: revocable by their owner at /account/; API_TOKEN_TTL_DAYS > 0 makes them expire.
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 0)
# Password reset mails: the console unless EMAIL_BACKEND (and Django's EMAIL_* settings) say otherwise.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "workbench@localhost")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "annotator:home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "annotator.core.static_storage.ModuleAwareStaticFilesStorage"
    },
}
MEDIA_ROOT = VAR_DIR / "media"
# A request body other than files (a JSON body, a form) larger than this is refused before it is read.
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "annotator.api.auth.ExpiringTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "annotator.api.renderers.ComputedListBrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "annotator.api.parsers.LimitedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Paraphrase Annotation Workbench API",
    "DESCRIPTION": "Projects, pairs, phenomena, alignments, evaluation judgements and agreement snapshots.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema maps every endpoint and parameter: signed-in users only.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Swagger UI and Redoc from drf-spectacular-sidecar's static files: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "ProjectPhaseEnum": "annotator.models.corpus.Project.Phase",
        "JudgementPhaseEnum": "annotator.models.evaluation.Judgement.Phase",
        "AssignmentStepEnum": "annotator.models.work.Assignment.Step",
        "JudgementStepEnum": "annotator.models.evaluation.Judgement.Step",
        "JobStatusEnum": "annotator.models.jobs.CorpusJob.Status",
    },
}

# Production safety: everything below only bites when DEBUG is off.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# axes.W006 warns that a lockout without the IP address can be bypassed by rotating user agents or
# cookies; ours locks the username itself, which neither bypasses (and a lab behind one address is not
# locked out by one colleague's typos).
SILENCED_SYSTEM_CHECKS: list[str] = ["axes.W006"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"quiet_refusals": {"()": "annotator.home.errors.QuietRefusals"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["quiet_refusals"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {"annotator": {"level": os.environ.get("LOG_LEVEL", "INFO")}},
}
