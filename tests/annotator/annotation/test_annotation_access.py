"""Role matrix for every editor URL: only the pair's own annotator gets in.

Anonymous → login page; outsider (not a member) → 404; lead or admin who does not annotate the pair
→ 403; an annotator of the project who is not assigned the pair → 403.
"""

import pytest
from django.urls import reverse

from annotator.accounts import services as accounts
from annotator.corpus import projects
from tests import make
from tests.make import logged_in, url

pytestmark = pytest.mark.django_db

PAIR_URLS = [
    ("get", "pair-edit", ()),
    ("get", "pair-next", ()),
    ("get", "pair-previous", ()),
    ("post", "pair-label", ()),
    ("post", "pair-comment", ()),
    ("post", "phenomenon-create", ()),
    ("post", "phenomenon-update", (1,)),
    ("post", "phenomenon-delete", (1,)),
    ("post", "link-add", ()),
    ("post", "link-remove", ()),
    ("post", "link-toggle", ()),
    ("post", "phrase-alignment-add", ()),
    ("post", "phrase-alignment-remove", (1,)),
    ("post", "pair-undo", ()),
    ("post", "pair-postpone", ()),
    ("post", "pair-done", ()),
    ("post", "pair-time", ()),
]


@pytest.fixture
def desk():
    return make.desk()


def statuses(client, pair):
    return {
        name: getattr(client, method)(url(name, pair, *extra)).status_code
        for method, name, extra in PAIR_URLS
    }


def test_anonymous_is_sent_to_login(client, desk):
    for method, name, extra in PAIR_URLS:
        response = getattr(client, method)(url(name, desk.pair, *extra))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], name


@pytest.mark.parametrize(("who", "status"), [("outsider", 404), ("lead", 403), ("admin", 403)])
def test_people_who_do_not_annotate_the_pair_are_kept_out(desk, who, status):
    assert statuses(logged_in(getattr(desk, who)), desk.pair) == {name: status for _, name, _ in PAIR_URLS}


def test_annotator_of_the_project_without_this_pair_gets_403(desk):
    carl = accounts.create_account("carl", "test-pass-123")
    projects.assign_pairs(desk.project, [carl], [desk.project.pairs.last()])
    assert statuses(logged_in(carl), desk.pair) == {name: 403 for _, name, _ in PAIR_URLS}


def test_get_only_pages_refuse_posts_and_saves_refuse_gets(desk):
    client = logged_in(desk.anna)
    assert client.post(url("pair-edit", desk.pair)).status_code == 405
    assert client.get(url("pair-label", desk.pair)).status_code == 405


@pytest.mark.parametrize(("who", "status"), [("outsider", 404), ("lead", 403)])
def test_queue_is_for_the_projects_annotators(desk, who, status):
    response = logged_in(getattr(desk, who)).get(reverse("annotator:queue", args=[desk.project.pk]))
    assert response.status_code == status
