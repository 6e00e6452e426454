"""Postpone: the pair is put aside and the editor moves on."""

import pytest

from annotator.models import Assignment
from tests import make
from tests.make import HTMX, logged_in, url

pytestmark = pytest.mark.django_db


def test_postponed_pair_is_marked_and_the_editor_is_sent_to_the_next_pair():
    desk = make.desk()
    p1, p2, _ = desk.project.pairs.order_by("position")
    response = logged_in(desk.anna).post(url("pair-postpone", p1), **HTMX)
    assert response.status_code == 200 and response["HX-Redirect"] == url("pair-edit", p2)
    assert Assignment.objects.get(annotator=desk.anna, pair=p1).status == "postponed"
    assert Assignment.objects.get(annotator=desk.ben, pair=p1).status == "todo"


def test_without_javascript_postpone_redirects():
    desk = make.desk()
    p1, p2, _ = desk.project.pairs.order_by("position")
    assert logged_in(desk.anna).post(url("pair-postpone", p1))["Location"] == url("pair-edit", p2)
