"""The browsable API (GET with Accept: text/html, signed in) answers every list of the API without a 500,
the lead's tools (explorer, re-annotation, planner, adjudication) included."""

from __future__ import annotations

import pytest
from django.test import Client

from annotator.api.urls import router
from annotator.leadtools import explorer_rows
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(settings):
    world = make.two_projects()
    make.annotate_marked(world, world.anna)
    make.annotate_marked(world, world.ben, marker=2)
    return world


def list_urls(world) -> list[str]:
    urls = []
    for prefix, _viewset, _basename in router.registry:
        path = prefix.replace("(?P<project_pk>[0-9]+)", str(world.project.pk))
        path = path.replace("(?P<pair_pk>[0-9]+)", str(world.pair.pk))
        urls.append(f"/api/{path}/")
    return urls


def test_every_list_and_the_lead_tools_render_as_html_for_a_lead(world):
    client = Client()
    client.force_login(world.lead)
    urls = [*list_urls(world), f"/api/projects/{world.project.pk}/explorer/{world.pair.pk}/"]
    assert f"/api/projects/{world.project.pk}/reannotation/" in urls
    for url in urls:
        response = client.get(url, HTTP_ACCEPT="text/html")
        # 405: a create-only endpoint (gold phenomena); 404: a layer the project has switched off
        assert response.status_code in (200, 404, 405), (url, response.status_code)
        assert response["Content-Type"].startswith("text/html")
    for tool in ("explorer", "reannotation", "planner"):
        response = client.get(f"/api/projects/{world.project.pk}/{tool}/", HTTP_ACCEPT="text/html")
        assert response.status_code == 200 and b"Django REST framework" in response.content


@pytest.mark.usefixtures("eager_celery")  # the explorer's rows are built by a task: here, in-process
def test_the_explorer_page_shows_the_computed_rows(world):
    client = Client()
    client.force_login(world.lead)
    explorer_rows.refresh(world.project)  # as the computation after the saves has them refreshed
    body = client.get(f"/api/projects/{world.project.pk}/explorer/", HTTP_ACCEPT="text/html").content.decode()
    assert "anna|ben" in body and "&quot;results&quot;" in body
