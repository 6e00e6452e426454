"""In the browser, from the keyboard only: the recommender's phenomena are shown apart as suggestions,
Shift+U goes to them, Enter accepts one, Delete rejects one, E corrects one's scopes before Enter
accepts it, Shift+Y accepts all; the database holds
nothing of the annotator's before they accept, then exactly what they accepted and the decisions."""

from __future__ import annotations

import pytest

from annotator.annotation import recommender
from annotator.annotation import services as annotation_services
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import Phenomenon, RecommenderRun, SuggestionDecision, Tagset
from annotator.projects import services as project_setup
from tests import make
from tests.browser.axe import axe_violations, describe
from tests.make import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ONE = "Yucaipa was selling the chain to Safeway .".split()
TWO = "Yucaipa sold it to Safeway in 1998 .".split()
IDENTITY, CONTEXTUAL = "29", "6"


@pytest.fixture
def world(eager_celery):
    """anna annotated six pairs and the recommender learnt from them; ben has the last two to do."""
    cast = make.cast()
    team = project_setup.create_project(
        cast.lead,
        name="Suggestions",
        tagset=Tagset.objects.get(name=ETPC_NAME),
    )
    pairs = [projects.add_pair(team, f"p{n}", tokens1=ONE, tokens2=TWO) for n in range(8)]
    projects.assign_pairs(team, [cast.anna], pairs[:6])
    projects.assign_pairs(team, [cast.ben], pairs[6:])
    types = {t.code: t for t in team.tagset.types.all()}
    for pair in pairs[:6]:
        base = None
        for code, s1, s2 in (
            (IDENTITY, [0, 5, 6, 7], [0, 3, 4, 7]),
            (CONTEXTUAL, [3, 4], [2]),
            ("25", [], [5, 6]),  # addition/deletion "in 1998"
        ):
            _, base = annotation_services.add_phenomenon(
                pair, cast.anna, types[code], scope1=s1, scope2=s2, base_version=base
            )
    run = recommender.create_run(team, None)
    assert recommender.run_training(run.pk) == RecommenderRun.Status.SUCCEEDED
    return cast, pairs[6], pairs[7]


def saved(page):
    page.wait_for_selector('#save-status.is-saved[data-pending="0"]')


def bens(pair, user):
    return {
        (code, tuple(s1), tuple(s2))
        for code, s1, s2 in Phenomenon.objects.filter(pair=pair, annotator=user).values_list(
            "ptype__code", "scope1", "scope2"
        )
    }


def focused(page, attribute):
    return page.evaluate(f"document.activeElement.closest('.ph-sugg')?.dataset.{attribute} ?? null")


def test_accept_reject_correct_and_accept_all_from_the_keyboard(page, live_server, world):
    cast, first, second = world
    make.signed_in(page, live_server, cast.ben)
    page.goto(f"{live_server.url}/projects/{first.project_id}/pairs/{first.pk}/")
    page.wait_for_selector("html.js")
    page.keyboard.press("Shift+H")
    assert page.locator(".ph-sugg").count() == 3 and page.locator(".ph-list .ph").count() == 0
    assert not Phenomenon.objects.filter(annotator=cast.ben).exists()
    assert not SuggestionDecision.objects.exists()

    page.keyboard.press("Shift+U")  # the first suggestion: identity, its tokens and type highlighted
    assert focused(page, "key") == page.locator(".ph-sugg").first.get_attribute("data-key")
    assert page.locator("#members .tok.hl-sugg").count() == 8
    assert page.locator(".ptype.hl-sugg").count() == 1
    page.evaluate("window.scrollTo(0, 0)")  # the full-page picture from the top (the header is sticky)
    screenshot(page, "editor-phenomenon-suggestions-1280")
    violations = axe_violations(page, context="#phenomena")
    assert not violations, describe(violations)
    page.keyboard.press("Enter")
    saved(page)
    assert bens(first, cast.ben) == {(IDENTITY, (0, 5, 6, 7), (0, 3, 4, 7))}
    assert page.locator(".ph-sugg").count() == 2 and page.locator(".ph-list .ph").count() == 1
    assert focused(page, "name") == "Same Polarity Substitution (contextual)"  # the next one

    page.keyboard.press("Delete")
    saved(page)
    assert page.locator(".ph-sugg").count() == 1  # addition/deletion "in 1998", left undecided
    assert focused(page, "name") == "Addition/Deletion"
    assert bens(first, cast.ben) == {(IDENTITY, (0, 5, 6, 7), (0, 3, 4, 7))}
    rejected = SuggestionDecision.objects.get(decision="rejected")
    assert (rejected.annotator, rejected.pair, rejected.ptype.code) == (cast.ben, first, CONTEXTUAL)
    page.reload()
    page.wait_for_selector("html.js")
    assert page.locator(".ph-sugg").count() == 1  # the rejected one stays rejected

    page.keyboard.press("]")  # the next pair of ben's queue
    page.wait_for_url(f"**/pairs/{second.pk}/")
    page.wait_for_selector("html.js")
    assert page.locator(".ph-sugg").count() == 3 and not bens(second, cast.ben)
    page.keyboard.press("Shift+U")
    page.keyboard.press("e")  # correct identity: its scopes become the selection
    assert page.locator("#members .member-1 .tok.sel").count() == 4
    for key in ("Shift+1", "End", " "):  # the final "." of member 1 leaves the scope
        page.keyboard.press(key)
    assert not bens(second, cast.ben)  # nothing recorded while correcting
    page.keyboard.press("Enter")
    saved(page)
    assert bens(second, cast.ben) == {(IDENTITY, (0, 5, 6), (0, 3, 4, 7))}
    assert page.locator(".ph-sugg").count() == 2
    page.keyboard.press("Shift+Y")
    saved(page)
    assert bens(second, cast.ben) == {
        (IDENTITY, (0, 5, 6), (0, 3, 4, 7)),
        (CONTEXTUAL, (3, 4), (2,)),
        ("25", (), (5, 6)),
    }
    assert page.locator(".ph-sugg").count() == 0 and page.locator(".ph-list .ph").count() == 3
    decided = SuggestionDecision.objects.filter(annotator=cast.ben).values_list("pair_id", "decision")
    assert sorted(decided) == sorted(
        [
            (first.pk, "accepted"),
            (first.pk, "rejected"),
            (second.pk, "corrected"),
            (second.pk, "accepted"),
            (second.pk, "accepted"),
        ]
    )
    assert not Phenomenon.objects.filter(pair__in=[first, second]).exclude(annotator=cast.ben).exists()
