"""URLs of the dashboard area (included by annotator.app_urls, namespace `annotator`)."""

from django.urls import path

from .dashboard import dashboard_view

urlpatterns = [
    path("projects/<int:project_pk>/dashboard/", dashboard_view, name="dashboard"),
]
