"""Switching existing links between sure and possible."""

import pytest

from annotator.models import AlignmentLink
from tests import make
from tests.make import logged_in, save

pytestmark = pytest.mark.django_db


def test_sure_link_becomes_possible_and_back():
    desk = make.desk()
    client = logged_in(desk.anna)
    save(client, "link-accept", desk.pair, desk.anna, {})
    save(client, "link-toggle", desk.pair, desk.anna, {"i": "1", "j": "0"})
    assert AlignmentLink.objects.get(annotator=desk.anna, i=1, j=0).sure is False
    save(client, "link-toggle", desk.pair, desk.anna, {"i": "1", "j": "0"})
    assert AlignmentLink.objects.get(annotator=desk.anna, i=1, j=0).sure is True


def test_switching_where_there_is_no_link_is_a_message():
    desk = make.desk()
    response = save(logged_in(desk.anna), "link-toggle", desk.pair, desk.anna, {"i": "0", "j": "3"})
    assert response.status_code == 422 and "no link between the selected tokens" in response.content.decode()
