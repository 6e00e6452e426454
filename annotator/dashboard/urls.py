"""URLs of the dashboard area (included by annotator.urls, namespace `annotator`)."""

from django.urls import path

from annotator.dashboard.views import dashboard_view

urlpatterns = [
    path("projects/<int:project_pk>/dashboard/", dashboard_view, name="dashboard"),
]
