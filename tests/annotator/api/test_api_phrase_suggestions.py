"""`GET/POST /api/pairs/{id}/phrase-suggestions/`: the automatic phrase alignments an annotator has not
made (nothing stored), and accepting all or some as their sure phrase alignments."""

import pytest
from django.urls import reverse

from annotator.models import PhraseAlignment
from tests import make
from tests.make import logged_in

pytestmark = pytest.mark.django_db
SUGGESTED = [[0, 0], [1, 1], [4, 3], [9, 7]]


@pytest.fixture
def desk():
    return make.desk(layer_phrase_alignment=True)


def _url(pair):
    return reverse("api-pair-phrase-suggestions", args=[pair.pk])


def test_get_lists_them_with_their_source_and_stores_nothing(desk):
    body = logged_in(desk.anna).get(_url(desk.pair)).json()
    assert body["suggestions"] == SUGGESTED and body["version"] == 0
    assert body["source"].endswith("× imported trees")
    assert not PhraseAlignment.objects.exists()


def test_post_accepts_some_then_all(desk):
    client = logged_in(desk.anna)
    one = client.post(
        _url(desk.pair), {"base_version": 0, "phrases": [[4, 3]]}, content_type="application/json"
    )
    assert one.status_code == 200 and one.json()["version"] > 0
    assert one.json()["suggestions"] == [[0, 0], [1, 1], [9, 7]]
    rest = client.post(
        _url(desk.pair), {"base_version": one.json()["version"]}, content_type="application/json"
    )
    assert rest.status_code == 200
    assert rest.json()["suggestions"] == []
    mine = PhraseAlignment.objects.filter(annotator=desk.anna).values_list("node1", "node2", "sure")
    assert sorted(mine) == [(a, b, True) for a, b in SUGGESTED]


def test_errors_are_said_at_the_field_and_a_stale_version_conflicts(desk):
    client = logged_in(desk.anna)
    bad = client.post(
        _url(desk.pair), {"base_version": 0, "phrases": [[2, 2]]}, content_type="application/json"
    )
    assert bad.status_code == 400 and "not a suggested phrase alignment" in str(bad.json())
    stale = client.post(_url(desk.pair), {"base_version": 5}, content_type="application/json")
    assert stale.status_code == 409
    assert not PhraseAlignment.objects.exists()


def test_a_lead_or_an_outsider_gets_nothing(desk):
    assert logged_in(desk.outsider).get(_url(desk.pair)).status_code == 404
    assert (
        logged_in(desk.lead)
        .post(_url(desk.pair), {"base_version": 0}, content_type="application/json")
        .status_code
        == 403
    )
    assert not PhraseAlignment.objects.exists()
