"""Mark done runs the completeness checks and says what is missing."""

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import Assignment
from tests import make
from tests.make import HTMX, logged_in, url

pytestmark = pytest.mark.django_db


def status(desk):
    return Assignment.objects.get(annotator=desk.anna, pair=desk.pair).status


def test_pair_without_label_is_not_done_and_the_page_says_why():
    desk = make.desk()
    response = logged_in(desk.anna).post(url("pair-done", desk.pair), **HTMX)
    assert response.status_code == 422 and response["HX-Retarget"] == "#done-message"
    assert "Choose the pair label first" in response.content.decode()
    assert status(desk) == "todo"


def test_paraphrase_without_phenomena_is_not_done():
    desk = make.desk()
    annotation_services.set_pair_label(desk.pair, desk.anna, "paraphrase", base_version=None)
    response = logged_in(desk.anna).post(url("pair-done", desk.pair), **HTMX)
    assert "Annotate at least one phenomenon" in response.content.decode()


def test_non_paraphrase_with_leftover_phenomena_in_a_paraphrases_only_project_is_not_done():
    desk = make.desk(phenomena_for="paraphrases")
    annotation_services.set_pair_label(desk.pair, desk.anna, "paraphrase", base_version=None)
    annotation_services.add_phenomenon(
        desk.pair, desk.anna, desk.types["Diathesis"], scope1=[1], scope2=[0], base_version=None
    )
    annotation_services.set_pair_label(desk.pair, desk.anna, "non_paraphrase", base_version=None)
    response = logged_in(desk.anna).post(url("pair-done", desk.pair), **HTMX)
    assert "labelled non-paraphrase but has 1 phenomena" in response.content.decode()


def test_complete_pair_is_done_and_the_editor_moves_on():
    desk = make.desk(phenomena_for="paraphrases")
    annotation_services.set_pair_label(desk.pair, desk.anna, "non_paraphrase", base_version=None)
    response = logged_in(desk.anna).post(url("pair-done", desk.pair), **HTMX)
    second = desk.project.pairs.order_by("position")[1]
    assert response.status_code == 200 and response["HX-Redirect"] == url("pair-edit", second)
    assignment = Assignment.objects.get(annotator=desk.anna, pair=desk.pair)
    assert assignment.status == "done" and assignment.finished_at is not None
