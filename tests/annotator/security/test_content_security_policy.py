"""A strict Content-Security-Policy and a Permissions-Policy on every page; no inline script or style left
in the templates (checked in Chromium for the main pages by tests/browser/test_csp_pages.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from annotator.corpus.exports.report import report_html
from tests import make

pytestmark = pytest.mark.django_db
TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


def directives(header: str) -> dict[str, str]:
    return dict(part.strip().split(" ", 1) for part in header.split(";"))


def test_every_page_carries_the_policies():
    lead = make.user("lead")
    project = make.project_with_pairs("P", lead=lead)
    client = Client()
    client.force_login(lead)
    for url in ("/accounts/login/", "/", f"/projects/{project.pk}/", f"/projects/{project.pk}/explorer/"):
        response = client.get(url)
        csp = directives(response["Content-Security-Policy"])
        assert csp["script-src"] == "'self'" and csp["style-src"] == "'self'", url
        assert csp["object-src"] == "'none'" and csp["frame-ancestors"] == "'none'"
        assert csp["base-uri"] == "'none'" and csp["form-action"] == "'self'"
        assert "camera=()" in response["Permissions-Policy"]


def test_third_party_api_pages_get_inline_styles_but_never_inline_scripts():
    client = Client()
    client.force_login(make.user("u"))
    csp = directives(client.get("/api/docs/")["Content-Security-Policy"])
    assert csp["style-src"] == "'self' 'unsafe-inline'" and csp["script-src"] == "'self'"


INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "inline <script>"),
    (re.compile(r"<style\b", re.I), "<style> element"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "event-handler attribute"),
    (re.compile(r"javascript:", re.I), "javascript: URL"),
    (re.compile(r"hx-on|\[document\.", re.I), "htmx code evaluated with eval"),
]


@pytest.mark.parametrize(
    "template", sorted(TEMPLATES.rglob("*.html")), ids=lambda p: str(p.relative_to(TEMPLATES))
)
def test_no_inline_script_or_style_in_templates(template: Path):
    text = template.read_text(encoding="utf-8")
    found = [f"{what}: {m.group()!r}" for pattern, what in INLINE for m in pattern.finditer(text)]
    assert found == []


def test_the_downloaded_report_carries_its_style_and_the_served_page_links_it(monkeypatch):
    project = make.project_with_pairs("Report", annotators=(make.user("a"),))
    monkeypatch.setattr(
        "annotator.corpus.exports.report.report_document",
        lambda p: {"report": {}, "annotators": [], "statistics": {}},
    )
    standalone = report_html(project).decode()
    served = report_html(project, standalone=False).decode()
    assert (
        "<style>" in standalone and "border-collapse" in standalone and "report_print.css" not in standalone
    )
    assert "<style" not in served and "corpus/report_print" in served
