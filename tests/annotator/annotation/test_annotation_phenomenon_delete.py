"""Deleting a phenomenon from the list."""

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import AnnotationHistory, Phenomenon
from tests import make
from tests.make import logged_in, save, url

pytestmark = pytest.mark.django_db


def add(desk, user):
    ph, _ = annotation_services.add_phenomenon(
        desk.pair, user, desk.types["Diathesis"], scope1=[1], scope2=[0], base_version=None
    )
    return ph


def test_own_phenomenon_is_deleted_with_history_and_the_list_updates():
    desk = make.desk()
    ph = add(desk, desk.anna)
    response = save(logged_in(desk.anna), "phenomenon-delete", desk.pair, desk.anna, {}, ph.pk)
    assert response.status_code == 200 and "Diathesis</strong>" not in response.content.decode()
    assert not Phenomenon.objects.filter(pk=ph.pk).exists()
    assert AnnotationHistory.objects.filter(model="phenomenon", object_id=ph.pk, action="delete").exists()


def test_another_annotators_phenomenon_cannot_be_deleted():
    desk = make.desk()
    bobs = add(desk, desk.ben)
    assert (
        save(logged_in(desk.anna), "phenomenon-delete", desk.pair, desk.anna, {}, bobs.pk).status_code == 404
    )
    assert Phenomenon.objects.filter(pk=bobs.pk).exists()


def test_list_items_carry_the_update_and_delete_urls_of_their_phenomenon():
    desk = make.desk()
    ph = add(desk, desk.anna)
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert f'data-update-url="{url("phenomenon-update", desk.pair, ph.pk)}"' in html
    assert f'action="{url("phenomenon-delete", desk.pair, ph.pk)}"' in html
