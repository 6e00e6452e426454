"""Step 1 page: the paraphrased sentences alone, never the original."""

import html

import pytest
from django.urls import reverse

from annotator.evaluation import services as evaluation
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    cast = make.cast()
    rater, other, lead = cast.anna, cast.ben, cast.lead
    project = make.evaluation_project(raters=(rater, other), lead=lead)
    unit = project.units.get()
    return project, unit, rater, other, lead


def url(unit):
    return reverse("annotator:unit-grammaticality", args=[unit.project_id, unit.pk])


def test_page_shows_paraphrases_and_not_the_original_anywhere_in_the_html(client, world):
    _, unit, rater, _, _ = world
    client.force_login(rater)
    response = client.get(url(unit))
    assert response.status_code == 200
    body = response.content.decode()
    for item in unit.items.all():
        assert item.paraphrase in body
    for text in (unit.source_sentence, html.escape(unit.source_sentence), unit.phrase, "put off"):
        assert text not in body
    assert "Is the sentence grammatical?" in body


def test_role_matrix(client, world):
    project, unit, rater, _, lead = world
    outsider = make.cast().outsider
    staff = make.cast().admin
    anonymous = client.get(url(unit))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    for user, status in ((outsider, 404), (lead, 403), (staff, 403), (rater, 200)):
        client.force_login(user)
        assert client.get(url(unit)).status_code == status, user
    other_project = make.evaluation_project("Other", raters=(make.user("x"),))
    client.force_login(rater)
    foreign = other_project.units.get()
    assert (
        client.get(reverse("annotator:unit-grammaticality", args=[project.pk, foreign.pk])).status_code == 404
    )


def test_rater_never_sees_another_raters_labels(client, world):
    _, unit, rater, other, _ = world
    for item in unit.items.all():
        evaluation.record_judgement(item, other, "grammaticality", label="Irredeemable")
    client.force_login(rater)
    body = client.get(url(unit)).content.decode()
    items = body[body.index('<ol class="items">') : body.index("</ol>", body.index('<ol class="items">'))]
    assert "Irredeemable" not in items  # (the guide beside the items names every label)
    assert items.count('data-question="grammatical"') == 3  # each sentence still waits for this rater


def test_after_submission_the_page_moves_on_to_meaning(client, world):
    _, unit, rater, _, _ = world
    for item in unit.items.all():
        evaluation.record_judgement(item, rater, "grammaticality", label="Perfect")
    evaluation.submit_grammaticality(unit, rater)
    client.force_login(rater)
    response = client.get(url(unit))
    assert response.status_code == 302
    assert response["Location"] == reverse("annotator:unit-meaning", args=[unit.project_id, unit.pk])


def test_htmx_request_for_unit_actions_gets_the_partial(client, world):
    _, unit, rater, _, _ = world
    evaluation.record_judgement(unit.items.first(), rater, "grammaticality", label="Perfect")
    client.force_login(rater)
    response = client.get(url(unit), headers={"HX-Request": "true", "HX-Target": "unit-actions"})
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="unit-actions"') and "<html" not in body
    assert "<strong>1</strong> of 3 sentences judged" in body


def test_page_query_count_does_not_grow_with_items(client, world, django_assert_max_num_queries):
    project, unit, rater, _, _ = world
    big = make.unit(project, "u2", [(f"e{k}", f"word{k}", "lex") for k in range(12)])
    evaluation.assign_units(project, [rater], r=1, units=[big])
    for item in list(big.items.all())[:6]:
        evaluation.record_judgement(item, rater, "grammaticality", label="Awkward")
    client.force_login(rater)
    with django_assert_max_num_queries(12):
        assert client.get(url(big)).status_code == 200
