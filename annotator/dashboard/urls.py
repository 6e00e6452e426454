"""URLs of the dashboard area (included by annotator.urls, namespace `annotator`)."""

from django.urls import path

from annotator.dashboard.measure_docs import measure_explanation
from annotator.dashboard.views import dashboard_view, intervals_view, pin_view, statistics_view

urlpatterns = [
    path("projects/<int:project_pk>/dashboard/", dashboard_view, name="dashboard"),
    path("projects/<int:project_pk>/dashboard/statistics/", statistics_view, name="dashboard-statistics"),
    path("projects/<int:project_pk>/dashboard/pins/", pin_view, name="dashboard-pin"),
    path("projects/<int:project_pk>/dashboard/intervals/", intervals_view, name="dashboard-intervals"),
    path("measures/<slug:anchor>/", measure_explanation, name="measure-explanation"),
]
