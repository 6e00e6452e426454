"""Root URLconf: authentication, admin, the REST API and the app's pages (namespace `annotator`)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(template_name="core/login.html"), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include("annotator.api_urls")),
    path("", include("annotator.app_urls")),
]

# A lost database connection is a clean 503 with Retry-After (annotator.errors), not a traceback.
handler500 = "annotator.errors.server_error"
