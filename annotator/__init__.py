"""The workbench's Django project, annotation app and Celery tasks."""

from annotator.celery import app as celery_app

__all__ = ("celery_app",)
