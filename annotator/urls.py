"""Root URLconf: authentication, admin, the REST API and each area's pages (namespace `annotator`).

Each area keeps its own URL module; together they form the app's namespace, so URL names stay
`annotator:<name>` whatever area a page belongs to.
"""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from annotator.accounts import forms as account_forms

AREAS = ("home", "accounts", "projects", "annotation", "evaluation", "dashboard", "corpus", "leadtools")

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(template_name="accounts/login.html"), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Password change (signed in) and reset by e-mail (EMAIL_BACKEND; the console by default)
    path(
        "accounts/password_change/",
        auth_views.PasswordChangeView.as_view(
            form_class=account_forms.PasswordChangeForm,
            template_name="accounts/password_form.html",
            extra_context={"heading": "Change your password"},
        ),
        name="password_change",
    ),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html"),
        name="password_change_done",
    ),
    path(
        "accounts/password_reset/",
        auth_views.PasswordResetView.as_view(
            form_class=account_forms.PasswordResetForm,
            template_name="accounts/password_form.html",
            extra_context={"heading": "Reset your password"},
            email_template_name="accounts/password_reset_email.txt",
            subject_template_name="accounts/password_reset_subject.txt",
        ),
        name="password_reset",
    ),
    path(
        "accounts/password_reset/done/",
        auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html"),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/password_form.html", extra_context={"heading": "Choose a new password"}
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_reset_complete.html"),
        name="password_reset_complete",
    ),
    path("admin/", admin.site.urls),
    path("api/", include("annotator.api.urls")),
    path("", include(([path("", include(f"annotator.{area}.urls")) for area in AREAS], "annotator"))),
]

# A lost database connection is a clean 503 with Retry-After (annotator.home.errors), not a traceback.
handler500 = "annotator.home.errors.server_error"
