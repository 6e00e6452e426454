"""Adjudication: the gold layer built from the annotators' versions (services and pages)."""

import json

import pytest
from django.urls import reverse

from annotator.agreement.document import project_document
from annotator.annotation.services import ConflictError
from annotator.leadtools import adjudication
from annotator.models import AlignmentLink, AnnotationHistory, PairLabel, Phenomenon
from tests import make


def team_at_p3():
    w = make.team()
    w["pair"] = w["project"].pairs.get(source_id="p3")
    return w


@pytest.fixture(scope="module")
def team(module_world):
    return module_world(team_at_p3)


@pytest.fixture
def world(team, db):
    return make.fresh(team)


def gold(pair):
    return {
        "label": PairLabel.objects.filter(pair=pair, is_gold=True).values_list("label", flat=True).first(),
        "phenomena": sorted(
            Phenomenon.objects.filter(pair=pair, is_gold=True).values_list("ptype__name", "projection")
        ),
        "links": sorted(AlignmentLink.objects.filter(pair=pair, is_gold=True).values_list("i", "j")),
    }


# ---- services ------------------------------------------------------------------------------------------


def test_take_version_copies_the_annotators_work_as_gold_owned_by_the_lead(world):
    pair, lead = world["pair"], world["lead"]
    version = adjudication.take_version(pair, world["ben"], lead, base_version=0)
    assert gold(pair) == {
        "label": "paraphrase",
        "phenomena": [("Semantics", "local")],
        "links": [(2, 1), (4, 2), (5, 3)],
    }
    assert set(PairLabel.objects.filter(pair=pair, is_gold=True).values_list("annotator", flat=True)) == {
        lead.pk
    }
    assert version == adjudication.versions(pair, [])[1].sheet_version
    actors = set(AnnotationHistory.objects.filter(pair=pair, owner=lead).values_list("actor", flat=True))
    assert actors == {lead.pk}


def test_taking_another_version_replaces_the_gold(world):
    pair, lead = world["pair"], world["lead"]
    v = adjudication.take_version(pair, world["ben"], lead, base_version=0)
    adjudication.take_version(pair, world["cat"], lead, base_version=v)
    assert gold(pair)["phenomena"] == [("Same polarity", "global")]
    assert gold(pair)["links"] == sorted(make.LINKS)


def test_merge_adds_selected_rows_and_skips_what_gold_has(world):
    pair, lead = world["pair"], world["lead"]
    v = adjudication.take_version(pair, world["anna"], lead, base_version=0)
    ben_semantics = Phenomenon.objects.get(pair=pair, annotator=world["ben"])
    cat_same = Phenomenon.objects.get(pair=pair, annotator=world["cat"])
    ann_same = Phenomenon.objects.get(pair=pair, annotator=world["anna"])
    adjudication.merge_into_gold(
        pair, lead, phenomenon_ids=[ben_semantics.pk, cat_same.pk, ann_same.pk], base_version=v
    )
    assert gold(pair)["phenomena"] == [
        ("Same polarity", "global"),
        ("Same polarity", "local"),
        ("Semantics", "local"),
    ]


def test_merge_can_take_a_label_and_links_from_another_annotator(world):
    pair, lead = world["project"].pairs.get(source_id="p2"), world["lead"]
    link = AlignmentLink.objects.filter(pair=pair, annotator=world["anna"]).first()
    adjudication.merge_into_gold(pair, lead, link_ids=[link.pk], label_from=world["ben"], base_version=0)
    assert gold(pair) == {"label": "non_paraphrase", "phenomena": [], "links": [(link.i, link.j)]}


def test_merge_refuses_rows_of_another_pair(world):
    from django.core.exceptions import ValidationError

    other = Phenomenon.objects.filter(pair__source_id="p1").first()
    with pytest.raises(ValidationError) as err:
        adjudication.merge_into_gold(
            world["pair"], world["lead"], phenomenon_ids=[other.pk], base_version=None
        )
    assert "not an annotator's row of this pair" in str(err.value)


def test_stale_gold_version_gets_a_conflict_and_changes_nothing(world):
    pair, lead = world["pair"], world["lead"]
    v = adjudication.take_version(pair, world["anna"], lead, base_version=0)
    adjudication.set_gold_label(pair, lead, "non_paraphrase", base_version=v)
    with pytest.raises(ConflictError):
        adjudication.take_version(pair, world["ben"], lead, base_version=v)
    assert gold(pair)["phenomena"] == [("Same polarity", "local")]


def test_a_second_lead_edits_the_same_gold_sheet(world):
    from annotator.projects.roles import grant_role

    pair = world["pair"]
    second = make.user("lead2")
    grant_role(world["project"], second, "lead")
    v = adjudication.take_version(pair, world["anna"], world["lead"], base_version=0)
    adjudication.set_gold_label(pair, second, "non_paraphrase", base_version=v)
    assert PairLabel.objects.filter(pair=pair, is_gold=True).count() == 1
    assert AnnotationHistory.objects.filter(pair=pair, actor=second).exists()


def test_edits_are_validated_like_the_editor(world):
    from django.core.exceptions import ValidationError

    pair, lead = world["pair"], world["lead"]
    v = adjudication.take_version(pair, world["anna"], lead, base_version=0)
    x = Phenomenon.objects.get(pair=pair, is_gold=True)
    with pytest.raises(ValidationError) as err:
        adjudication.update_gold_phenomenon(pair, lead, x.pk, base_version=v, scope1=[42])
    assert "outside member 1" in err.value.message_dict["scope1"][0]
    v = adjudication.update_gold_phenomenon(pair, lead, x.pk, base_version=v, scope1=[2, 3])
    assert Phenomenon.objects.get(pk=x.pk).scope1 == [2, 3]
    link = AlignmentLink.objects.filter(pair=pair, is_gold=True).first()
    v = adjudication.remove_gold_link(pair, lead, link.pk, base_version=v)
    v = adjudication.set_gold_link(pair, lead, 0, 0, sure=False, base_version=v)
    assert (0, 0) in gold(pair)["links"] and (link.i, link.j) not in gold(pair)["links"]


def test_gold_never_enters_agreement(world):
    before = project_document(world["project"])
    adjudication.take_version(world["pair"], world["ben"], world["lead"], base_version=0)
    assert project_document(world["project"]) == before


# ---- pages ----------------------------------------------------------------------------------------------


def url(world, name="annotator:adjudicate", *extra):
    return reverse(name, args=[world["project"].pk, world["pair"].pk, *extra])


HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "adjudication"}


def test_role_matrix(client, world):
    assert client.get(url(world)).status_code == 302
    client.force_login(world["anna"])
    assert client.get(url(world)).status_code == 403
    response = client.post(
        url(world, "annotator:adjudicate-take"), {"source": world["anna"].pk, "base_version": 0}
    )
    assert response.status_code == 403 and not PairLabel.objects.filter(is_gold=True).exists()
    client.force_login(world["other_lead"])
    assert client.get(url(world)).status_code == 404
    client.force_login(world["lead"])
    assert client.get(url(world)).status_code == 200
    client.force_login(world["admin"])
    assert client.get(url(world)).status_code == 200


def test_page_shows_every_annotators_version_and_the_empty_gold(client, world):
    client.force_login(world["lead"])
    body = client.get(url(world)).content.decode()
    for name in ("anna", "ben", "cat"):
        assert f'data-annotator="{name}"' in body
    assert "Semantics" in body and 'id="gold"' in body and "none yet" in body


def test_take_through_htmx_answers_the_adjudication_partial(client, world):
    client.force_login(world["lead"])
    response = client.post(
        url(world, "annotator:adjudicate-take"), {"source": world["cat"].pk, "base_version": 0}, **HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200 and body.lstrip().startswith('<div id="adjudication"')
    assert json.loads(response["HX-Trigger"]) == {"gold-saved": {}} and "in gold" in body
    assert gold(world["pair"])["phenomena"] == [("Same polarity", "global")]


def test_merge_from_the_page(client, world):
    client.force_login(world["lead"])
    semantics = Phenomenon.objects.get(pair=world["pair"], annotator=world["ben"])
    response = client.post(
        url(world, "annotator:adjudicate-merge"),
        {"phenomena": [semantics.pk], "label_from": world["anna"].pk, "base_version": 0},
        **HTMX,
    )
    assert response.status_code == 200
    assert gold(world["pair"]) == {"label": "paraphrase", "phenomena": [("Semantics", "local")], "links": []}


def test_stale_page_gets_409_with_the_message_and_the_current_state(client, world):
    client.force_login(world["lead"])
    client.post(
        url(world, "annotator:adjudicate-take"), {"source": world["anna"].pk, "base_version": 0}, **HTMX
    )
    response = client.post(
        url(world, "annotator:adjudicate-take"), {"source": world["ben"].pk, "base_version": 0}, **HTMX
    )
    assert response.status_code == 409 and "changed by someone else" in response.content.decode()
    assert gold(world["pair"])["phenomena"] == [("Same polarity", "local")]


def test_invalid_phenomenon_answers_422_naming_the_field(client, world):
    client.force_login(world["lead"])
    ptype = make.types(world["project"])["Same polarity"]
    response = client.post(
        url(world, "annotator:adjudicate-phenomenon-add"),
        {"ptype": ptype.pk, "scope1": "2", "scope2": "1", "projection": "", "base_version": 0},
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 422 and "projection" in body and "requires a projection" in body
    assert not Phenomenon.objects.filter(is_gold=True).exists()


def test_add_link_and_remove_phenomenon_from_the_page(client, world):
    client.force_login(world["lead"])
    client.post(
        url(world, "annotator:adjudicate-take"), {"source": world["anna"].pk, "base_version": 0}, **HTMX
    )
    version = PairLabel.objects.get(is_gold=True).version
    client.post(
        url(world, "annotator:adjudicate-link-set"),
        {"i": 0, "j": 0, "sure": "0", "base_version": version},
        **HTMX,
    )
    x = Phenomenon.objects.get(is_gold=True)
    version = PairLabel.objects.get(is_gold=True).version
    response = client.post(
        url(world, "annotator:adjudicate-phenomenon-remove", x.pk), {"base_version": version}, **HTMX
    )
    assert response.status_code == 200
    assert gold(world["pair"])["phenomena"] == [] and (0, 0) in gold(world["pair"])["links"]


def test_without_htmx_a_change_redirects_back(client, world):
    client.force_login(world["lead"])
    response = client.post(
        url(world, "annotator:adjudicate-label"), {"label": "paraphrase", "base_version": 0}
    )
    assert response.status_code == 302 and response["Location"] == url(world)
    assert gold(world["pair"])["label"] == "paraphrase"


def test_page_query_count(client, world, django_assert_max_num_queries):
    client.force_login(world["lead"])
    with django_assert_max_num_queries(20):
        client.get(url(world))
