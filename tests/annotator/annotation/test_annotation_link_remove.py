"""Removing links (one, or a block); the pair's initial alignment is never touched."""

import pytest

from annotator.models import AlignmentLink
from tests import make
from tests.make import logged_in, save

pytestmark = pytest.mark.django_db


def test_removing_a_link_keeps_the_initial_alignment_of_the_pair():
    desk = make.desk()
    client = logged_in(desk.anna)
    save(client, "link-accept", desk.pair, desk.anna, {})
    response = save(client, "link-remove", desk.pair, desk.anna, {"i": "1,4", "j": "0,2"})
    assert response.status_code == 200
    assert set(AlignmentLink.objects.filter(annotator=desk.anna).values_list("i", "j")) == {(5, 3)}
    desk.pair.refresh_from_db()
    assert desk.pair.initial_alignment == [[1, 0], [4, 2], [5, 3]]


def test_removing_touches_only_the_annotators_own_links():
    desk = make.desk()
    save(logged_in(desk.ben), "link-accept", desk.pair, desk.ben, {})
    client = logged_in(desk.anna)
    save(client, "link-accept", desk.pair, desk.anna, {})
    save(client, "link-remove", desk.pair, desk.anna, {"i": "1", "j": "0"})
    assert AlignmentLink.objects.filter(annotator=desk.ben).count() == 3
