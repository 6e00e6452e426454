"""A strict Content-Security-Policy and a Permissions-Policy on every page; no inline script or style left
in the templates, the HTML built in Python or the scripts (every page is opened in Chromium under the
policy by tests/browser/test_csp_pages.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from annotator.core.headers import REDOC_STYLE_HASHES
from annotator.corpus.exports.report import report_html
from tests import make

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / "templates"


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
        assert csp["style-src-attr"] == "'none'" and csp["default-src"] == "'self'", url
        assert "unsafe" not in response["Content-Security-Policy"], url
        assert csp["object-src"] == "'none'" and csp["frame-ancestors"] == "'none'"
        assert csp["base-uri"] == "'none'" and csp["form-action"] == "'self'"
        assert "camera=()" in response["Permissions-Policy"]


def test_the_api_pages_are_as_strict_and_redoc_allows_only_its_own_two_style_texts():
    client = Client()
    client.force_login(make.user("u"))
    for url in ("/api/", "/api/projects/", "/api/docs/"):
        header = client.get(url, HTTP_ACCEPT="text/html")["Content-Security-Policy"]
        assert "unsafe" not in header and directives(header)["style-src"] == "'self'", url
    redoc = client.get("/api/redoc/")
    csp = directives(redoc["Content-Security-Policy"])
    assert csp["style-src"] == " ".join(("'self'", *REDOC_STYLE_HASHES)) and "unsafe" not in csp["style-src"]
    assert csp["script-src"] == "'self'" and csp["style-src-attr"] == "'none'"
    assert csp["worker-src"] == "'self' blob:"
    assert b"fonts.googleapis.com" not in redoc.content and b"<style" not in redoc.content


def test_the_api_documentation_is_served_from_this_site():
    client = Client()
    client.force_login(make.user("u"))
    for url in ("/api/docs/", "/api/redoc/"):
        body = client.get(url).content.decode()
        sources = re.findall(r'(?:src|href)="([^"]+)"', body)
        assert sources and all(s.startswith("/") for s in sources), (url, sources)
        assert "/static/drf_spectacular_sidecar/" in body and "<style" not in body, url
    swagger_js = client.get("/api/docs/?script=").content.decode()
    assert "SwaggerUIBundle" in swagger_js


def test_the_browsable_api_writes_no_inline_style():
    world = make.two_projects()
    client = Client()
    client.force_login(world.lead)
    for url in ("/api/", "/api/jobs/", f"/api/pairs/{world.pair.pk}/", f"/api/projects/{world.project.pk}/"):
        body = client.get(url, HTTP_ACCEPT="text/html").content.decode()
        assert "<style" not in body and STYLE_ATTRIBUTE.search(body) is None, url
    jobs = client.get("/api/jobs/", HTTP_ACCEPT="text/html").content.decode()
    assert 'class="dropdown action-links"' in jobs and "/api/jobs/export/" in jobs  # the extra actions


STYLE_ATTRIBUTE = re.compile(r"\sstyle\s*=\s*[\"'{]", re.I)
INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "inline <script>"),
    (STYLE_ATTRIBUTE, "style attribute"),
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


# markup written by Python (tokens_html, error pages) or by our scripts (innerHTML, setAttribute)
WRITTEN_STYLE = re.compile(r"""\sstyle\s*=\s*\\?["']|setAttribute\(\s*["']style|\.cssText\b""", re.I)
SOURCES = sorted(
    [*(ROOT / "annotator").rglob("*.py"), *(ROOT / "static").rglob("*.js")], key=lambda p: str(p)
)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_style_attribute_written_by_python_or_our_scripts(source: Path):
    text = source.read_text(encoding="utf-8")
    assert [m.group() for m in WRITTEN_STYLE.finditer(text)] == []


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
