"""Security headers of every response: a strict Content-Security-Policy and a Permissions-Policy.

The policy (settings.CONTENT_SECURITY_POLICY) allows scripts and style sheets from this site only: no
inline `<script>` or `<style>`, no style attributes, no event-handler attributes, no `javascript:`
URLs, no eval, no plugins, no framing, forms posting to this site only. Data-driven widths and type
colours are written as data attributes and applied through the CSSOM by static/core/styles.js, which the
policy allows. A view may set its own header (e.g. a downloaded file is sandboxed); it is then left alone.

The one exception: the Redoc page (/api/redoc/) allows the hashes of the two fixed <style> texts that
Redoc's bundle inserts (REDOC_STYLE_HASHES) and its search worker from a `blob:` URL; still no other
inline style and no inline script.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

CONTENT_SECURITY_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "style-src-attr": "'none'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "worker-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}
PERMISSIONS_POLICY = (
    "accelerometer=(), autoplay=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), "
    "magnetometer=(), microphone=(), midi=(), payment=(), usb=(), browsing-topics=()"
)
# Redoc (drf-spectacular-sidecar's bundle) writes two <style> elements of its own: an empty one that
# styled-components fills through the CSSOM, and the fixed style sheet of its scroll bars. Their hashes
# allow exactly these two texts on the Redoc page, nothing else inline. A new Redoc version may change
# the second: tests/browser/test_csp_pages.py then fails with Chrome's message naming the new hash.
REDOC_STYLE_HASHES = (
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",  # the empty string
    "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='",  # Redoc 2.5.4's perfect-scrollbar CSS
)
# path prefix → directives replaced for pages under it
# (Redoc also searches the schema in a Web Worker it starts from a `blob:` URL made by its own script.)
CSP_BY_PATH = {
    "/api/redoc/": {"style-src": " ".join(("'self'", *REDOC_STYLE_HASHES)), "worker-src": "'self' blob:"}
}


def policy_header(directives: dict[str, str]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        directives = dict(CONTENT_SECURITY_POLICY)
        self.csp = policy_header(directives)
        extra = CSP_BY_PATH
        self.csp_by_prefix = [
            (prefix, policy_header({**directives, **added})) for prefix, added in extra.items()
        ]
        self.permissions = PERMISSIONS_POLICY

    def csp_for(self, path: str) -> str:
        for prefix, header in self.csp_by_prefix:
            if path.startswith(prefix):
                return header
        return self.csp

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.csp_for(request.path))
        response.headers.setdefault("Permissions-Policy", self.permissions)
        return response
