"""A newcomer's first minutes: the lead, an annotator and the admin log in and see their pages."""

import pytest

from tests import make
from tests.make import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def people():
    lead = make.cast().lead
    anna = make.cast().anna
    admin = make.cast().admin
    project = make.project_with_pairs("Browser project", lead=lead, annotators=(anna,))
    return {"lead": lead, "anna": anna, "admin": admin, "project": project}


def test_annotator_sees_their_queue_on_the_project_page(page, live_server, people):
    make.sign_in(page, live_server, make.cast().anna)
    assert page.locator("#project-{}".format(people["project"].pk)).is_visible()
    page.click("text=Open")
    assert page.locator("#my-work").is_visible()
    assert page.locator("#lead-tools").count() == 0
    screenshot(page, "roles-annotator-project")


def test_lead_sees_lead_tools(page, live_server, people):
    make.sign_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{people['project'].pk}/")
    assert page.locator("#lead-tools").is_visible()
    assert page.locator("text=Agreement dashboard").is_visible()
    screenshot(page, "roles-lead-project")


def test_admin_reaches_user_management(page, live_server, people):
    make.sign_in(page, live_server, make.cast().admin)
    page.click("text=Admin")
    page.wait_for_url("**/admin/")
    assert page.locator("text=Users").first.is_visible()
    screenshot(page, "roles-admin")


def test_wrong_password_is_told_and_stays_on_login(page, live_server, people):
    page.goto(f"{live_server.url}/projects/{people['project'].pk}/")
    assert "/accounts/login/" in page.url
    page.fill("input[name=username]", "anna")
    page.fill("input[name=password]", "wrong")
    page.click("button[type=submit]")
    assert page.locator("text=didn't match").is_visible()
