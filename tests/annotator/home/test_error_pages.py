"""The app's own 404 and 403 pages, under DEBUG (`make run`) as in production, and refusals logged as
one line without a traceback."""

import logging
import sys

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from annotator.home.errors import QuietRefusals
from annotator.projects import services as project_setup
from tests import make
from tests.make import logged_in

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_url_gets_the_apps_404_page_not_the_url_list(settings, debug):
    settings.DEBUG = debug
    response = logged_in(make.user("anna")).get("/no/such/page/")
    page = response.content.decode()
    assert response.status_code == 404 and 'id="error-404"' in page
    assert "DEBUG = True" not in page and "URLconf" not in page and "<style" not in page
    assert "Content-Security-Policy" in response.headers


def test_a_project_of_others_gets_the_apps_404_page_under_debug(settings):
    settings.DEBUG = True
    project = project_setup.create_project(None, name="Secret", tagset=make.vila())
    response = logged_in(make.user("anna")).get(reverse("annotator:project-detail", args=[project.pk]))
    assert response.status_code == 404 and 'id="error-404"' in response.content.decode()


def test_the_api_keeps_its_json_404_under_debug(settings):
    settings.DEBUG = True
    response = logged_in(make.user("anna")).get("/api/projects/999999/")
    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")


def test_a_403_under_debug_is_the_apps_page(settings):
    settings.DEBUG = True
    lead, anna = make.user("lena"), make.user("anna")
    project = project_setup.create_project(lead, name="P", tagset=make.vila(), annotators=[anna])
    response = logged_in(anna).get(reverse("annotator:project-members", args=[project.pk]))
    assert response.status_code == 403 and 'id="error-403"' in response.content.decode()


def test_refusals_are_logged_without_their_traceback():
    try:
        raise PermissionDenied("Only the project's leads may do this.")
    except PermissionDenied:
        exc_info = sys.exc_info()
    record = logging.LogRecord("django.request", logging.WARNING, "", 0, "Forbidden: %s", ("/x/",), exc_info)
    record.status_code = 403
    assert QuietRefusals().filter(record) and record.exc_info is None
    error = logging.LogRecord("django.request", logging.ERROR, "", 0, "Server error", (), exc_info)
    error.status_code = 500
    assert QuietRefusals().filter(error) and error.exc_info is exc_info
    from django.conf import settings

    assert settings.LOGGING["handlers"]["console"]["filters"] == ["quiet_refusals"]
