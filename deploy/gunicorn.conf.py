"""gunicorn settings for the web process (docker-compose `web` and `make web`)."""

import multiprocessing
import os

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_WORKERS", max(2, multiprocessing.cpu_count())))
threads = int(os.environ.get("WEB_THREADS", "4"))
worker_class = "gthread"
timeout = 60
graceful_timeout = 20
max_requests = 5000
max_requests_jitter = 500
accesslog = os.environ.get("ACCESS_LOG", "-") or None
preload_app = True
