"""The Celery application. Broker and backend come from REDIS_URL (settings); without it tasks run eagerly."""

import gc
import os
from typing import Any

import django
from celery import Celery, signals
from django.conf import settings

from annotator.core import health

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")

app = Celery("annotator")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["annotator"])


_heartbeat: health.Heartbeat | None = None


@signals.heartbeat_sent.connect
def _write_heartbeat(sender: Any, **_: object) -> None:
    """With Celery's own worker heartbeat (every 2 s, from the worker's event loop), write this worker's
    to Redis every few seconds (`annotator.core.health`), so /healthz, the compose health check and the
    dashboards know whether a worker is alive, without asking it."""
    global _heartbeat
    if not settings.REDIS_URL:
        return
    if _heartbeat is None:
        _heartbeat = health.Heartbeat(settings.REDIS_URL, settings.CELERY_TASK_DEFAULT_QUEUE)
    _heartbeat(sender.eventer.hostname)


@signals.worker_init.connect
def _preload(**_: object) -> None:
    """Import, once in the worker's main process before it forks its pool, what the tasks import on
    their first run (the agreement pipeline with numpy and the metrics library, the export modules):
    every pool process — and each fresh one that replaces a process
    grown past `worker_max_memory_per_child` — then shares those pages instead of loading its own copy.
    gc.freeze() keeps the collector from writing to (and so un-sharing) them, as gunicorn's pre_fork.
    NLTK (the importers' tokenizer) is left to the import job's process: it is replaced after a large
    import anyway, and preloaded it would cost every idle worker ~15 MiB."""
    django.setup()
    app.loader.import_default_modules()  # annotator.tasks and everything it imports, by autodiscovery
    gc.freeze()
