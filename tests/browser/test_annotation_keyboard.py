"""The editor from the keyboard alone, and with no critical or serious accessibility barrier.

A whole pair is annotated without one mouse or pointer event: the pair label, a discontinuous phenomenon
on both members with a key element, three word links, one phrase alignment, done. axe-core checks each
of the editor's tabs. Screenshots go to artifacts/screenshots/editor-keyboard-*.png.
"""

from __future__ import annotations

import pytest

from annotator.models import AlignmentLink, Assignment, PairLabel, Phenomenon, PhraseAlignment
from tests import make
from tests.browser.axe import axe_violations, describe
from tests.browser.test_annotation import edit_url, saved
from tests.browser.test_annotation import world as world  # the same project, tagset and pairs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COUNT_POINTER = """
window.__pointer = 0;
for (const name of ["mousedown", "mouseup", "pointerdown", "pointerup", "wheel"]) {
  document.addEventListener(name, () => { window.__pointer += 1; }, true);
}
"""


class Keys:
    """The keyboard, counting every key press."""

    def __init__(self, page):
        self.page, self.count = page, 0

    def press(self, *keys: str, times: int = 1) -> None:
        for _ in range(times):
            for key in keys:
                self.page.keyboard.press(key)
                self.count += 1

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)
        self.count += len(text)


def focused(page) -> str:
    return page.evaluate(
        "(() => { const e = document.activeElement; return e.matches('.tok') ? "
        "`${e.closest('.member').dataset.member}:${e.dataset.i}` : e.matches('.node') ? "
        "`tree${e.closest('svg').dataset.tree}:${e.dataset.node}` : e.tagName; })()"
    )


def keyboard_login(page, live_server, keys: Keys) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.focus("input[name=username]")
    keys.type("anna")
    keys.press("Tab")
    keys.type(make.PASSWORD)
    keys.press("Enter")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def test_a_whole_pair_annotated_from_the_keyboard_alone(page, live_server, world):
    pair, ann = world["pair"], world["anna"]
    page.add_init_script(COUNT_POINTER)
    missing = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    keys = Keys(page)
    keyboard_login(page, live_server, keys)
    page.goto(edit_url(live_server, pair))
    page.evaluate("localStorage.clear()")

    keys.press("Shift+P")  # paraphrase
    saved(page)

    # Tab reaches member 1's token cursor; Semantics on "film … Friday" / "Film", key "Friday", global
    for _ in range(30):
        keys.press("Tab")
        if focused(page) == "1:0":
            break
    assert focused(page) == "1:0", "Tab did not reach the tokens"
    tab_presses = keys.count
    keys.press("ArrowRight", "Space")  # film
    keys.press("ArrowRight", times=3)
    keys.press("Space")  # Friday
    assert focused(page) == "1:4"
    keys.press("ArrowDown")  # to member 2, under "Friday"
    assert focused(page).startswith("2:")
    keys.press("Home", "Space")  # Film
    keys.press("Shift+K", "Shift+1")  # key mode; back to member 1's cursor (Friday)
    assert focused(page) == "1:4"
    keys.press("Space", "Shift+G", "o")  # Friday is the key; projection global; Semantics
    saved(page)
    semantics = Phenomenon.objects.get(annotator=ann, ptype__name="Semantics")
    assert (semantics.scope1, semantics.scope2, semantics.key1, semantics.projection) == (
        [1, 4],
        [0],
        [4],
        "global",
    )
    assert page.locator(".ph").count() == 1 and focused(page) == "1:4", "focus lost after the save"
    make.screenshot(page, "editor-keyboard-phenomenon-1280")

    # three word links: opened–premiered sure, on–Friday possible, The–Film possible
    keys.press("Shift+A", "Shift+1")
    keys.press("Home", "ArrowRight", "ArrowRight", "Space")  # opened
    keys.press("Shift+2", "Home", "ArrowRight", "Space", "s")  # premiered, sure
    saved(page)
    keys.press("Shift+1", "ArrowRight", "Space")  # on
    keys.press("Shift+2", "ArrowRight", "Space", "p")  # Friday, possible
    saved(page)
    keys.press("Shift+1", "Home", "Space", "Shift+2", "Home", "Space", "p")  # The – Film, possible
    saved(page)
    new_links = {(2, 1, True), (3, 2, False), (0, 0, False)}
    assert new_links <= set(
        AlignmentLink.objects.filter(pair=pair, annotator=ann).values_list("i", "j", "sure")
    )
    make.screenshot(page, "editor-keyboard-links-1280")

    # one phrase alignment: NP (The film) ↔ NP (Film), sure
    keys.press("Shift+T", "Shift+1", "ArrowDown", "Space")  # tree 1: S → NP
    assert focused(page) == "tree1:1"
    keys.press("Shift+2", "ArrowDown", "Space", "Enter")  # tree 2: S → NP, align
    saved(page)
    assert list(PhraseAlignment.objects.filter(annotator=ann).values_list("node1", "node2", "sure")) == [
        (1, 1, True)
    ]
    assert focused(page) == "tree2:1"  # kept across the save, and its counterpart is highlighted
    assert page.locator('svg.tree[data-tree="1"] .node[data-node="1"].hl').count() == 1

    keys.press("Control+z")  # undo and redo, announced in the live status
    saved(page)
    assert page.locator("#save-status").inner_text().strip() == "Undid the new phrase alignment"
    keys.press("Control+Shift+Z")
    saved(page)
    assert page.locator("#save-status").inner_text().strip() == "Redid the new phrase alignment"
    assert PhraseAlignment.objects.filter(annotator=ann).count() == 1
    undo_redo = 2

    keys.press("Shift+D")  # done
    page.wait_for_url(lambda url: f"/pairs/{pair.pk}/" not in url)
    assert PairLabel.objects.get(pair=pair, annotator=ann).label == "paraphrase"
    assert Assignment.objects.get(pair=pair, annotator=ann).status == Assignment.Status.DONE
    assert page.evaluate("window.__pointer") == 0
    assert not missing, f"not found: {missing}"  # the favicon included
    print(
        f"\nkeyboard-only pair: {keys.count - undo_redo} key presses"
        f" ({tab_presses} to log in and reach the tokens), plus {undo_redo} for undo/redo"
    )


@pytest.mark.parametrize("tab", ["phenomena", "align", "phrase"])
def test_editor_tabs_have_no_critical_or_serious_axe_violations(page, live_server, world, tab):
    pair = world["long"] if tab == "align" else world["pair"]
    login_keys = Keys(page)
    keyboard_login(page, live_server, login_keys)
    page.goto(edit_url(live_server, pair))
    page.evaluate(f"localStorage.setItem('editor-mode', '{tab}')")
    page.reload()
    page.locator(".ph, .tok").first.wait_for()
    violations = axe_violations(page)
    assert not violations, describe(violations)
