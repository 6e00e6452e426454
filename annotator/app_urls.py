"""The app's pages. Each area keeps its own URL module so the areas can grow independently."""

from django.urls import include, path

from .views import core, measure_docs

app_name = "annotator"

urlpatterns = [
    path("", core.home, name="home"),
    path("healthz", core.healthz, name="healthz"),
    path("projects/<int:project_pk>/", core.project_detail, name="project-detail"),
    path("", include("annotator.views.editor_urls")),
    path("", include("annotator.views.evaluation_urls")),
    path("", include("annotator.views.dashboard_urls")),
    path("", include("annotator.views.corpus_urls")),
    path("", include("annotator.views.leadtools_urls")),
    path("", include("annotator.projects.urls")),
    path("measures/<slug:anchor>/", measure_docs.measure_explanation, name="measure-explanation"),
]
