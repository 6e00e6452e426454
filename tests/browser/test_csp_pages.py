"""Every page of the workbench under the Content-Security-Policy in Chromium: no violation, no script
error, and htmx still updates the editor without a reload (tests/annotator/security/
test_content_security_policy.py checks the headers and the templates).

The pages come from the URLconf (`project_urls`, as the permission matrix takes them): every URL the
matrix lets someone read is opened as the first person it lets in (anonymous, the annotator, the lead,
the admin), the browsable API, the API documentation and Django's admin included. A URL that answers
something else than a page must be listed in NOT_PAGES with the reason, so a new page cannot be left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from annotator.models import PairLabel
from tests import make
from tests.annotator.test_permission_matrix import (
    ADMIN_NAMESPACE,
    READ,
    TABLE,
    project_urls,
    reverse_for,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = (
    "window.__csp = [];"
    "document.addEventListener('securitypolicyviolation',"
    " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));"
)
# who opens a page: the first of these the permission matrix lets read it
ORDER = ("anon", "ann_own", "lead_own", "admin")
COLUMNS = ("anon", "ann_own", "ann_other", "lead_own", "lead_other", "admin")
PEOPLE = {"anon": None, "ann_own": "anna", "lead_own": "lena", "admin": "root"}
# URLs whose GET answers something other than an HTML page (or a redirect to one)
NOT_PAGES = {
    "annotator:healthz": "a plain-text health check",
    "annotator:corpus-job-download": "a file download",
    "annotator:corpus-job-report": "a downloaded report (sandboxed by its own policy)",
    "annotator:pair-tokens": "a JSON fragment for the editor",
    "api-schema": "the OpenAPI document (YAML)",
    "api-job-download": "a file download",
    "admin:jsi18n": "a JavaScript catalogue",
    "admin:autocomplete": "JSON for the admin's autocomplete widgets",
    "admin:view_on_site": "a redirect to an object's own page (none of our models has one)",
}
# Django's admin has ~140 URLs; its pages are a handful of templates: the index, an app, and the
# list, add, change, history and delete pages of each model (all of them for every model).
OBJECT_PAGES = ("_change", "_history", "_delete")
ADMIN_SUFFIXES = ("_changelist", "_add", *OBJECT_PAGES)


# What the policy is expected to block on a page (the start of the violation and of Chrome's message):
# Redoc always shows Redocly's logo from their CDN; blocked, it is hidden and nothing leaves the site.
EXPECTED_BLOCKS = {
    "api-redoc": (
        "img-src https://cdn.redoc.ly/redoc/logo-mini.svg ",
        "console: Loading the image 'https://cdn.redoc.ly/redoc/logo-mini.svg' violates",
    )
}
# pages drawn by a script: what shows they rendered
RENDERED = {"api-docs": ".swagger-ui .opblock", "api-redoc": "[data-section-id]"}


def pages(world: Any) -> Iterator[tuple[str, str, str]]:
    """(URL name, who, URL) of every page someone may read."""
    for name, _pattern in project_urls():
        if name.startswith("admin:"):
            rows = ADMIN_NAMESPACE
            short = name.removeprefix("admin:")
            if short not in ("index", "app_list", "password_change", "login") and not short.endswith(
                ADMIN_SUFFIXES
            ):
                if short not in NOT_PAGES and name not in NOT_PAGES:
                    continue
        else:
            rows = TABLE.get(name, {})
        if READ not in rows:
            continue
        codes = dict(zip(COLUMNS, rows[READ].split(), strict=True))
        who = next((w for w in ORDER if codes[w] in ("ok", "any")), None)
        if who is None:
            continue
        url = reverse_for(world, name, who)
        if name.startswith("admin:") and short.endswith(OBJECT_PAGES) and short != "password_change":
            url = admin_object_url(name)
        yield name, who, url


def admin_object_url(name: str) -> str:
    """The change/history/delete page of the first object of the model (the model's list if it has none)."""
    from django.contrib import admin
    from django.urls import reverse

    short = name.removeprefix("admin:")
    for model in admin.site._registry:
        prefix = f"{model._meta.app_label}_{model._meta.model_name}_"
        if short.startswith(prefix):
            first = model._default_manager.order_by("pk").first()
            if first is None:
                return reverse(f"admin:{prefix}changelist")
            return reverse(name, args=[first.pk])
    raise AssertionError(f"{name}: no registered model")


def console_error(message: Any) -> bool:
    # a failed subresource is reported with its URL by failed_part; the page's own status is checked apart
    return message.type == "error" and not message.text.startswith("Failed to load resource")


def failed_part(response: Any) -> bool:
    return response.status >= 400 and response.request.resource_type != "document"


def session_cookie(username: str | None, live_server: Any) -> list[dict[str, str]]:
    if username is None:
        return []
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    value = client.cookies[settings.SESSION_COOKIE_NAME].value
    return [{"name": settings.SESSION_COOKIE_NAME, "value": value, "url": live_server.url}]


def open_strictly(chromium: Any, live_server: Any, username: str | None, urls: list[tuple[str, str]]):
    """Open each (name, URL) in a page that keeps the policy; return the problems found, per URL."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(WATCH)
    context.add_cookies(session_cookie(username, live_server))
    page = context.new_page()
    page.set_default_timeout(15000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"script error: {exc}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if console_error(m) else None)
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if failed_part(r) else None)
    problems: dict[str, list[str]] = {}
    statuses: dict[str, int] = {}
    try:
        for name, url in urls:
            errors.clear()
            response = page.goto(live_server.url + url)
            page.wait_for_load_state("load")
            rendered = RENDERED.get(name)
            if rendered:
                try:
                    page.wait_for_selector(rendered, timeout=60000)
                except PlaywrightTimeout:
                    errors.append(f"nothing matches {rendered}: the page did not render")
            found = [
                problem
                for problem in page.evaluate("window.__csp") + errors
                if not problem.startswith(EXPECTED_BLOCKS.get(name, ()))
            ]
            statuses[name] = response.status if response else 0
            if found:
                problems[f"{name} {url}"] = list(found)
    finally:
        context.close()
    return problems, statuses


@pytest.fixture
def world(settings):
    make.isolate_cache(settings)
    return make.permission_world()


def test_every_page_opens_without_a_policy_violation(chromium, live_server, world):
    by_person: dict[str | None, list[tuple[str, str]]] = {}
    for name, who, url in pages(world):
        if name in NOT_PAGES:
            continue
        by_person.setdefault(PEOPLE[who], []).append((name, url))
    opened = {name for urls in by_person.values() for name, _ in urls}
    readable = {name for name, rows in TABLE.items() if READ in rows}
    # every page the matrix lets someone read is opened here, or said not to be a page
    assert readable - opened - set(NOT_PAGES) == set()
    assert {"api-docs", "api-redoc", "annotator:pair-edit", "admin:index"} <= opened
    problems: dict[str, list[str]] = {}
    statuses: dict[str, int] = {}
    for username, urls in by_person.items():
        found, seen = open_strictly(chromium, live_server, username, urls)
        problems.update(found)
        statuses.update(seen)
    assert not problems, "\n".join(f"{url}: {found}" for url, found in sorted(problems.items()))
    assert [name for name, status in statuses.items() if status >= 500] == []


def test_the_api_documentation_renders_from_this_site_only(chromium, live_server, settings):
    make.isolate_cache(settings)
    make.user("anna")  # any signed-in person may read the documentation
    problems, statuses = open_strictly(
        chromium, live_server, "anna", [("api-docs", "/api/docs/"), ("api-redoc", "/api/redoc/")]
    )
    assert problems == {} and statuses == {"api-docs": 200, "api-redoc": 200}


def test_the_editor_saves_through_htmx_under_the_policy(strict_page, live_server):
    from annotator.core.tagsets import install_builtin_tagsets
    from annotator.models import ParaphraseType, Tagset

    if not Tagset.objects.filter(builtin=True).exists():
        install_builtin_tagsets(Tagset, ParaphraseType)
    team = make.team(n_pairs=4)
    page = strict_page
    page.context.add_init_script(WATCH)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    project, annotator = team["project"], team["anna"]
    pair = project.pairs.order_by("position").first()
    had = PairLabel.objects.filter(pair=pair, annotator=annotator, is_gold=False).values_list(
        "label", flat=True
    )
    target, text = (
        ("non_paraphrase", "Not a paraphrase") if "paraphrase" in had else ("paraphrase", "Paraphrase")
    )
    make.signed_in(page, live_server, annotator.username)
    page.goto(f"{live_server.url}/projects/{project.pk}/pairs/{pair.pk}/")
    page.wait_for_selector("html.js")
    page.evaluate("window.__noReload = true")
    page.click(f"#pair-label >> text={text}")
    page.wait_for_selector('#save-status.is-saved[data-pending="0"]')
    assert page.evaluate("window.__noReload === true")
    assert PairLabel.objects.filter(pair=pair, annotator=annotator, is_gold=False, label=target).exists()
    assert page.evaluate("window.__csp") == [] and errors == []
    make.screenshot(page, "csp-editor")


def test_data_driven_widths_and_colours_are_applied_through_the_cssom(strict_page, live_server):
    team = make.team(n_pairs=4)
    page = strict_page
    page.context.add_init_script(WATCH)
    make.signed_in(page, live_server, team["anna"].username)
    page.goto(f"{live_server.url}/projects/{team['project'].pk}/queue/")
    bar = page.locator(".progress span[data-width]").first
    assert bar.evaluate("e => e.style.width") == bar.get_attribute("data-width") + "%"
    # inserted later (as htmx and the editor do), and with values of the wrong kind, which are ignored
    page.evaluate(
        """() => {
        const box = document.createElement("div");
        box.innerHTML = '<span id="ok" data-width="40" data-colour="#4e79a7" data-lanes="3"></span>'
          + '<span id="bad" data-width="40%;color:red" data-colour="red;background:url(/x)" data-lanes="1e3"></span>';
        document.body.append(box);
    }"""
    )
    # (the observer runs as a microtask after the insertion, before this next evaluation)
    ok = page.evaluate(
        "() => { const s = document.getElementById('ok').style;"
        " return [s.width, s.getPropertyValue('--c'), s.getPropertyValue('--lanes')]; }"
    )
    assert ok == ["40%", "#4e79a7", "3"]
    assert page.evaluate("() => document.getElementById('bad').style.cssText") == ""
    assert page.evaluate("window.__csp") == []
