"""Removing a phrase alignment from the list."""

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import PhraseAlignment
from tests import make
from tests.make import logged_in, save

pytestmark = pytest.mark.django_db


def test_own_alignment_is_removed_and_the_nodes_are_no_longer_grey():
    desk = make.desk(layer_phrase_alignment=True)
    alignment, _ = annotation_services.add_phrase_alignment(desk.pair, desk.anna, 1, 1, base_version=None)
    response = save(logged_in(desk.anna), "phrase-alignment-remove", desk.pair, desk.anna, {}, alignment.pk)
    assert response.status_code == 200 and 'class="node aligned"' not in response.content.decode()
    assert not PhraseAlignment.objects.exists()


def test_another_annotators_alignment_is_not_found():
    desk = make.desk(layer_phrase_alignment=True)
    bobs, _ = annotation_services.add_phrase_alignment(desk.pair, desk.ben, 1, 1, base_version=None)
    assert (
        save(logged_in(desk.anna), "phrase-alignment-remove", desk.pair, desk.anna, {}, bobs.pk).status_code
        == 404
    )
    assert PhraseAlignment.objects.filter(pk=bobs.pk).exists()
