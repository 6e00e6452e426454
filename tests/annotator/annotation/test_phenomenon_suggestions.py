"""The recommender's phenomena suggestions in the editor: offered to the annotator who opens a pair,
accepted (through add_phenomenon) one by one or all at once, rejected one by one (a stored decision),
and nothing recorded as the annotator's before they accept."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotator.annotation import phenomenon_suggestions as offer
from annotator.annotation import recommender
from annotator.annotation import services as annotation_services
from annotator.annotation.services import ConflictError
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import (
    AnnotationHistory,
    Membership,
    Phenomenon,
    RecommenderRun,
    SuggestionDecision,
    Tagset,
)
from annotator.projects import services as project_setup
from annotator.projects.roles import grant_role
from tests import make
from tests.make import HTMX, logged_in, url, version

pytestmark = pytest.mark.django_db
ONE = "Yucaipa was selling the chain to Safeway .".split()
TWO = "Yucaipa sold it to Safeway in 1998 .".split()
CONTEXTUAL = "6"  # ETPC: Same Polarity Substitution (contextual)


@pytest.fixture(autouse=True)
def tasks_in_process(eager_celery):
    """The training task runs in-process here, even when REDIS_URL points at a broker."""


@pytest.fixture
def world():
    """A team project whose recommender learnt anna's phenomena on six pairs; ben and cat have the
    two others to annotate."""
    cast = make.cast()
    team = project_setup.create_project(cast.lead, name="Team", tagset=Tagset.objects.get(name=ETPC_NAME))
    pairs = [projects.add_pair(team, f"p{n}", tokens1=ONE, tokens2=TWO) for n in range(8)]
    projects.assign_pairs(team, [cast.anna, cast.ben, cast.cat], pairs)
    types = {t.code: t for t in team.tagset.types.all()}
    for pair in pairs[:6]:
        base = None
        for code, s1, s2 in (
            ("29", [0, 5, 6, 7], [0, 3, 4, 7]),
            (CONTEXTUAL, [3, 4], [2]),
            ("25", [], [5, 6]),
        ):
            _, base = annotation_services.add_phenomenon(
                pair, cast.anna, types[code], scope1=s1, scope2=s2, base_version=base
            )
    run = recommender.create_run(team, None)
    assert recommender.run_training(run.pk) == RecommenderRun.Status.SUCCEEDED
    return team, cast, pairs[7]


def contextual(rows):
    return next(r for r in rows if r["ptype"].code == CONTEXTUAL)


def test_suggestions_are_offered_and_nothing_is_recorded_before_acceptance(world):
    team, cast, pair = world
    before = (Phenomenon.objects.count(), AnnotationHistory.objects.count())
    rows = offer.offered(pair, cast.ben)
    row = contextual(rows)
    assert (row["scope1"], row["scope2"]) == ([3, 4], [2])
    assert row["key"] == f"{row['ptype'].pk}|3,4|2"
    page = logged_in(cast.ben).get(url("pair-edit", pair)).content.decode()
    assert f'data-key="{row["key"]}"' in page and "not yours until you accept them" in page
    assert (Phenomenon.objects.count(), AnnotationHistory.objects.count()) == before
    assert not Phenomenon.objects.filter(annotator=cast.ben).exists()
    assert not SuggestionDecision.objects.exists()
    assert version(pair, cast.ben) == 0


def test_accepting_creates_exactly_that_phenomenon_through_add_phenomenon(world, monkeypatch):
    team, cast, pair = world
    row = contextual(offer.offered(pair, cast.ben))
    calls = []
    real = annotation_services.add_phenomenon

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(annotation_services, "add_phenomenon", spy)
    phenomenon, new_version = offer.accept(pair, cast.ben, row["key"], base_version=0)
    assert len(calls) == 1 and calls[0][1]["base_version"] == 0
    (mine,) = Phenomenon.objects.filter(annotator=cast.ben, pair=pair)
    assert mine == phenomenon and not mine.is_gold
    assert (mine.ptype.code, mine.scope1, mine.scope2) == (CONTEXTUAL, [3, 4], [2])
    assert new_version == version(pair, cast.ben) > 0
    assert AnnotationHistory.objects.filter(pair=pair, actor=cast.ben, action="create").count() == 1
    decision = SuggestionDecision.objects.get(annotator=cast.ben, pair=pair)
    assert (decision.decision, decision.phenomenon, decision.run) == (
        "accepted",
        mine,
        recommender.current_run(team),
    )
    assert all(r["key"] != row["key"] for r in offer.offered(pair, cast.ben))  # he has it now
    assert any(r["key"] == row["key"] for r in offer.offered(pair, cast.cat))  # cat is still offered it


def test_a_corrected_suggestion_is_accepted_with_the_annotators_scopes(world):
    team, cast, pair = world
    row = contextual(offer.offered(pair, cast.ben))
    phenomenon, _ = offer.accept(pair, cast.ben, row["key"], scopes=([3], [2]), base_version=0)
    assert (phenomenon.ptype.code, phenomenon.scope1, phenomenon.scope2) == (CONTEXTUAL, [3], [2])
    decision = SuggestionDecision.objects.get(annotator=cast.ben)
    assert (decision.decision, decision.scope1, decision.phenomenon) == ("corrected", [3, 4], phenomenon)
    assert all(r["key"] != row["key"] for r in offer.offered(pair, cast.ben))  # decided
    other = offer.offered(pair, cast.ben)[0]
    with pytest.raises(ValidationError, match="outside member 2"):  # checked as any phenomenon's scopes
        offer.accept(pair, cast.ben, other["key"], scopes=([0], [99]), base_version=version(pair, cast.ben))
    assert Phenomenon.objects.filter(annotator=cast.ben).count() == 1
    phenomenon.delete()  # e.g. undone: the suggestion is offered again
    assert any(r["key"] == row["key"] for r in offer.offered(pair, cast.ben))


def test_rejecting_records_the_decision_and_the_suggestion_is_not_offered_again(world):
    team, cast, pair = world
    row = contextual(offer.offered(pair, cast.ben))
    offer.reject(pair, cast.ben, row["key"])
    decision = SuggestionDecision.objects.get()
    assert (decision.annotator, decision.pair, decision.decision) == (cast.ben, pair, "rejected")
    assert (decision.ptype.code, decision.scope1, decision.scope2) == (CONTEXTUAL, [3, 4], [2])
    assert not Phenomenon.objects.filter(annotator=cast.ben).exists()
    assert version(pair, cast.ben) == 0  # the sheet did not change
    assert all(r["key"] != row["key"] for r in offer.offered(pair, cast.ben))
    assert any(r["key"] == row["key"] for r in offer.offered(pair, cast.cat))
    with pytest.raises(ValidationError, match="not offered on this pair any more"):
        offer.accept(pair, cast.ben, row["key"], base_version=0)


def test_accept_all_makes_every_offered_suggestion_a_phenomenon(world):
    team, cast, pair = world
    rows = offer.offered(pair, cast.cat)
    made, _ = offer.accept_all(pair, cast.cat, base_version=0)
    got = {(p.ptype.code, tuple(p.scope1), tuple(p.scope2)) for p in made}
    assert got == {(r["ptype"].code, tuple(r["scope1"]), tuple(r["scope2"])) for r in rows}
    assert Phenomenon.objects.filter(annotator=cast.cat).count() == len(rows)
    assert SuggestionDecision.objects.filter(annotator=cast.cat, decision="accepted").count() == len(rows)
    assert offer.offered(pair, cast.cat) == []
    with pytest.raises(ValidationError, match="No suggestions are left"):
        offer.accept_all(pair, cast.cat, base_version=version(pair, cast.cat))


def test_a_stale_version_or_an_unknown_suggestion_writes_nothing(world):
    team, cast, pair = world
    row = contextual(offer.offered(pair, cast.ben))
    annotation_services.set_comment(pair, cast.ben, "first", base_version=0)
    with pytest.raises(ConflictError):
        offer.accept(pair, cast.ben, row["key"], base_version=0)
    with pytest.raises(ValidationError, match="not offered"):
        offer.accept(pair, cast.ben, f"{row['ptype'].pk}|0|1", base_version=version(pair, cast.ben))
    assert not Phenomenon.objects.filter(annotator=cast.ben).exists()
    assert not SuggestionDecision.objects.exists()


def test_rates_per_type_come_from_the_decisions(world):
    team, cast, pair = world
    offer.accept(pair, cast.ben, contextual(offer.offered(pair, cast.ben))["key"], base_version=0)
    offer.reject(pair, cast.cat, contextual(offer.offered(pair, cast.cat))["key"])
    (rate,) = [r for r in offer.rates(team) if r["type"] == "Same Polarity Substitution (contextual)"]
    assert rate == {
        "type": "Same Polarity Substitution (contextual)",
        "accepted": 1,
        "corrected": 0,
        "rejected": 1,
        "decided": 2,
        "acceptance": 0.5,
        "correction": 0.0,
        "rejection": 0.5,
    }
    lead = logged_in(cast.lead)
    page = lead.get(reverse("annotator:dashboard", args=[team.pk])).content.decode()
    assert 'id="suggestion-rates"' in page and "Same Polarity Substitution (contextual)" in page
    panel = lead.get(reverse("annotator:project-recommender", args=[team.pk])).content.decode()
    assert "Same Polarity Substitution (contextual) 1 / 0 / 1 (0.50)" in panel


# ---- the editor's endpoints ----------------------------------------------------------------------


def test_accept_one_then_all_and_reject_one_through_the_editor(world):
    team, cast, pair = world
    client = logged_in(cast.ben)
    row = contextual(offer.offered(pair, cast.ben))
    response = client.post(
        url("phenomenon-suggestion-accept", pair),
        {"base_version": 0, "key": row["key"], "corrected": "1", "scope1": "3,4", "scope2": "1,2"},
        **HTMX,
    )
    assert response.status_code == 200
    assert Phenomenon.objects.get(annotator=cast.ben).scope2 == [1, 2]  # corrected: "sold it"
    Phenomenon.objects.filter(annotator=cast.ben).delete()
    response = client.post(
        url("phenomenon-suggestion-accept", pair),
        {"base_version": version(pair, cast.ben), "key": row["key"]},
        **HTMX,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="phenomena"' in html and f'data-key="{row["key"]}"' not in html
    assert Phenomenon.objects.filter(annotator=cast.ben, ptype__code=CONTEXTUAL).count() == 1
    rest = offer.offered(pair, cast.ben)
    assert rest  # what the model and the rules suggest besides the contextual substitution
    response = client.post(
        url("phenomenon-suggestion-accept", pair), {"base_version": version(pair, cast.ben)}, **HTMX
    )
    assert response.status_code == 200 and "ph-sugg" not in response.content.decode()
    assert Phenomenon.objects.filter(annotator=cast.ben).count() == 1 + len(rest)
    assert SuggestionDecision.objects.filter(annotator=cast.ben, decision="accepted").count() == 1 + len(rest)
    other = offer.offered(pair, cast.cat)
    response = logged_in(cast.cat).post(
        url("phenomenon-suggestion-reject", pair), {"base_version": 0, "key": other[0]["key"]}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-key="{other[0]["key"]}"' not in html and f'data-key="{other[1]["key"]}"' in html
    assert SuggestionDecision.objects.filter(annotator=cast.cat, decision="rejected").count() == 1
    assert not Phenomenon.objects.filter(annotator=cast.cat).exists()


def test_bad_requests_say_what_is_wrong(world):
    team, cast, pair = world
    client = logged_in(cast.ben)
    response = client.post(url("phenomenon-suggestion-reject", pair), {"base_version": 0}, **HTMX)
    assert response.status_code == 422 and "Name the suggestion to reject" in response.content.decode()
    response = client.post(
        url("phenomenon-suggestion-accept", pair), {"base_version": 0, "key": "six"}, **HTMX
    )
    assert response.status_code == 422 and "type id|scope 1|scope 2" in response.content.decode()
    assert not SuggestionDecision.objects.exists() and not Phenomenon.objects.filter(annotator=cast.ben)


@pytest.mark.parametrize("name", ["phenomenon-suggestion-accept", "phenomenon-suggestion-reject"])
def test_only_the_pairs_annotator_may_decide(world, name):
    team, cast, pair = world
    key = contextual(offer.offered(pair, cast.ben))["key"]
    grant_role(team, cast.other_lead, Membership.Role.RATER)  # sees the project, annotates nothing
    data = {"base_version": 0, "key": key}
    assert logged_in(cast.outsider).post(url(name, pair), data).status_code == 404
    assert logged_in(cast.other_lead).post(url(name, pair), data).status_code == 403
    assert logged_in(cast.lead).post(url(name, pair), data).status_code == 403
    assert logged_in(cast.ben).get(url(name, pair)).status_code == 405
    assert not SuggestionDecision.objects.exists()
    assert not Phenomenon.objects.filter(pair=pair).exists()


def test_labelling_the_pair_non_paraphrase_changes_the_suggestions_in_the_editor(world):
    team, cast, pair = world
    whole = team.tagset.types.get(code="30")
    for n in range(3):  # anna annotates the pairs she labels non-paraphrase as one whole
        other = projects.add_pair(team, f"np{n}", tokens1=ONE, tokens2=TWO)
        base = annotation_services.set_pair_label(other, cast.anna, "non_paraphrase", base_version=None)
        annotation_services.add_phenomenon(
            other, cast.anna, whole, scope1=list(range(8)), scope2=list(range(8)), base_version=base
        )
    run = recommender.create_run(team, None)
    assert recommender.run_training(run.pk) == RecommenderRun.Status.SUCCEEDED
    before = contextual(offer.offered(pair, cast.ben))["key"]
    response = logged_in(cast.ben).post(
        url("pair-label", pair), {"base_version": 0, "label": "non_paraphrase"}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    (row,) = offer.offered(pair, cast.ben)
    assert row["ptype"].code == "30" and f'data-key="{row["key"]}"' in html
    assert f'data-key="{before}"' not in html
    assert not Phenomenon.objects.filter(annotator=cast.ben).exists()
