"""The app's own error pages and the 500 handler: a database that went away is a clean 503, never a
traceback.

`OwnErrorPages` shows the workbench's 404 page under DEBUG too (`make run`), where Django would show
its technical page listing every URL pattern (and breaking the Content-Security-Policy with inline
styles); `QuietRefusals` logs a refused request (403/404) as one line, without the traceback of the
`PermissionDenied` or `Http404` that made it: a refusal is the access layer working, not an error.

When PostgreSQL restarts (or the connection drops) a request fails with `OperationalError` /
`InterfaceError`; the user gets "try again in a moment" (JSON for the API, a plain page otherwise) with
`Retry-After`, and the next request after the database is back succeeds (Django reconnects,
`CONN_HEALTH_CHECKS` drops the dead connection). The page is built without templates or context
processors because those may need the very database that is down. Other errors use Django's 500 page.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

RETRY_AFTER_SECONDS = 5
MESSAGE = "The database is unavailable for a moment. Nothing you saved before is lost; please try again."
PAGE = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Try again in a moment</title>"
    "</head><body>"
    f"<h1>Try again in a moment</h1><p>{MESSAGE}</p></body></html>"
)


def database_unavailable(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
        response: HttpResponse = JsonResponse({"detail": MESSAGE}, status=503)
    else:
        response = HttpResponse(PAGE, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: 503 when the database connection failed, Django's plain 500 page otherwise."""
    exc = sys.exc_info()[1]
    if isinstance(exc, OperationalError | InterfaceError):
        return database_unavailable(request)
    return defaults.server_error(request)


# Django's technical 404 page (DEBUG only) says this; the app's own pages never do.
TECHNICAL_404 = b"DEBUG = True"


class OwnErrorPages:
    """Middleware: under DEBUG, replace Django's technical 404 page by the app's own (templates/404.html)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code == 404
            and not getattr(response, "streaming", False)
            and response.get("Content-Type", "").startswith("text/html")
            and TECHNICAL_404 in response.content
        ):
            return defaults.page_not_found(request, exception=None)
        return response


class QuietRefusals(logging.Filter):
    """Log filter: a 403 or 404 is logged as its one-line message, without the exception's traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) in (403, 404) and record.exc_info:
            record.exc_info = None
            record.exc_text = None
        return True
