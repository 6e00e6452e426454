"""The project's 500 handler: a database that went away is a clean 503, never a traceback.

When PostgreSQL restarts (or the connection drops) a request fails with `OperationalError` /
`InterfaceError`; the user gets "try again in a moment" (JSON for the API, a plain page otherwise) with
`Retry-After`, and the next request after the database is back succeeds (Django reconnects,
`CONN_HEALTH_CHECKS` drops the dead connection). The page is built without templates or context
processors because those may need the very database that is down. Other errors use Django's 500 page.
"""

from __future__ import annotations

import sys

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
