"""Saving the per-pair comment (sent while typing): stored, answered with a small "Saved" partial."""

import pytest

from annotator.models import PairLabel
from tests import make
from tests.make import logged_in, save, url

pytestmark = pytest.mark.django_db


def test_comment_is_stored_and_the_answer_does_not_replace_the_textarea():
    desk = make.desk()
    response = save(
        logged_in(desk.anna), "pair-comment", desk.pair, desk.anna, {"comment": "  odd tokenization "}
    )
    html = response.content.decode()
    assert (
        response.status_code == 200
        and html.lstrip().startswith('<span id="comment-status"')
        and "Saved" in html
    )
    assert "<textarea" not in html
    assert PairLabel.objects.get(pair=desk.pair, annotator=desk.anna).comment == "  odd tokenization "


def test_stale_comment_is_refused_not_overwritten():
    desk = make.desk()
    client = logged_in(desk.anna)
    save(client, "pair-comment", desk.pair, desk.anna, {"comment": "first"})
    response = client.post(
        url("pair-comment", desk.pair), {"comment": "second", "base_version": 1}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 409
    assert PairLabel.objects.get(pair=desk.pair, annotator=desk.anna).comment == "first"


def test_too_long_comment_gets_a_message_at_the_comment():
    desk = make.desk()
    response = save(logged_in(desk.anna), "pair-comment", desk.pair, desk.anna, {"comment": "x" * 10001})
    assert response.status_code == 422 and response["HX-Retarget"] == "#comment-message"
