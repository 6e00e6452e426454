"""REST API: evaluation units, their steps and judgements (the two-step evaluation task)."""

from __future__ import annotations

import pytest

from annotator.evaluation import services as evaluation
from annotator.models import Assignment, Judgement
from tests import make
from tests.make import api_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    cast = make.cast()
    lead, anna, ben = cast.lead, cast.anna, cast.ben
    project = make.evaluation_project("Eval", n_units=2, raters=(anna, ben), lead=lead)
    return project, lead, anna, ben


def _grammaticality(client, item, label="Perfect", base_version=0):
    body = {"item": item.pk, "step": "grammaticality", "label": label, "base_version": base_version}
    return client.post("/api/judgements/", body, format="json")


def test_rater_sees_no_original_before_submitting_grammaticality(setup):
    project, lead, anna, _ = setup
    client = api_client(anna)
    units = client.get(f"/api/units/?project={project.pk}").json()["results"]
    assert len(units) == 2 and all(u["source_sentence"] is None and u["phrase"] is None for u in units)
    assert make.SENTENCE not in client.get(f"/api/units/{units[0]['id']}/").content.decode()
    lead_view = api_client(lead).get(f"/api/units/{units[0]['id']}/").json()
    assert lead_view["source_sentence"] == make.SENTENCE


def test_two_steps_through_the_api(setup):
    project, _, anna, _ = setup
    unit = project.units.order_by("position").first()
    client = api_client(anna)
    early = client.post(f"/api/units/{unit.pk}/submit-grammaticality/")
    assert early.status_code == 400 and "missing" in early.json()["unit"][0]
    for item in unit.items.all():
        assert _grammaticality(client, item).status_code == 200
    submitted = client.post(f"/api/units/{unit.pk}/submit-grammaticality/")
    assert submitted.status_code == 200 and submitted.json()["step"] == "meaning"
    assert client.get(f"/api/units/{unit.pk}/").json()["source_sentence"] == make.SENTENCE
    late = _grammaticality(client, unit.items.first(), label="Awkward", base_version=1)
    assert late.status_code == 400 and "can no longer change" in late.json()["step"][0]
    for item in unit.items.all():
        body = {"item": item.pk, "step": "meaning", "label": "Equivalent", "base_version": 0}
        assert client.post("/api/judgements/", body, format="json").status_code == 200
    final = client.post(f"/api/units/{unit.pk}/finalize/")
    assert final.status_code == 200 and final.json()["step"] == "finalized"


def test_stale_judgement_version_is_409(setup):
    project, _, anna, _ = setup
    item = project.units.first().items.first()
    client = api_client(anna)
    assert _grammaticality(client, item).json()["version"] == 1
    assert _grammaticality(client, item, label="Awkward", base_version=1).json()["version"] == 2
    stale = _grammaticality(client, item, label="Perfect", base_version=1)
    assert stale.status_code == 409 and stale.json()["current_version"] == 2


def test_rater_never_receives_another_raters_judgements(setup):
    project, lead, anna, ben = setup
    item = project.units.first().items.first()
    evaluation.record_judgement(item, ben, "grammaticality", label="Irredeemable")
    mine = api_client(anna).get(f"/api/judgements/?project={project.pk}").json()["results"]
    assert mine == []
    judgement = Judgement.objects.get(rater=ben)
    assert api_client(anna).get(f"/api/judgements/{judgement.pk}/").status_code == 404
    everyone = api_client(lead).get(f"/api/judgements/?project={project.pk}").json()["results"]
    assert [j["label"] for j in everyone] == ["Irredeemable"]


def test_unassigned_unit_cannot_be_judged(setup):
    project, lead, anna, _ = setup
    unit = make.unit(project, "u-free")
    response = _grammaticality(api_client(anna), unit.items.first())
    assert response.status_code == 403
    assert api_client(lead).post(f"/api/units/{unit.pk}/postpone/").status_code == 403


def test_lead_creates_and_assigns_units(setup):
    project, lead, anna, ben = setup
    body = {
        "project": project.pk,
        "source_id": "u-new",
        "source_sentence": make.SENTENCE,
        "phrase": make.PHRASE,
        "phrase_start": make.START,
        "phrase_end": make.START + len(make.PHRASE),
        "substitutions": [{"id": "n1", "paraphrase": "delayed"}, {"id": "n2", "paraphrase": "deferred"}],
    }
    created = api_client(lead).post("/api/units/", body, format="json")
    assert created.status_code == 201, created.json()
    assert [i["sentence"] for i in created.json()["items"]][0] == "The council delayed the vote until Monday."
    wrong = api_client(lead).post(
        "/api/units/", {**body, "source_id": "u-bad", "phrase_end": 3}, format="json"
    )
    assert wrong.status_code == 400
    assign = {"project": project.pk, "raters": ["anna", "ben"], "r": 2}
    response = api_client(lead).post("/api/units/assign/", assign, format="json")
    assert response.status_code == 201 and response.json() == {"created": 2}
    assert Assignment.objects.filter(unit__source_id="u-new").count() == 2
    too_many = api_client(lead).post("/api/units/assign/", {**assign, "r": 5}, format="json")
    assert too_many.status_code == 400 and "r" in too_many.json()
    assert api_client(anna).post("/api/units/", body, format="json").status_code == 403


def test_postpone_moves_unit_to_end(setup):
    project, _, anna, _ = setup
    unit = project.units.order_by("position").first()
    response = api_client(anna).post(f"/api/units/{unit.pk}/postpone/")
    assert response.status_code == 200 and response.json()["status"] == "postponed"
