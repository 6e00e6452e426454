"""Previous: the pair before in queue order, whatever its status."""

import pytest

from annotator.models import Assignment
from tests import make
from tests.make import logged_in, url

pytestmark = pytest.mark.django_db


def test_previous_goes_back_even_to_a_done_pair():
    desk = make.desk()
    p1, p2, _ = desk.project.pairs.order_by("position")
    Assignment.objects.filter(annotator=desk.anna, pair=p1).update(status="done")
    assert logged_in(desk.anna).get(url("pair-previous", p2))["Location"] == url("pair-edit", p1)


def test_previous_of_the_first_pair_stays_and_says_so():
    desk = make.desk()
    response = logged_in(desk.anna).get(url("pair-previous", desk.pair), follow=True)
    assert response.redirect_chain[-1][0] == url("pair-edit", desk.pair)
    assert "first pair of your queue" in response.content.decode()
