"""Home, project page and health check: who sees what."""

import pytest
from django.urls import reverse

from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    cast = make.cast()
    lead, anna, other = cast.lead, cast.anna, cast.other_lead
    admin = make.cast().admin
    mine = make.project_with_pairs("Mine", lead=lead, annotators=(anna,))
    theirs = make.project_with_pairs("Theirs", lead=other, annotators=(other,))
    return {"lead": lead, "anna": anna, "other": other, "admin": admin, "mine": mine, "theirs": theirs}


def test_anonymous_is_sent_to_login_everywhere(client, world):
    for url in ("/", reverse("annotator:project-detail", args=[world["mine"].pk])):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_home_lists_only_the_users_projects(client, world):
    client.force_login(world["anna"])
    body = client.get("/").content.decode()
    assert "Mine" in body and "Theirs" not in body


def test_admin_sees_every_project(client, world):
    client.force_login(world["admin"])
    body = client.get("/").content.decode()
    assert "Mine" in body and "Theirs" in body


def test_outsider_gets_404_for_another_project(client, world):
    client.force_login(world["anna"])
    assert client.get(reverse("annotator:project-detail", args=[world["theirs"].pk])).status_code == 404


def test_healthz_reports_database_and_broker(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"


def test_home_query_count_does_not_grow_with_projects(client, world, django_assert_num_queries):
    client.force_login(world["admin"])
    with django_assert_num_queries(7) as few:
        client.get("/")
    for n in range(5):
        make.project_with_pairs(f"Extra {n}", lead=world["lead"])
    with django_assert_num_queries(len(few.captured_queries)):
        client.get("/")
