"""In the browser: the automatic phrase alignments are shown apart (amber nodes, chips), accepted one
by one and then all at once, and only then recorded as the annotator's."""

from __future__ import annotations

import pytest

from annotator.corpus import projects
from annotator.models import PhraseAlignment
from annotator.projects import services as project_setup
from tests import make
from tests.make import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world():
    cast = make.cast()
    project = project_setup.create_project(
        None, name="Browser phrases", tagset=make.vila(), layer_phrase_alignment=True
    )
    pair = projects.add_pair(
        project,
        "p1",
        tokens1=["The", "film", "opened", "on", "Friday", "."],
        tokens2=["Film", "premiered", "Friday", "."],
        tree1="(S (NP (DT The) (NN film)) (VP (VBD opened) (PP (IN on) (NNP Friday))) (. .))",
        tree2="(S (NP (NN Film)) (VP (VBD premiered) (NP (NNP Friday))) (. .))",
        initial_alignment=[[1, 0], [4, 2], [5, 3]],
        initial_alignment_source="pharaoh",
    )
    projects.assign_pairs(project, [cast.anna], [pair])
    return cast, pair


def _mine(pair, user):
    return set(
        PhraseAlignment.objects.filter(pair=pair, annotator=user).values_list("node1", "node2", "sure")
    )


def saved(page):
    page.wait_for_selector('#save-status.is-saved[data-pending="0"]')


def test_annotator_accepts_one_phrase_suggestion_then_the_rest(page, live_server, world):
    cast, pair = world
    make.signed_in(page, live_server, cast.anna)
    page.goto(f"{live_server.url}/projects/{pair.project_id}/pairs/{pair.pk}/")
    page.wait_for_selector("html.js")
    page.keyboard.press("Shift+T")
    assert page.locator("svg.tree .node.suggested").count() == 8 and not _mine(pair, cast.anna)
    assert page.locator(".phrase-suggestions .sugg").count() == 4
    screenshot(page, "editor-phrase-suggestions-1280")
    page.click('[data-phrase-suggestion="4-3"]')  # VP "opened on Friday" ↔ VP "premiered Friday"
    saved(page)
    assert _mine(pair, cast.anna) == {(4, 3, True)}
    assert page.locator(".phrase-suggestions .sugg").count() == 3 and page.locator(".pa").count() == 1
    page.click("[data-accept-all-phrases]")
    saved(page)
    assert _mine(pair, cast.anna) == {(0, 0, True), (1, 1, True), (4, 3, True), (9, 7, True)}
    assert page.locator("svg.tree .node.suggested").count() == 0
    assert page.locator("svg.tree .node.aligned").count() == 8 and page.locator(".pa").count() == 4
