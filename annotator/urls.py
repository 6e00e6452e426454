"""Root URLconf: authentication, admin, the REST API and each area's pages (namespace `annotator`).

Each area keeps its own URL module; together they form the app's namespace, so URL names stay
`annotator:<name>` whatever area a page belongs to.
"""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

AREAS = ("home", "annotation", "evaluation", "dashboard", "corpus", "leadtools")

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(template_name="core/login.html"), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include("annotator.api.urls")),
    path("", include(([path("", include(f"annotator.{area}.urls")) for area in AREAS], "annotator"))),
]

# A lost database connection is a clean 503 with Retry-After (annotator.home.errors), not a traceback.
handler500 = "annotator.home.errors.server_error"
