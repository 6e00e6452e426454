"""gunicorn settings for the web process (docker-compose `web` and `make web`)."""

import gc
import multiprocessing
import os

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_WORKERS", max(2, multiprocessing.cpu_count())))
threads = int(os.environ.get("WEB_THREADS", "4"))
worker_class = "gthread"
timeout = 60
graceful_timeout = 20
# Recycle a worker after this many requests (a guard against slow leaks). At hundreds of saves per
# second a low value restarts workers every minute, and each restart briefly runs an extra process.
max_requests = int(os.environ.get("WEB_MAX_REQUESTS", "100000"))
max_requests_jitter = max_requests // 10
accesslog = os.environ.get("ACCESS_LOG", "-") or None
preload_app = True


def pre_fork(server, worker):  # noqa: ANN001 — gunicorn's server hook signature
    """Load, once in the master, what Django otherwise loads on each worker's first request: the URLconf
    (every view module and what they import: numpy, scipy, the metrics library …) and the agreement
    pipeline. Forked workers then share those pages instead of each importing them (seconds of CPU and
    ~140 MiB per worker)."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 — imports the URLconf and its views
    import annotator.agreement.computation  # noqa: F401

    # Keep the garbage collector from touching (and so un-sharing) everything loaded so far.
    gc.freeze()
