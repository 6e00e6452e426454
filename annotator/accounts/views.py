"""The user's own account (API token, password) and the admins' sign-in security page."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotator import access
from annotator.accounts import services


@require_GET
def account(request: HttpRequest) -> HttpResponse:
    """The signed-in user's account: their API token (with its age and expiry) and password change."""
    token = services.api_token(request.user)
    context = {
        "new_token": request.session.pop("new_token", None),  # shown once, on the page after it was made
        "token": token,
        "expires_at": services.token_expires_at(token) if token else None,
        "expired": services.token_expired(token) if token else False,
        "lifetime": services.token_lifetime(),
    }
    return render(request, "accounts/account.html", context)


@require_POST
def token_issue(request: HttpRequest) -> HttpResponse:
    token = services.issue_token(request.user)
    messages.success(request, "A new API token was created; the previous one no longer works.")
    request.session["new_token"] = token.key
    return redirect("annotator:account")


@require_POST
def token_revoke(request: HttpRequest) -> HttpResponse:
    if services.revoke_token(request.user):
        messages.success(request, "Your API token was revoked: scripts using it are refused from now on.")
    else:
        messages.info(request, "You had no API token.")
    return redirect("annotator:account")


@require_GET
def security(request: HttpRequest) -> HttpResponse:
    """Admins: usernames locked after too many failed sign-ins, and the recent sign-in log."""
    access.require_admin(request.user, "Only admins see sign-in security.")
    context = {
        "locks": services.locks(),
        "events": services.sign_in_log(100),
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "lockout_minutes": services.lockout_minutes(),
    }
    return render(request, "accounts/security.html", context)


@require_POST
def security_unlock(request: HttpRequest) -> HttpResponse:
    access.require_admin(request.user, "Only admins see sign-in security.")
    username = request.POST.get("username", "")
    if services.unlock(username):
        messages.success(request, f"{username} can sign in again.")
    else:
        messages.info(request, f"{username} was not locked.")
    return redirect("annotator:security")


def locked_out(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> HttpResponse:
    """What a locked username gets (AXES_LOCKOUT_CALLABLE): JSON under /api/, a page otherwise; 429."""
    message = services.LOCKED.format(minutes=services.lockout_minutes())
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=429)
    return render(request, "accounts/locked_out.html", {"message": message}, status=429)
