"""Next: the following open pair; postponed pairs only when nothing else is open; the queue at the end."""

import pytest
from django.urls import reverse

from annotator.models import Assignment
from tests import make
from tests.make import logged_in, url

pytestmark = pytest.mark.django_db


def test_next_goes_to_the_following_open_pair_skipping_postponed_ones():
    desk = make.desk()
    p1, p2, p3 = desk.project.pairs.order_by("position")
    client = logged_in(desk.anna)
    client.post(url("pair-postpone", p2))
    response = client.get(url("pair-next", p1))
    assert response["Location"] == url("pair-edit", p3)


def test_postponed_pairs_come_back_when_nothing_else_is_open():
    desk = make.desk()
    p1, p2, p3 = desk.project.pairs.order_by("position")
    client = logged_in(desk.anna)
    client.post(url("pair-postpone", p2))
    Assignment.objects.filter(annotator=desk.anna, pair__in=[p1, p3]).update(status="done")
    assert client.get(url("pair-next", p3))["Location"] == url("pair-edit", p2)


def test_a_pair_postponed_before_the_session_kept_postponements_still_comes_last():
    desk = make.desk()
    p1, p2, p3 = desk.project.pairs.order_by("position")
    Assignment.objects.filter(annotator=desk.anna, pair=p2).update(status="postponed")
    assert logged_in(desk.anna).get(url("pair-next", p1))["Location"] == url("pair-edit", p3)


def test_after_the_last_pair_next_leads_to_the_queue():
    desk = make.desk()
    Assignment.objects.filter(annotator=desk.anna).update(status="done")
    response = logged_in(desk.anna).get(url("pair-next", desk.pair))
    assert response["Location"] == reverse("annotator:queue", args=[desk.project.pk])
