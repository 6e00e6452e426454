"""Removing a phrase alignment from the list."""

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import PhraseAlignment
from tests.annotator.editor_helpers import fast_passwords as fast_passwords
from tests.annotator.editor_helpers import logged_in, make_desk, save

pytestmark = pytest.mark.django_db


def test_own_alignment_is_removed_and_the_nodes_are_no_longer_grey():
    desk = make_desk(layer_phrase_alignment=True)
    alignment, _ = annotation_services.add_phrase_alignment(desk.pair, desk.ann, 1, 1, base_version=None)
    response = save(logged_in(desk.ann), "phrase-alignment-remove", desk.pair, desk.ann, {}, alignment.pk)
    assert response.status_code == 200 and 'class="node aligned"' not in response.content.decode()
    assert not PhraseAlignment.objects.exists()


def test_another_annotators_alignment_is_not_found():
    desk = make_desk(layer_phrase_alignment=True)
    bobs, _ = annotation_services.add_phrase_alignment(desk.pair, desk.bob, 1, 1, base_version=None)
    assert (
        save(logged_in(desk.ann), "phrase-alignment-remove", desk.pair, desk.ann, {}, bobs.pk).status_code
        == 404
    )
    assert PhraseAlignment.objects.filter(pk=bobs.pk).exists()
