"""Login is required everywhere except the login page, static files, the health check and the API
(which answers 401/403 itself through DRF's authentication)."""

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

# /invitations/: a one-time link opens a sign-up form for people without an account yet.
OPEN_PREFIXES = ("/accounts/login/", "/static/", "/healthz", "/api/", "/invitations/")


class LoginRequiredEverywhere:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(OPEN_PREFIXES) and not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)
