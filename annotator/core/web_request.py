"""The request the app's views receive, typed: what the middleware in settings puts on it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class SignedInRequest(HttpRequest):
    """A request to a view behind `LoginRequiredMiddleware` (so `user` is signed in), with the
    `htmx` details `HtmxMiddleware` adds. Only a type: Django passes its own `HttpRequest`."""

    htmx: HtmxDetails
    user: User
