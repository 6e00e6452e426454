"""Creating a phenomenon from the selected tokens and a palette type; each broken rule is a message."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.core.tagsets import ETPC_NAME
from annotator.models import AnnotationHistory, ParaphraseType, Phenomenon, Tagset
from tests import make
from tests.make import fill, logged_in, long_pair, save

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk():
    return make.desk()


def create(desk, **data):
    return save(logged_in(desk.anna), "phenomenon-create", desk.pair, desk.anna, data)


def test_discontinuous_phenomenon_with_keys_is_stored_and_listed(desk):
    diathesis = desk.types["Diathesis"]
    response = create(desk, ptype=diathesis.pk, scope1="4,1,2", scope2="0,2", key1="2", key2="")
    assert response.status_code == 200
    ph = Phenomenon.objects.get(pair=desk.pair, annotator=desk.anna)
    assert (ph.scope1, ph.scope2, ph.key1, ph.projection) == ([1, 2, 4], [0, 2], [2], "")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="phenomena"') and "film opened … Friday" in html
    assert 'id="members" class="members" hx-swap-oob="true"' in html and 'data-key1="2"' in html
    assert json.loads(response["HX-Trigger"])["phenomenon-saved"] == {"id": ph.pk}
    assert AnnotationHistory.objects.filter(model="phenomenon", object_id=ph.pk, action="create").exists()


def test_projection_is_stored_for_types_that_need_it(desk):
    create(desk, ptype=desk.types["Inflectional"].pk, scope1="2", scope2="1", projection="global")
    assert Phenomenon.objects.get().projection == "global"


def test_missing_projection_is_a_message_at_the_palette_and_nothing_is_saved(desk):
    response = create(desk, ptype=desk.types["Inflectional"].pk, scope1="2", scope2="1")
    assert response.status_code == 422 and response["HX-Retarget"] == "#phenomenon-message"
    assert "Inflectional requires a projection: choose local or global." in response.content.decode()
    assert not Phenomenon.objects.exists()


def test_keys_on_a_type_without_keys_are_refused(desk):
    response = create(
        desk, ptype=desk.types["Inflectional"].pk, scope1="2", scope2="1", projection="local", key1="2"
    )
    assert response.status_code == 422 and "takes no key elements" in response.content.decode()


def test_one_sided_scope_only_for_types_that_allow_it(desk):
    refused = create(desk, ptype=desk.types["Semantics"].pk, scope1="2", scope2="", projection="local")
    assert refused.status_code == 422 and "needs a scope in member 2 too" in refused.content.decode()
    addition = desk.types["Addition/deletion"]
    assert addition.scope_sides == ParaphraseType.ScopeSides.ONE
    both = create(desk, ptype=addition.pk, scope1="0", scope2="0", projection="local")
    assert both.status_code == 422 and "one member only" in both.content.decode()
    assert create(desk, ptype=addition.pk, scope1="0", scope2="", projection="local").status_code == 200


def test_token_outside_the_member_is_named(desk):
    response = create(desk, ptype=desk.types["Diathesis"].pk, scope1="1,31", scope2="0")
    assert "Token 31 is outside member 1, which has 6 tokens (0–5)." in response.content.decode()


def test_text_instead_of_token_numbers_is_named(desk):
    response = create(desk, ptype=desk.types["Diathesis"].pk, scope1="1,x", scope2="0")
    assert response.status_code == 422 and "&#x27;x&#x27; is not a token number." in response.content.decode()


def test_type_of_another_tagset_is_refused(desk):
    etpc_type = Tagset.objects.get(name=ETPC_NAME).types.first()
    response = create(desk, ptype=etpc_type.pk, scope1="1", scope2="0")
    assert response.status_code == 422 and "not in this project" in response.content.decode()


def test_paraphrases_only_project_refuses_phenomena_before_the_paraphrase_label():
    desk = make.desk(phenomena_for="paraphrases")
    response = create(desk, ptype=desk.types["Diathesis"].pk, scope1="1", scope2="0")
    assert response.status_code == 422 and "label the pair paraphrase first" in response.content.decode()


def test_save_query_count_does_not_grow_with_existing_work(desk):
    inflectional = desk.types["Inflectional"]
    small, large = long_pair(desk.project, (desk.anna,), n_tokens=8), long_pair(desk.project, (desk.anna,))
    fill(small, desk.anna, inflectional, n_phenomena=1, n_links=1)
    fill(large, desk.anna, inflectional, n_phenomena=20, n_links=40)
    client = logged_in(desk.anna)
    counts = []
    for pair in (small, large):
        data = {"ptype": inflectional.pk, "scope1": "0,3", "scope2": "1", "projection": "local"}
        with CaptureQueriesContext(connection) as queries:
            assert save(client, "phenomenon-create", pair, desk.anna, data).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
