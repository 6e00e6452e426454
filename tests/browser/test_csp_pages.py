"""The main pages under the Content-Security-Policy in Chromium: no violation, no script error, and htmx
still updates the editor without a reload (tests/annotator/security/test_content_security_policy.py
checks the headers and the templates)."""

import pytest

from annotator.models import PairLabel
from tests import make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = (
    "window.__csp = [];"
    "document.addEventListener('securitypolicyviolation',"
    " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));"
)


@pytest.fixture
def world():
    from annotator.core.tagsets import install_builtin_tagsets
    from annotator.models import ParaphraseType, Tagset

    if not Tagset.objects.filter(builtin=True).exists():
        install_builtin_tagsets(Tagset, ParaphraseType)
    return make.team(n_pairs=4)


def visit_all(page, live_server, urls):
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    for url in urls:
        response = page.goto(live_server.url + url)
        page.wait_for_load_state("networkidle")
        assert response.status == 200, url
        assert page.evaluate("window.__csp") == [], url
    assert errors == []


def test_lead_pages_have_no_csp_violation(strict_page, live_server, world):
    page = strict_page
    page.context.add_init_script(WATCH)
    project, pair = world["project"], world["project"].pairs.order_by("position").first()
    make.sign_in(page, live_server, world["lead"])
    visit_all(
        page,
        live_server,
        [
            "/",
            f"/projects/{project.pk}/",
            f"/projects/{project.pk}/dashboard/",
            f"/projects/{project.pk}/explorer/",
            f"/projects/{project.pk}/explorer/{pair.pk}/",
            f"/projects/{project.pk}/planner/",
            f"/projects/{project.pk}/reannotation/",
            f"/projects/{project.pk}/pairs/{pair.pk}/adjudicate/",
            f"/projects/{project.pk}/corpus/",
            f"/projects/{project.pk}/members/",
            "/account/",
            "/api/docs/",
        ],
    )
    make.screenshot(page, "csp-api-docs")


def test_the_editor_saves_through_htmx_under_the_policy(strict_page, live_server, world):
    page = strict_page
    page.context.add_init_script(WATCH)
    project = world["project"]
    annotator = world["anna"]
    pair = project.pairs.order_by("position").first()
    had = PairLabel.objects.filter(pair=pair, annotator=annotator, is_gold=False).values_list(
        "label", flat=True
    )
    target, text = (
        ("non_paraphrase", "Non-paraphrase") if "paraphrase" in had else ("paraphrase", "Paraphrase")
    )
    make.sign_in(page, live_server, annotator.username)
    visit_all(
        page, live_server, [f"/projects/{project.pk}/queue/", f"/projects/{project.pk}/pairs/{pair.pk}/"]
    )
    page.evaluate("window.__noReload = true")
    page.click(f"#pair-label >> text={text}")
    page.wait_for_selector('#save-status.is-saved[data-pending="0"]')
    assert page.evaluate("window.__noReload === true")
    assert PairLabel.objects.filter(pair=pair, annotator=annotator, is_gold=False, label=target).exists()
    assert page.evaluate("window.__csp") == []
    make.screenshot(page, "csp-editor")
