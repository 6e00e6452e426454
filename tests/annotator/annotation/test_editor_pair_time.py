"""Time spent: the page reports its active seconds when it is left."""

import pytest

from annotator.models import Assignment
from tests import make
from tests.make import logged_in, url

pytestmark = pytest.mark.django_db


def test_active_seconds_add_up_and_absurd_reports_are_clipped():
    desk = make.desk()
    client = logged_in(desk.anna)
    assert client.post(url("pair-time", desk.pair), {"seconds": "95"}).status_code == 204
    client.post(url("pair-time", desk.pair), {"seconds": "86400"})
    assert Assignment.objects.get(annotator=desk.anna, pair=desk.pair).time_spent == 95 + 3600


def test_a_report_that_is_not_a_number_is_refused():
    desk = make.desk()
    assert logged_in(desk.anna).post(url("pair-time", desk.pair), {"seconds": "lots"}).status_code == 400
