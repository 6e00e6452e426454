"""Postpone: the pair is put aside and the editor moves on."""

import pytest
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.models import Assignment
from tests import make
from tests.make import HTMX, logged_in, url

pytestmark = pytest.mark.django_db


def test_postponed_pair_is_marked_and_the_editor_is_sent_to_the_next_pair():
    desk = make.desk()
    p1, p2, _ = desk.project.pairs.order_by("position")
    response = logged_in(desk.anna).post(url("pair-postpone", p1), **HTMX)
    assert response.status_code == 200 and response["HX-Redirect"] == url("pair-edit", p2)
    # Kept in the session: the assignment is unchanged, the queue shows the pair postponed.
    assert Assignment.objects.get(annotator=desk.anna, pair=p1).status == "todo"
    queue = logged_in(desk.anna).get(reverse("annotator:queue", args=[desk.project.pk]))
    assert queue.context["counts"].postponed == 0  # another session (device) has its own
    client = logged_in(desk.anna)
    client.post(url("pair-postpone", p1))
    assert client.get(reverse("annotator:queue", args=[desk.project.pk])).context["counts"].postponed == 1


def test_opening_a_postponed_pair_takes_it_back_and_saving_puts_it_in_progress():
    desk = make.desk()
    p1, p2, p3 = desk.project.pairs.order_by("position")
    client = logged_in(desk.anna)
    client.post(url("pair-postpone", p1))
    client.get(url("pair-edit", p1))
    assert client.get(reverse("annotator:queue", args=[desk.project.pk])).context["counts"].postponed == 0
    assert client.get(url("pair-next", p3))["Location"] == url("pair-edit", p1)  # open again, so first
    annotation_services.set_comment(p1, desk.anna, "back to it", base_version=None)
    assert Assignment.objects.get(annotator=desk.anna, pair=p1).status == "in_progress"


def test_without_javascript_postpone_redirects():
    desk = make.desk()
    p1, p2, _ = desk.project.pairs.order_by("position")
    assert logged_in(desk.anna).post(url("pair-postpone", p1))["Location"] == url("pair-edit", p2)
