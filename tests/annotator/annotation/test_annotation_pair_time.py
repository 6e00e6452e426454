"""Time spent: the page reports its active seconds when it is left; visits without a save do not count."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotator.annotation import services as annotation_services
from annotator.models import Assignment, PairLabel
from tests import make
from tests.make import logged_in, url

pytestmark = pytest.mark.django_db


def test_active_seconds_add_up_and_absurd_reports_are_clipped():
    desk = make.desk()
    client = logged_in(desk.anna)
    annotation_services.set_comment(desk.pair, desk.anna, "working", base_version=None)
    assert client.post(url("pair-time", desk.pair), {"seconds": "95"}).status_code == 204
    client.post(url("pair-time", desk.pair), {"seconds": "86400"})
    assert Assignment.objects.get(annotator=desk.anna, pair=desk.pair).time_spent == 95 + 3600


def test_time_on_a_pair_only_looked_at_is_not_recorded():
    desk = make.desk()
    client = logged_in(desk.anna)
    client.get(url("pair-edit", desk.pair))
    assert client.post(url("pair-time", desk.pair), {"seconds": "40"}).status_code == 204
    assert Assignment.objects.get(annotator=desk.anna, pair=desk.pair).time_spent == 0


def test_a_visit_that_ended_with_mark_done_counts():
    desk = make.desk()
    Assignment.objects.filter(annotator=desk.anna, pair=desk.pair).update(
        status="done", finished_at=timezone.now()
    )
    logged_in(desk.anna).post(url("pair-time", desk.pair), {"seconds": "30"})
    assert Assignment.objects.get(annotator=desk.anna, pair=desk.pair).time_spent == 30


def test_a_visit_long_after_the_last_save_is_not_recorded():
    desk = make.desk()
    annotation_services.set_comment(desk.pair, desk.anna, "earlier", base_version=None)
    PairLabel.objects.filter(annotator=desk.anna, pair=desk.pair).update(
        updated_at=timezone.now() - timedelta(hours=2)
    )
    logged_in(desk.anna).post(url("pair-time", desk.pair), {"seconds": "30"})
    assert Assignment.objects.get(annotator=desk.anna, pair=desk.pair).time_spent == 0


def test_a_report_that_is_not_a_number_is_refused():
    desk = make.desk()
    assert logged_in(desk.anna).post(url("pair-time", desk.pair), {"seconds": "lots"}).status_code == 400
