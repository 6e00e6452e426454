"""The annotation editor in Chromium, doing what an annotator does.

Log in, open the queue, label a pair, create a discontinuous phenomenon with key elements and a
projection, add sure and possible links, align two tree nodes and a node to nothing, undo, reload and
find everything again. A second annotator on the same pair sees none of it; a stale tab gets the
conflict message; an offline editor keeps the change and sends it when the network is back.
Screenshots go to artifacts/screenshots/editor-*.png.
"""

from __future__ import annotations

import pytest

from annotator.core.aligner import identical_token_alignment
from annotator.core.tagsets import vila_rows
from annotator.corpus import projects
from annotator.models import AlignmentLink, PairLabel, ParaphraseType, Phenomenon, PhraseAlignment, Tagset
from annotator.projects import services as project_setup
from tests import make
from tests.make import screenshot as save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG1 = (
    'Amrozi accused his brother , whom he called " the witness " , of deliberately distorting his evidence .'
).split()
LONG2 = (
    'Referring to him as only " the witness " , Amrozi accused his brother of deliberately distorting his evidence .'
).split()
GUIDELINES = (
    "Label the pair first: paraphrase or non-paraphrase.\n\n"
    "Then mark each phenomenon: select its scope in member 1 and member 2 and pick the type. Syntax and "
    "discourse types mark their key elements (Shift+K)."
)


@pytest.fixture
def world():
    """Vila et al.'s typology, where Semantics also takes key elements, so one type needs both."""
    tagset = Tagset.objects.create(name="Vila 2015 with keys on semantics")
    for row in vila_rows():
        row["keys_allowed"] = row["keys_allowed"] or row["name"] == "Semantics"
        ParaphraseType.objects.create(tagset=tagset, **row)
    cast = make.cast()
    anna, ben = cast.anna, cast.ben
    project = project_setup.create_project(
        None,
        name="Browser editor",
        tagset=tagset,
        layer_phrase_alignment=True,
        guidelines=GUIDELINES,
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
    long = projects.add_pair(project, "mrpc-1", tokens1=LONG1, tokens2=LONG2)
    projects.assign_pairs(project, [anna, ben], [pair, long])
    return {"project": project, "pair": pair, "long": long, "anna": anna, "ben": ben}


def screenshot(page, name):
    """A full-page screenshot from the top (a scrolled page would draw the sticky header mid-page)."""
    page.evaluate("window.scrollTo(0, 0)")
    return save_screenshot(page, name)


def edit_url(live_server, pair):
    return f"{live_server.url}/projects/{pair.project_id}/pairs/{pair.pk}/"


def tok(page, member, i):
    return page.locator(f'.member-{member} .tok[data-i="{i}"]')


def saved(page):
    page.wait_for_selector('#save-status.is-saved[data-pending="0"]')


def links_of(pair, user):
    return set(AlignmentLink.objects.filter(pair=pair, annotator=user).values_list("i", "j", "sure"))


def test_annotator_annotates_a_pair_undoes_and_finds_everything_after_reload(page, live_server, world):
    pair, anna = world["pair"], world["anna"]
    make.signed_in(page, live_server, make.cast().anna)
    page.goto(f"{live_server.url}/projects/{pair.project_id}/")
    page.click("text=My queue")
    page.click("#continue")
    page.wait_for_url(edit_url(live_server, pair))
    page.evaluate("localStorage.clear()")

    # the pair-level decision
    page.click("#pair-label >> text=Paraphrase")
    saved(page)

    # a discontinuous Semantics phenomenon: film … Friday / Film, key "Friday", projection global
    tok(page, 1, 1).click()
    tok(page, 1, 4).click(modifiers=["Control"])
    tok(page, 2, 0).click()
    page.keyboard.press("Shift+K")
    tok(page, 1, 4).click()
    page.keyboard.press("Shift+G")
    page.click('.ptype[data-name="Semantics"]')
    saved(page)
    item = page.locator(".ph").first
    assert "film … Friday" in item.inner_text() and "key: Friday" in item.inner_text()
    assert "global" in item.inner_text()

    # a rule broken gives a message at the spot, not an error page: Inflectional needs a projection
    page.keyboard.press("Shift+X")
    tok(page, 1, 2).click()
    tok(page, 2, 1).click()
    page.keyboard.press("1")
    page.wait_for_selector("#phenomenon-message >> text=requires a projection")
    # the status says it was not saved, why and what to do, and takes the keyboard focus
    status = page.locator("#save-status.is-refused")
    assert "Not saved" in status.inner_text() and "choose local or global" in status.inner_text()
    assert page.evaluate("document.activeElement.id") == "save-status"
    assert page.locator("#palette-legend").is_visible()
    assert "needs a projection" in page.locator("#palette-legend").inner_text()
    screenshot(page, "editor-refused-1280")
    page.keyboard.press("Shift+L")
    page.keyboard.press("1")
    saved(page)
    assert page.locator(".ph").count() == 2
    item.hover()
    assert page.locator(".tok.hlkey").count() == 1
    screenshot(page, "editor-phenomena-1280")

    # word alignment: the initial alignment is shown as suggestions, none of them the annotator's yet
    page.keyboard.press("Shift+A")
    assert page.locator(".link-lines line.link.suggested").count() == 3
    assert page.locator(".link-lines line.link.sure").count() == 0 and not links_of(pair, anna)
    screenshot(page, "editor-suggestions-1280")
    page.locator(".suggestion-list .sugg").first.click()  # accept one
    saved(page)
    assert links_of(pair, anna) == {(1, 0, True)}
    assert page.locator(".link-lines line.link.suggested").count() == 2
    page.click("[data-accept-all]")  # accept the rest
    saved(page)
    assert page.locator(".link-lines line.link.sure").count() == 3
    assert page.locator(".link-lines line.link.suggested").count() == 0
    tok(page, 1, 2).click()
    tok(page, 2, 1).click()
    saved(page)
    tok(page, 1, 3).click()
    tok(page, 2, 2).click(modifiers=["Alt"])
    saved(page)
    assert page.locator(".link-lines line.link.possible").count() == 1
    assert page.locator(".member-1 .tok.un").count() == 1  # "The" is still unaligned
    screenshot(page, "editor-word-alignment-1280")
    page.keyboard.press("Shift+M")
    assert page.locator(".mx-cell.sure").count() == 4 and page.locator(".mx-cell.possible").count() == 1
    screenshot(page, "editor-alignment-matrix-1280")
    page.keyboard.press("Shift+M")

    # phrase alignment: NP ↔ NP (sure), PP ↔ nothing
    page.keyboard.press("Shift+T")
    # both trees are drawn at one scale: the second is not shrunk beside the first
    scales = page.evaluate(
        "[...document.querySelectorAll('svg.tree')].map(s => parseFloat(s.style.width) / Number(s.getAttribute('width')))"
    )
    assert len(scales) == 2 and abs(scales[0] - scales[1]) < 1e-6 and scales[0] >= 0.6
    page.click('svg.tree[data-tree="1"] .node[data-node="1"]')
    page.click('svg.tree[data-tree="2"] .node[data-node="1"]')
    page.keyboard.press("Enter")
    saved(page)
    page.click('svg.tree[data-tree="1"] .node[data-node="6"]')
    page.keyboard.press("Shift+Digit0")
    saved(page)
    assert page.locator("svg.tree .node.aligned").count() == 3
    screenshot(page, "editor-phrase-alignment-1280")

    # a wrong link, then undo
    page.keyboard.press("Shift+A")
    tok(page, 1, 0).click()
    tok(page, 2, 3).click()
    saved(page)
    assert (0, 3, True) in links_of(pair, anna)
    page.keyboard.press("Control+z")
    saved(page)
    assert page.locator("#save-status").inner_text().strip() == "Undid the new link"
    assert (0, 3, True) not in links_of(pair, anna)

    # reload: everything is still there
    page.reload()
    assert page.locator('#pair-label input[value="paraphrase"]').is_checked()
    assert page.locator(".ph").count() == 2
    assert links_of(pair, anna) == {(1, 0, True), (4, 2, True), (5, 3, True), (2, 1, True), (3, 2, False)}
    page.keyboard.press("Shift+A")
    assert page.locator(".link-lines line.link").count() == 5
    page.keyboard.press("Shift+T")
    assert page.locator(".pa").count() == 2
    assert set(PhraseAlignment.objects.filter(annotator=anna).values_list("node1", "node2")) == {
        (1, 1),
        (6, None),
    }
    semantics = Phenomenon.objects.get(annotator=anna, ptype__name="Semantics")
    assert (semantics.scope1, semantics.scope2, semantics.key1, semantics.projection) == (
        [1, 4],
        [0],
        [4],
        "global",
    )
    page.keyboard.press("Shift+H")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.keyboard.press("?")
    screenshot(page, "editor-help-1920")
    page.keyboard.press("Escape")
    screenshot(page, "editor-phenomena-1920")

    # a second annotator on the same pair sees none of it
    other = page.context.browser.new_context(viewport={"width": 1280, "height": 800})
    bob_page = other.new_page()
    make.signed_in(bob_page, live_server, make.cast().ben)
    bob_page.goto(edit_url(live_server, pair))
    html = bob_page.content()
    assert bob_page.locator(".ph").count() == 0 and "film … Friday" not in html
    assert not bob_page.locator('#pair-label input[value="paraphrase"]').is_checked()
    assert bob_page.locator(".pa").count() == 0
    assert links_of(pair, world["ben"]) == set()  # opening recorded nothing: the suggestions stay suggestions
    screenshot(bob_page, "editor-second-annotator-1280")
    other.close()


def test_stale_tab_gets_the_conflict_message_and_a_reload(page, live_server, world):
    pair, anna = world["pair"], world["anna"]
    make.signed_in(page, live_server, make.cast().anna)
    page.goto(edit_url(live_server, pair))
    fresh = page.context.new_page()
    fresh.goto(edit_url(live_server, pair))
    fresh.click("#pair-label >> text=Not a paraphrase")
    saved(fresh)

    page.click("#pair-label >> text=Paraphrase")
    page.wait_for_selector(".conflict-banner >> text=changed in another tab or on another device")
    assert "is-conflict" in page.locator("#save-status").get_attribute("class")
    assert "pair label" in page.locator(".conflict-banner .unsaved").inner_text()
    assert PairLabel.objects.get(pair=pair, annotator=anna).label == "non_paraphrase"
    screenshot(page, "editor-conflict-1280")
    page.click(".conflict-banner [data-reload]")
    page.wait_for_selector("#save-status.is-saved")
    assert page.locator('#pair-label input[value="non_paraphrase"]').is_checked()


def test_offline_editor_keeps_changes_and_sends_them_when_back_online(page, live_server, world):
    pair, anna = world["long"], world["anna"]
    make.signed_in(page, live_server, make.cast().anna)
    page.goto(edit_url(live_server, pair))
    page.context.set_offline(True)
    page.fill("#comment-text", "Members differ in what they foreground.")
    page.click("#pair-label >> text=Paraphrase")
    page.wait_for_selector("#save-status.is-offline")
    assert "kept, retrying" in page.locator("#save-status").inner_text()
    screenshot(page, "editor-offline-1280")
    page.context.set_offline(False)  # the editor resends by itself (the "online" event, or its retry timer)
    saved(page)
    sheet = PairLabel.objects.get(pair=pair, annotator=anna)
    assert (sheet.label, sheet.comment) == ("paraphrase", "Members differ in what they foreground.")


def test_long_pair_at_both_screen_sizes(page, live_server, world):
    pair = world["long"]
    make.signed_in(page, live_server, make.cast().anna)
    page.goto(edit_url(live_server, pair))
    pair.refresh_from_db()
    page.keyboard.press("Shift+A")
    suggested = identical_token_alignment(pair.tokens1, pair.tokens2)  # none stored: the fallback
    assert page.locator(".link-lines line.link.suggested").count() == len(suggested) > 10
    assert pair.initial_alignment is None
    screenshot(page, "editor-long-pair-alignment-1280")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.keyboard.press("Shift+H")
    screenshot(page, "editor-long-pair-1920")


def test_sense_preserving_mark_is_set_with_shift_e_and_kept_when_editing(page, live_server, world):
    pair, ann = world["pair"], world["anna"]
    make.signed_in(page, live_server, ann)
    page.goto(edit_url(live_server, pair))
    page.evaluate("localStorage.clear()")
    page.click("#pair-label >> text=Paraphrase")
    saved(page)
    tok(page, 1, 2).click()
    tok(page, 2, 1).click()
    page.keyboard.press("Shift+E")  # unmarked → +
    assert page.locator('input[name="sense_preserving"][value="yes"]').is_checked()
    page.click('.ptype[data-name="Diathesis"]')
    saved(page)
    ph = Phenomenon.objects.get(pair=pair, annotator=ann)
    assert ph.sense_preserving is True
    assert "+" in page.locator(".ph .tag.sense").inner_text()
    page.keyboard.press("Shift+E")  # + → −
    page.keyboard.press("Shift+E")  # − → unmarked
    assert page.locator('input[name="sense_preserving"][value=""]').is_checked()
    page.locator(".ph [data-edit]").click()  # opening the phenomenon shows its mark
    assert page.locator('input[name="sense_preserving"][value="yes"]').is_checked()
    page.keyboard.press("Shift+E")  # → −
    page.click('.ptype[data-name="Diathesis"]')  # keep the type: saves the edit
    saved(page)
    ph.refresh_from_db()
    assert ph.sense_preserving is False
    screenshot(page, "editor-sense-preserving")
