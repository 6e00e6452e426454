"""URLs of the dashboard area (included by annotator.app_urls, namespace `annotator`)."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
