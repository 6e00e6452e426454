"""Security headers of every response: a strict Content-Security-Policy and a Permissions-Policy.

The policy (settings.CONTENT_SECURITY_POLICY) allows scripts and style sheets from this site only: no
inline `<script>` or `<style>`, no event-handler attributes, no `javascript:` URLs, no eval, no plugins,
no framing, forms posting to this site only. Style *attributes* stay allowed (`style-src-attr`): the
templates set data-driven widths and type colours with them (`style="--c: #4e79a7"`); they cannot run
script. A view may set its own header (e.g. a downloaded file is sandboxed); it is then left alone.

Pages of third-party HTML under CSP_INLINE_STYLE_PATHS (the browsable API, Swagger UI and Redoc,
which write `<style>` elements) get `'unsafe-inline'` for styles only; their scripts stay as strict.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

DEFAULT_CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "style-src-attr": "'unsafe-inline'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}
DEFAULT_PERMISSIONS = (
    "accelerometer=(), autoplay=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), "
    "magnetometer=(), microphone=(), midi=(), payment=(), usb=(), browsing-topics=()"
)


def policy_header(directives: dict[str, str]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        directives = dict(getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_CSP))
        self.csp = policy_header(directives)
        directives["style-src"] = directives.get("style-src", "'self'") + " 'unsafe-inline'"
        directives["worker-src"] = "'self' blob:"  # Redoc parses the schema in a worker
        self.csp_inline_style = policy_header(directives)
        self.inline_style_paths = tuple(getattr(settings, "CSP_INLINE_STYLE_PATHS", ("/api/",)))
        self.permissions = getattr(settings, "PERMISSIONS_POLICY", DEFAULT_PERMISSIONS)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        inline_style = request.path.startswith(self.inline_style_paths)
        response.headers.setdefault(
            "Content-Security-Policy", self.csp_inline_style if inline_style else self.csp
        )
        response.headers.setdefault("Permissions-Policy", self.permissions)
        return response
