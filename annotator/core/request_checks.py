"""Checks every request passes before any view: a NUL character in the URL's path or query is refused
with 400 and a clear message (PostgreSQL cannot compare a text with NUL: a filter or a token with one
would otherwise reach the database and fail there)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

NUL_MESSAGE = "The address holds a NUL character (%00), which no path or parameter may contain."


def has_nul(request: HttpRequest) -> bool:
    if "\x00" in request.path:
        return True
    return any("\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists())


class NulBytesMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if has_nul(request):
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": NUL_MESSAGE}, status=400)
            return HttpResponseBadRequest(NUL_MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
