"""Accepting the automatic suggestions: all at once or one by one, as the annotator's sure links."""

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import AlignmentLink, AnnotationHistory
from tests import make
from tests.make import HTMX, logged_in, url, version

pytestmark = pytest.mark.django_db


def _links(desk, user=None):
    return set(
        AlignmentLink.objects.filter(pair=desk.pair, annotator=user or desk.anna).values_list(
            "i", "j", "sure"
        )
    )


def test_accept_all_adds_every_suggestion_as_a_sure_link_with_history():
    desk = make.desk()
    response = logged_in(desk.anna).post(url("link-accept", desk.pair), {"base_version": 0}, **HTMX)
    assert response.status_code == 200
    assert _links(desk) == {(1, 0, True), (4, 2, True), (5, 3, True)}
    assert AnnotationHistory.objects.filter(pair=desk.pair, actor=desk.anna).count() == 3
    assert "suggested by the" not in response.content.decode()  # nothing left to suggest
    assert not _links(desk, desk.ben)


def test_accept_one_adds_only_that_link():
    desk = make.desk()
    client = logged_in(desk.anna)
    response = client.post(url("link-accept", desk.pair), {"base_version": 0, "i": 4, "j": 2}, **HTMX)
    assert response.status_code == 200
    assert _links(desk) == {(4, 2, True)}
    assert "Accept all 2" in response.content.decode()


def test_accept_keeps_a_link_the_annotator_made_possible():
    desk = make.desk()
    v = annotation_services.set_links(desk.pair, desk.anna, [(1, 0)], sure=False, base_version=None)
    logged_in(desk.anna).post(url("link-accept", desk.pair), {"base_version": v}, **HTMX)
    assert _links(desk) == {(1, 0, False), (4, 2, True), (5, 3, True)}


def test_a_link_that_is_not_suggested_cannot_be_accepted():
    desk = make.desk()
    response = logged_in(desk.anna).post(
        url("link-accept", desk.pair), {"base_version": 0, "i": 0, "j": 0}, **HTMX
    )
    assert response.status_code == 422
    assert "not a suggested link" in response.content.decode()
    assert not _links(desk)


def test_half_a_link_is_refused_at_the_field():
    desk = make.desk()
    response = logged_in(desk.anna).post(url("link-accept", desk.pair), {"base_version": 0, "i": 1}, **HTMX)
    assert response.status_code == 422 and "Give both tokens" in response.content.decode()


def test_stale_version_gets_conflict():
    desk = make.desk()
    current = annotation_services.set_pair_label(desk.pair, desk.anna, "paraphrase", base_version=None)
    response = logged_in(desk.anna).post(url("link-accept", desk.pair), {"base_version": 0}, **HTMX)
    assert response.status_code == 409 and not _links(desk)
    assert version(desk.pair, desk.anna) == current


def test_other_annotators_and_leads_cannot_accept_on_someone_elses_sheet():
    desk = make.desk()
    assert (
        logged_in(desk.outsider).post(url("link-accept", desk.pair), {"base_version": 0}).status_code == 404
    )
    assert logged_in(desk.lead).post(url("link-accept", desk.pair), {"base_version": 0}).status_code in (
        403,
        404,
    )
    assert not AlignmentLink.objects.exists()


def test_api_lists_and_accepts_suggestions_like_the_editor():
    desk = make.desk()
    client = logged_in(desk.anna)
    url = f"/api/pairs/{desk.pair.pk}/suggestions/"
    listed = client.get(url).json()
    assert listed["suggestions"] == [[1, 0], [4, 2], [5, 3]] and listed["version"] == 0
    assert not AlignmentLink.objects.exists()  # asking records nothing
    one = client.post(url, {"base_version": 0, "links": [[4, 2]]}, content_type="application/json")
    assert one.status_code == 200 and one.json()["suggestions"] == [[1, 0], [5, 3]]
    stale = client.post(url, {"base_version": 0}, content_type="application/json")
    assert stale.status_code == 409
    rest = client.post(url, {"base_version": one.json()["version"]}, content_type="application/json")
    assert rest.json()["suggestions"] == [] and _links(desk) == {(1, 0, True), (4, 2, True), (5, 3, True)}
    assert logged_in(desk.lead).get(url).status_code in (403, 404)
