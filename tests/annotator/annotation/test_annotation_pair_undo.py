"""Undo through the page: the last change is reverted and the whole workspace comes back."""

import json

import pytest

from annotator.annotation import services as annotation_services
from annotator.models import PairLabel, Phenomenon
from tests import make
from tests.make import logged_in, save, url, version

pytestmark = pytest.mark.django_db


def test_undo_reverts_the_last_change_and_answers_with_the_workspace():
    desk = make.desk()
    client = logged_in(desk.anna)
    save(client, "pair-label", desk.pair, desk.anna, {"label": "paraphrase"})
    save(
        client,
        "phenomenon-create",
        desk.pair,
        desk.anna,
        {"ptype": desk.types["Diathesis"].pk, "scope1": "1", "scope2": "0"},
    )
    response = save(client, "pair-undo", desk.pair, desk.anna, {})
    assert response.status_code == 200 and response.content.decode().lstrip().startswith(
        '<div id="workspace"'
    )
    assert json.loads(response["HX-Trigger"])["sheet-undone"] == {"description": "the new phenomenon"}
    assert not Phenomenon.objects.exists()
    save(client, "pair-undo", desk.pair, desk.anna, {})
    assert PairLabel.objects.get(annotator=desk.anna).label == ""


def test_nothing_to_undo_is_a_message():
    desk = make.desk(layer_word_alignment=False)
    response = save(logged_in(desk.anna), "pair-undo", desk.pair, desk.anna, {})
    assert response.status_code == 422 and "Nothing to undo on this pair." in response.content.decode()


def test_undo_from_a_stale_tab_conflicts():
    desk = make.desk()
    client = logged_in(desk.anna)
    client.get(url("pair-edit", desk.pair))
    stale = version(desk.pair, desk.anna)
    annotation_services.set_pair_label(desk.pair, desk.anna, "paraphrase", base_version=stale)
    response = client.post(url("pair-undo", desk.pair), {"base_version": stale}, HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert PairLabel.objects.get(annotator=desk.anna).label == "paraphrase"


def test_redo_brings_back_the_undone_change_and_answers_with_the_workspace():
    desk = make.desk()
    client = make.logged_in(desk.anna)
    make.save(
        client,
        "phenomenon-create",
        desk.pair,
        desk.anna,
        {"ptype": desk.types["Diathesis"].pk, "scope1": "1", "scope2": "0"},
    )
    make.save(client, "pair-undo", desk.pair, desk.anna, {})
    response = make.save(client, "pair-redo", desk.pair, desk.anna, {})
    assert response.status_code == 200 and response.content.decode().lstrip().startswith(
        '<div id="workspace"'
    )
    assert json.loads(response["HX-Trigger"])["sheet-redone"] == {"description": "the new phenomenon"}
    assert Phenomenon.objects.filter(annotator=desk.anna).count() == 1


def test_nothing_to_redo_is_a_message():
    desk = make.desk(layer_word_alignment=False)
    client = make.logged_in(desk.anna)
    make.save(client, "pair-label", desk.pair, desk.anna, {"label": "paraphrase"})
    response = make.save(client, "pair-redo", desk.pair, desk.anna, {})
    assert response.status_code == 422 and "Nothing to redo on this pair." in response.content.decode()
