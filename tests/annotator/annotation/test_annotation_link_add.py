"""Adding word-alignment links: one link, a possible link, a many-to-many block."""

import json

import pytest

from annotator.models import AlignmentLink, Pair
from tests import make
from tests.make import logged_in, save, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk():
    desk = make.desk()
    Pair.objects.filter(pk=desk.pair.pk).update(initial_alignment=[])
    desk.pair.refresh_from_db()
    return desk


def links(desk):
    return set(
        AlignmentLink.objects.filter(pair=desk.pair, annotator=desk.anna).values_list("i", "j", "sure")
    )


def test_sure_link_is_added_and_the_links_partial_carries_the_data_for_drawing(desk):
    response = save(logged_in(desk.anna), "link-add", desk.pair, desk.anna, {"i": "1", "j": "0"})
    assert response.status_code == 200 and links(desk) == {(1, 0, True)}
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="links"') and '"links": [[1, 0, true]]' in html
    assert json.loads(response["HX-Trigger"])["links-saved"] == {"n": 1}


def test_possible_link(desk):
    save(logged_in(desk.anna), "link-add", desk.pair, desk.anna, {"i": "2", "j": "1", "kind": "possible"})
    assert links(desk) == {(2, 1, False)}


def test_block_links_every_selected_token_with_every_other(desk):
    save(logged_in(desk.anna), "link-add", desk.pair, desk.anna, {"i": "2,3", "j": "1,2"})
    assert {(i, j) for i, j, _ in links(desk)} == {(2, 1), (2, 2), (3, 1), (3, 2)}


def test_unaligned_tokens_are_marked_until_aligned(desk):
    client = logged_in(desk.anna)
    before = client.get(url("pair-edit", desk.pair)).content.decode()
    assert before.count('class="tok un"') == len(desk.pair.tokens1) + len(desk.pair.tokens2)
    html = save(client, "link-add", desk.pair, desk.anna, {"i": "1", "j": "0"}).content.decode()
    assert html.count('class="tok un"') == len(desk.pair.tokens1) + len(desk.pair.tokens2) - 2


def test_a_side_without_tokens_is_a_message(desk):
    response = save(logged_in(desk.anna), "link-add", desk.pair, desk.anna, {"i": "1", "j": ""})
    assert response.status_code == 422 and response["HX-Retarget"] == "#link-message"
    assert "Select at least one token in member 2." in response.content.decode()


def test_token_out_of_range_is_a_message(desk):
    response = save(logged_in(desk.anna), "link-add", desk.pair, desk.anna, {"i": "1", "j": "9"})
    assert response.status_code == 422 and "Token 9 is outside member 2" in response.content.decode()
    assert not links(desk)
