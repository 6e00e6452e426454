"""Saving the per-pair comment (sent while typing): stored, answered with a small "Saved" partial."""

import pytest

from annotator.models import PairLabel
from tests.annotator.editor_helpers import fast_passwords as fast_passwords
from tests.annotator.editor_helpers import logged_in, make_desk, save, url

pytestmark = pytest.mark.django_db


def test_comment_is_stored_and_the_answer_does_not_replace_the_textarea():
    desk = make_desk()
    response = save(
        logged_in(desk.ann), "pair-comment", desk.pair, desk.ann, {"comment": "  odd tokenization "}
    )
    html = response.content.decode()
    assert (
        response.status_code == 200
        and html.lstrip().startswith('<span id="comment-status"')
        and "Saved" in html
    )
    assert "<textarea" not in html
    assert PairLabel.objects.get(pair=desk.pair, annotator=desk.ann).comment == "  odd tokenization "


def test_stale_comment_is_refused_not_overwritten():
    desk = make_desk()
    client = logged_in(desk.ann)
    save(client, "pair-comment", desk.pair, desk.ann, {"comment": "first"})
    response = client.post(
        url("pair-comment", desk.pair), {"comment": "second", "base_version": 1}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 409
    assert PairLabel.objects.get(pair=desk.pair, annotator=desk.ann).comment == "first"


def test_too_long_comment_gets_a_message_at_the_comment():
    desk = make_desk()
    response = save(logged_in(desk.ann), "pair-comment", desk.pair, desk.ann, {"comment": "x" * 10001})
    assert response.status_code == 422 and response["HX-Retarget"] == "#comment-message"
