"""The annotator's queue page: counts, progress bar, their own pairs in queue order, where to continue."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.corpus import projects
from annotator.models import Assignment
from tests import make
from tests.make import logged_in, url

pytestmark = pytest.mark.django_db


def queue_url(project):
    return reverse("annotator:queue", args=[project.pk])


def test_annotator_sees_counts_progress_and_their_pairs_in_order():
    desk = make.desk()
    pairs = list(desk.project.pairs.order_by("position"))
    client = logged_in(desk.anna)
    client.post(url("pair-postpone", pairs[1]))
    Assignment.objects.filter(annotator=desk.anna, pair=pairs[2]).update(status="done")
    html = client.get(queue_url(desk.project)).content.decode()
    assert "<strong>1</strong> done · <strong>1</strong> to do · <strong>1</strong> postponed" in html
    assert 'data-width="33"' in html
    assert html.index(">p1<") < html.index(">p2<") < html.index(">p3<")


def test_continue_goes_to_the_first_open_pair_and_postponed_ones_come_last():
    desk = make.desk()
    pairs = list(desk.project.pairs.order_by("position"))
    client = logged_in(desk.anna)
    client.post(url("pair-postpone", pairs[0]))
    response = client.get(queue_url(desk.project))
    assert response.context["next_id"] == pairs[1].pk


def test_when_everything_is_done_the_queue_says_so():
    desk = make.desk()
    Assignment.objects.filter(annotator=desk.anna).update(status="done")
    html = logged_in(desk.anna).get(queue_url(desk.project)).content.decode()
    assert "All pairs done" in html and 'id="continue"' not in html


def test_queue_lists_only_the_annotators_own_assignments():
    desk = make.desk()
    bobs = projects.add_pair(desk.project, "bob-only", tokens1=["a"], tokens2=["b"])
    projects.assign_pairs(desk.project, [desk.ben], [bobs])
    response = logged_in(desk.anna).get(queue_url(desk.project))
    assert {a.annotator_id for a in response.context["rows"]} == {desk.anna.pk}
    assert "bob-only" not in response.content.decode()


def test_queue_query_count_does_not_grow_with_the_number_of_pairs():
    desk = make.desk()
    client = logged_in(desk.anna)
    with CaptureQueriesContext(connection) as small:
        client.get(queue_url(desk.project))
    more = [projects.add_pair(desk.project, f"more{n}", tokens1=["a"], tokens2=["b"]) for n in range(12)]
    projects.assign_pairs(desk.project, [desk.anna], more)
    with CaptureQueriesContext(connection) as large:
        client.get(queue_url(desk.project))
    assert len(small) == len(large)


def test_the_button_says_start_until_the_first_save_and_continue_after():
    desk = make.desk()
    client = logged_in(desk.anna)
    assert "Start annotating" in client.get(queue_url(desk.project)).content.decode()
    client.get(url("pair-edit", desk.pair))  # only looking
    assert "Start annotating" in client.get(queue_url(desk.project)).content.decode()
    annotation_services.set_pair_label(desk.pair, desk.anna, "paraphrase", base_version=None)
    assert "Continue ›" in client.get(queue_url(desk.project)).content.decode()
