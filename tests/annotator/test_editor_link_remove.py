"""Removing links (one, or a block); the pair's initial alignment is never touched."""

import pytest

from annotator.models import AlignmentLink
from tests.annotator.editor_helpers import fast_passwords as fast_passwords
from tests.annotator.editor_helpers import logged_in, make_desk, save

pytestmark = pytest.mark.django_db


def test_removing_a_link_keeps_the_initial_alignment_of_the_pair():
    desk = make_desk()
    client = logged_in(desk.ann)
    save(client, "link-accept", desk.pair, desk.ann, {})
    response = save(client, "link-remove", desk.pair, desk.ann, {"i": "1,4", "j": "0,2"})
    assert response.status_code == 200
    assert set(AlignmentLink.objects.filter(annotator=desk.ann).values_list("i", "j")) == {(5, 3)}
    desk.pair.refresh_from_db()
    assert desk.pair.initial_alignment == [[1, 0], [4, 2], [5, 3]]


def test_removing_touches_only_the_annotators_own_links():
    desk = make_desk()
    save(logged_in(desk.bob), "link-accept", desk.pair, desk.bob, {})
    client = logged_in(desk.ann)
    save(client, "link-accept", desk.pair, desk.ann, {})
    save(client, "link-remove", desk.pair, desk.ann, {"i": "1", "j": "0"})
    assert AlignmentLink.objects.filter(annotator=desk.bob).count() == 3
