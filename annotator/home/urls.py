"""URLs of the home area: the home page, a project's page and the health check."""

from django.urls import path

from annotator.home import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("projects/<int:project_pk>/", views.project_detail, name="project-detail"),
]
