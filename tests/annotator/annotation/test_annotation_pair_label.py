"""Saving the pair label: version-checked, answered with the partial and the new version."""

import json

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import AnnotationHistory, PairLabel
from tests import make
from tests.make import logged_in, save, url, version

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk():
    return make.desk()


def test_htmx_save_stores_the_label_and_answers_with_the_partial_and_new_version(desk):
    client = logged_in(desk.anna)
    save(client, "link-accept", desk.pair, desk.anna, {})  # the sheet exists
    before = version(desk.pair, desk.anna)
    response = save(client, "pair-label", desk.pair, desk.anna, {"label": "paraphrase"})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<form id="pair-label"') and 'value="paraphrase" checked' in html
    trigger = json.loads(response["HX-Trigger"])
    assert trigger["sheet-saved"]["version"] == before + 1 == version(desk.pair, desk.anna)
    assert PairLabel.objects.get(pair=desk.pair, annotator=desk.anna).label == "paraphrase"
    assert AnnotationHistory.objects.filter(
        pair=desk.pair, owner=desk.anna, after={"label": "paraphrase"}
    ).exists()


def test_stale_version_gets_the_conflict_message_and_changes_nothing(desk):
    client = logged_in(desk.anna)
    stale = version(desk.pair, desk.anna)
    annotation_services.set_pair_label(desk.pair, desk.anna, "non_paraphrase", base_version=stale)
    response = client.post(
        url("pair-label", desk.pair), {"label": "paraphrase", "base_version": stale}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 409 and response["HX-Retarget"] == "#conflict"
    assert "changed in another tab or on another device" in response.content.decode()
    assert PairLabel.objects.get(pair=desk.pair, annotator=desk.anna).label == "non_paraphrase"


def test_unknown_label_gets_a_message_at_the_label(desk):
    response = save(logged_in(desk.anna), "pair-label", desk.pair, desk.anna, {"label": "maybe"})
    assert response.status_code == 422 and response["HX-Retarget"] == "#label-message"
    assert "Pair label:" in response.content.decode()


def test_missing_version_is_refused_with_a_message(desk):
    response = logged_in(desk.anna).post(
        url("pair-label", desk.pair), {"label": "paraphrase"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422 and "which version" in response.content.decode()


def test_plain_form_post_redirects_back_to_the_page(desk):
    client = logged_in(desk.anna)
    response = client.post(url("pair-label", desk.pair), {"label": "paraphrase", "base_version": 0})
    assert response.status_code == 302 and response["Location"] == url("pair-edit", desk.pair)


def test_labelling_paraphrase_opens_phenomena_in_paraphrases_only_projects():
    desk = make.desk(phenomena_for="paraphrases")
    html = save(
        logged_in(desk.anna), "pair-label", desk.pair, desk.anna, {"label": "paraphrase"}
    ).content.decode()
    assert 'id="phenomena" class="phenomena" data-open="1" hx-swap-oob="true"' in html


def test_save_query_count_is_constant(desk, django_assert_num_queries):
    client = logged_in(desk.anna)
    save(client, "link-accept", desk.pair, desk.anna, {})  # the sheet exists
    v = version(desk.pair, desk.anna)
    # session, user, the pair with its project and the access facts (one statement), the savepoint, the
    # sheet's version bump, the UPDATE that puts a to-do assignment in progress, the history row, the
    # label, the one statement that moves the agreement sums by the label's difference
    # (annotator.agreement.sums), the project's change mark, the release, the sheet read for the
    # partial, and the phenomena module sent back with it because the label may change its suggestions
    # (the annotator's phenomena, the project's recommender run): 14
    with django_assert_num_queries(14):
        response = client.post(
            url("pair-label", desk.pair), {"label": "paraphrase", "base_version": v}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
