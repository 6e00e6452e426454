"""Next: the following open pair; postponed pairs only when nothing else is open; the queue at the end."""

import pytest
from django.urls import reverse

from annotator.annotation import worklist as work
from annotator.models import Assignment
from tests.annotator.editor_helpers import fast_passwords as fast_passwords
from tests.annotator.editor_helpers import logged_in, make_desk, url

pytestmark = pytest.mark.django_db


def test_next_goes_to_the_following_open_pair_skipping_postponed_ones():
    desk = make_desk()
    p1, p2, p3 = desk.project.pairs.order_by("position")
    work.postpone(work.assignment_for(desk.ann, p2))
    response = logged_in(desk.ann).get(url("pair-next", p1))
    assert response["Location"] == url("pair-edit", p3)


def test_postponed_pairs_come_back_when_nothing_else_is_open():
    desk = make_desk()
    p1, p2, p3 = desk.project.pairs.order_by("position")
    work.postpone(work.assignment_for(desk.ann, p2))
    Assignment.objects.filter(annotator=desk.ann, pair__in=[p1, p3]).update(status="done")
    assert logged_in(desk.ann).get(url("pair-next", p3))["Location"] == url("pair-edit", p2)


def test_after_the_last_pair_next_leads_to_the_queue():
    desk = make_desk()
    Assignment.objects.filter(annotator=desk.ann).update(status="done")
    response = logged_in(desk.ann).get(url("pair-next", desk.pair))
    assert response["Location"] == reverse("annotator:queue", args=[desk.project.pk])
