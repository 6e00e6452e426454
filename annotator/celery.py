"""The Celery application. Broker and backend come from REDIS_URL (settings); without it tasks run eagerly."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")

app = Celery("annotator")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["annotator"])


@signals.worker_ready.connect
def _start_heartbeat(sender: object, **_: object) -> None:
    """Write this worker's heartbeat to Redis every few seconds (`annotator.home.health`), so /healthz,
    the compose health check and the dashboards know whether a worker is alive, without asking it."""
    from django.conf import settings

    from .home import health

    if settings.REDIS_URL:
        health.start_heartbeat(settings.REDIS_URL, settings.CELERY_TASK_DEFAULT_QUEUE, sender.hostname)
