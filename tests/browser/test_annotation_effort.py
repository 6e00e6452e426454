"""Effort for one MRPC pair, mouse against keyboard (the figures docs/keyboard.md reports).

The pair is MRPC's first (train) pair. Both runs make the same annotation: the label paraphrase, Change
of order (Amrozi accused his brother / … Amrozi accused his brother), Syntax/discourse structure (whom
he called " the witness " / Referring to him as only " the witness "), Addition/deletion of "only",
one possible word link (called – Referring) on top of the automatic alignment, and done. The mouse run
counts clicks and key presses; the keyboard run counts key presses and asserts no pointer event.
"""

from __future__ import annotations

import pytest

from annotator.models import AlignmentLink, Assignment, Phenomenon
from tests import make
from tests.browser.test_annotation import edit_url, saved, tok
from tests.browser.test_annotation import world as world  # the same project, tagset and pairs
from tests.browser.test_annotation_keyboard import COUNT_POINTER, Keys, focused

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXPECTED = {
    "Change of order": ([0, 1, 2, 3], [10, 11, 12, 13]),
    "Syntax/discourse structure": ([5, 6, 7, 8, 9, 10, 11], [0, 1, 2, 3, 4, 5, 6, 7, 8]),
    "Addition/deletion": ([], [4]),
}


def check(pair, ann):
    got = {p.ptype.name: (p.scope1, p.scope2) for p in Phenomenon.objects.filter(pair=pair, annotator=ann)}
    assert got == EXPECTED
    assert (7, 0, False) in set(
        AlignmentLink.objects.filter(pair=pair, annotator=ann).values_list("i", "j", "sure")
    )
    assert Assignment.objects.get(pair=pair, annotator=ann).status == Assignment.Status.DONE


def open_pair(page, live_server, pair):
    make.signed_in(page, live_server, "anna")
    page.goto(edit_url(live_server, pair))
    page.evaluate("localStorage.clear()")
    page.reload()


def test_mouse(page, live_server, world):
    pair, ann = world["long"], world["anna"]
    open_pair(page, live_server, pair)
    clicks = keys = 0

    def click(locator, **kw):
        nonlocal clicks
        locator.click(**kw)
        clicks += 1

    click(page.locator('#pair-label input[value="paraphrase"]'))
    saved(page)
    click(tok(page, 1, 0))
    click(tok(page, 1, 3), modifiers=["Shift"])
    click(tok(page, 2, 10))
    click(tok(page, 2, 13), modifiers=["Shift"])
    click(page.locator('input[name="projection"][value="local"]'))
    click(page.locator('.ptype[data-name="Change of order"]'))
    saved(page)
    click(tok(page, 1, 5))
    click(tok(page, 1, 11), modifiers=["Shift"])
    click(tok(page, 2, 0))
    click(tok(page, 2, 8), modifiers=["Shift"])
    click(page.locator('.ptype[data-name="Syntax/discourse structure"]'))
    saved(page)
    click(tok(page, 2, 4))
    click(page.locator('.ptype[data-name="Addition/deletion"]'))
    saved(page)
    click(page.locator('.mode-tabs .tab[data-mode="align"]'))
    click(tok(page, 1, 7))
    click(tok(page, 2, 0), modifiers=["Alt"])
    saved(page)
    click(page.locator(".btn-done"))
    page.wait_for_url(lambda url: f"/pairs/{pair.pk}/" not in url)
    check(pair, ann)
    print(f"\nMRPC pair with the mouse: {clicks} clicks and {keys} key presses")


def test_keyboard(page, live_server, world):
    pair, ann = world["long"], world["anna"]
    page.add_init_script(COUNT_POINTER)
    open_pair(page, live_server, pair)
    page.evaluate("window.__pointer = 0")
    keys = Keys(page)
    keys.press("Shift+P")
    saved(page)
    # Change of order: member 1 tokens 0–3, member 2 tokens 10–13, projection local
    keys.press("Shift+1", "Space")
    keys.press("Shift+ArrowRight", times=3)
    keys.press("Shift+2", "End")
    keys.press("ArrowLeft", times=6)
    keys.press("Space")
    keys.press("Shift+ArrowLeft", times=3)
    keys.press("Shift+L", "p")
    saved(page)
    # Syntax/discourse structure: member 1 tokens 5–11, member 2 tokens 0–8
    keys.press("Shift+1")
    keys.press("ArrowRight", times=2)
    keys.press("Space")
    keys.press("Shift+ArrowRight", times=6)
    keys.press("Shift+2", "Home", "Space")
    keys.press("Shift+ArrowRight", times=8)
    keys.press("i")
    saved(page)
    # Addition/deletion: "only" (member 2, token 4)
    keys.press("ArrowLeft", times=4)
    assert focused(page) == "2:4"
    keys.press("Space", "a")
    saved(page)
    # a possible link: called (member 1, 7) – Referring (member 2, 0)
    keys.press("Shift+A", "Home", "Space", "Shift+1")
    keys.press("ArrowLeft", times=4)
    assert focused(page) == "1:7"
    keys.press("Space", "p")
    saved(page)
    keys.press("Shift+D")
    page.wait_for_url(lambda url: f"/pairs/{pair.pk}/" not in url)
    check(pair, ann)
    assert page.evaluate("window.__pointer") == 0
    print(f"\nMRPC pair from the keyboard: {keys.count} key presses, no pointer event")
