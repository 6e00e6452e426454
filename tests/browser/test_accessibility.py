"""axe-core on the app's pages, as the demo shows them: no critical and no serious violation.

The editor's tabs are checked in test_editor_keyboard.py; here the other pages, each as the role that
uses it (lead, annotator, rater, administrator).
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotator.models import EvaluationUnit, Pair, Project
from tests.browser.axe import axe_violations, describe

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("load_demo", verbosity=0)
    typed = Project.objects.filter(pairs__isnull=False).distinct().order_by("pk").first()
    rated = EvaluationUnit.objects.order_by("pk").first()
    return {"typed": typed, "pair": Pair.objects.filter(project=typed).order_by("pk").first(), "unit": rated}


def pages(demo) -> dict[str, list[str]]:
    p, pair, unit = demo["typed"].pk, demo["pair"].pk, demo["unit"]
    e, u = unit.project_id, unit.pk
    return {
        "lena": [
            "/",
            f"/projects/{p}/",
            f"/projects/{p}/dashboard/",
            f"/projects/{p}/planner/",
            f"/projects/{p}/explorer/",
            f"/projects/{p}/explorer/{pair}/",
            f"/projects/{p}/reannotation/",
            f"/projects/{p}/pairs/{pair}/adjudicate/",
            f"/projects/{p}/corpus/",
            f"/projects/{e}/evaluation/setup/",
            f"/projects/{e}/dashboard/",
        ],
        "anna": [
            f"/projects/{p}/queue/",
            f"/projects/{e}/evaluation/",
            f"/projects/{e}/evaluation/units/{u}/grammaticality/",
            f"/projects/{e}/evaluation/units/{u}/meaning/",
        ],
        "admin": ["/corpus/import/"],
    }


def log_in(page, live_server, name: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-demo-pass")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


@pytest.mark.parametrize("who", ["lena", "anna", "admin"])
def test_pages_have_no_critical_or_serious_axe_violations(page, live_server, demo, who):
    log_in(page, live_server, who)
    problems = []
    for path in pages(demo)[who]:
        response = page.goto(live_server.url + path)
        assert response.status == 200, path
        violations = axe_violations(page)
        if violations:
            problems.append(f"{path}\n{describe(violations)}")
    assert not problems, "\n".join(problems)
