"""CSRF on every form: every POST form in the templates carries the token, htmx requests send it as a
header (set once on <body> in base.html), and the middleware really rejects a POST without it."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client

from tests import make
from tests.conftest import REPO

FORM = re.compile(r"<form\b(?P<attrs>[^>]*)>(?P<body>.*?)</form>", re.S | re.I)


def post_forms() -> list[tuple[str, str]]:
    found = []
    for path in sorted((REPO / "templates").rglob("*.html")):
        text = path.read_text()
        for match in FORM.finditer(text):
            if re.search(r"method\s*=\s*[\"']?post", match["attrs"], re.I):
                found.append((str(path.relative_to(REPO)), match.group(0)))
    return found


def test_every_post_form_has_the_csrf_token():
    forms = post_forms()
    assert forms, "no POST forms found: the template scan is broken"
    missing = [path for path, form in forms if "{% csrf_token %}" not in form]
    assert not missing, f"POST forms without {{% csrf_token %}}: {missing}"


def test_htmx_requests_send_the_token_from_base_html():
    base = (REPO / "templates" / "base.html").read_text()
    assert re.search(r"<body[^>]*hx-headers='\{\"X-CSRFToken\": \"\{\{ csrf_token \}\}\"\}'", base)
    for path in (REPO / "templates").rglob("*.html"):
        text = path.read_text()
        if re.search(r"hx-(post|put|patch|delete)=", text) and path.name != "base.html":
            assert "{% extends" in text or "{% partialdef" in text or path.name.startswith("_"), path


def test_csrf_middleware_is_on():
    assert "django.middleware.csrf.CsrfViewMiddleware" in settings.MIDDLEWARE


@pytest.mark.django_db
def test_post_without_token_is_rejected(cast):
    project = make.project_with_pairs("C", n_pairs=1, annotators=(cast.anna,))
    pair = project.pairs.get()
    client = Client(enforce_csrf_checks=True)
    client.force_login(project.memberships.get().user)
    url = f"/projects/{project.pk}/pairs/{pair.pk}/label/"
    assert client.post(url, {"label": "paraphrase", "base_version": 0}).status_code == 403
    client.get(f"/projects/{project.pk}/pairs/{pair.pk}/")  # the page sets the CSRF cookie
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    response = client.post(url, {"label": "paraphrase", "base_version": 0}, HTTP_X_CSRFTOKEN=token)
    assert response.status_code in (200, 302)
