"""Editing a phenomenon in place: new scope, keys, projection or type, validated as a whole."""

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import Phenomenon
from tests import make
from tests.make import logged_in, save, version

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk():
    return make.desk()


def own(desk, user=None):
    phenomenon, _ = annotation_services.add_phenomenon(
        desk.pair, user or desk.anna, desk.types["Diathesis"], scope1=[1], scope2=[0], base_version=None
    )
    return phenomenon


def test_scope_keys_and_type_change_in_place(desk):
    ph = own(desk)
    data = {"ptype": desk.types["Inflectional"].pk, "scope1": "1,2", "scope2": "0,1", "projection": "local"}
    response = save(logged_in(desk.anna), "phenomenon-update", desk.pair, desk.anna, data, ph.pk)
    assert response.status_code == 200
    ph.refresh_from_db()
    assert (ph.ptype.name, ph.scope1, ph.scope2, ph.projection, ph.version) == (
        "Inflectional",
        [1, 2],
        [0, 1],
        "local",
        2,
    )


def test_invalid_edit_keeps_the_phenomenon_and_says_why(desk):
    ph = own(desk)
    data = {"ptype": desk.types["Inflectional"].pk, "scope1": "1", "scope2": "0"}
    response = save(logged_in(desk.anna), "phenomenon-update", desk.pair, desk.anna, data, ph.pk)
    assert response.status_code == 422 and "requires a projection" in response.content.decode()
    ph.refresh_from_db()
    assert ph.ptype.name == "Diathesis"


def test_another_annotators_phenomenon_is_not_found(desk):
    bobs = own(desk, desk.ben)
    data = {"ptype": desk.types["Diathesis"].pk, "scope1": "2", "scope2": "0"}
    response = save(logged_in(desk.anna), "phenomenon-update", desk.pair, desk.anna, data, bobs.pk)
    assert response.status_code == 404
    assert Phenomenon.objects.get(pk=bobs.pk).scope1 == [1]


def test_edit_based_on_an_old_version_conflicts(desk):
    ph = own(desk)
    stale = version(desk.pair, desk.anna)
    annotation_services.set_comment(desk.pair, desk.anna, "other tab", base_version=stale)
    data = {"ptype": desk.types["Diathesis"].pk, "scope1": "2", "scope2": "0", "base_version": stale}
    response = save(logged_in(desk.anna), "phenomenon-update", desk.pair, desk.anna, data, ph.pk)
    assert response.status_code == 409
    ph.refresh_from_db()
    assert ph.scope1 == [1]
