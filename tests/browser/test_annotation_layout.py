"""The editor at laptop and desktop sizes: ETPC's 29 types, five phenomena, two parse trees, wrapped
sentences. At 1280×800 the list of phenomena starts above the fold and the trees sit side by side.
Screenshots: artifacts/screenshots/editor-layout-*.png (looked at when the layout changes).
"""

from __future__ import annotations

import pytest

from annotator.annotation import services as annotation_services
from annotator.annotation.services import sheet_version
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import Tagset
from annotator.projects import services as project_setup
from tests import make
from tests.browser.axe import axe_violations, describe
from tests.browser.test_annotation import LONG1, LONG2, edit_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# MRPC-style Treebank tokens: `` and '' are quotes, shown as “ and ”
QUOTED1 = [("``" if t == '"' and n <= 8 else "''" if t == '"' else t) for n, t in enumerate(LONG1)]
QUOTED2 = [("``" if t == '"' and n < 6 else "''" if t == '"' else t) for n, t in enumerate(LONG2)]


def chunked_tree(tokens: list[str], size: int = 4) -> str:
    """A small constituency tree over the tokens: S over phrases of `size` tokens (layout only)."""
    phrases = []
    for start in range(0, len(tokens), size):
        leaves = " ".join(
            f"(T {t.replace('(', '-LRB-').replace(')', '-RRB-')})" for t in tokens[start : start + size]
        )
        phrases.append(f"(XP {leaves})")
    return f"(S {' '.join(phrases)})"


@pytest.fixture
def etpc_world():
    tagset = Tagset.objects.get(name=ETPC_NAME)
    ann = make.user("ann")
    project = project_setup.create_project(
        None, name="ETPC layout", tagset=tagset, layer_phrase_alignment=True
    )
    pair = projects.add_pair(
        project,
        "mrpc-1",
        tokens1=QUOTED1,
        tokens2=QUOTED2,
        tree1=chunked_tree(QUOTED1),
        tree2=chunked_tree(QUOTED2),
    )
    projects.assign_pairs(project, [ann], [pair])
    types = {t.name: t for t in tagset.types.all()}
    version = annotation_services.set_pair_label(pair, ann, "paraphrase", base_version=0)
    for name, scope1, scope2, key1 in (
        ("Same Polarity Substitution (contextual)", [1], [11], []),
        ("Change of order", [0, 1, 2, 3], [10, 11, 12, 13], []),
        ("Syntax/discourse structure changes", [4, 5, 6, 7, 8, 9, 10], [0, 1, 2, 3, 4, 5, 6, 7, 8], [5]),
        ("Addition/Deletion", [5, 6], [], []),
        ("Identity", [12, 13, 14, 15, 16, 17], [14, 15, 16, 17, 18, 19], []),
    ):
        _, version = annotation_services.add_phenomenon(
            pair, ann, types[name], scope1=scope1, scope2=scope2, key1=key1, base_version=version
        )
    assert sheet_version(pair, ann) == version
    return {"pair": pair, "ann": ann}


def box(page, selector):
    return page.locator(selector).first.bounding_box()


def test_laptop_layout_keeps_the_phenomena_in_view_and_the_trees_side_by_side(page, live_server, etpc_world):
    pair = etpc_world["pair"]
    make.signed_in(page, live_server, "ann")
    page.goto(edit_url(live_server, pair))
    page.evaluate("localStorage.clear()")
    page.keyboard.press("Shift+H")
    make.screenshot(page, "editor-layout-phenomena-1280")
    page.keyboard.press("Shift+T")
    make.screenshot(page, "editor-layout-trees-1280")
    page.keyboard.press("Shift+A")
    make.screenshot(page, "editor-layout-words-1280")
    page.keyboard.press("Shift+H")
    assert page.locator(".ph").count() == 5
    assert box(page, ".phenomena .ph")["y"] < 800, "the first phenomenon is below the fold at 1280×800"
    assert page.locator('.member-1 .tok[data-i="8"]').inner_text().startswith("“")
    assert page.locator('.member-1 .tok[data-i="8"]').get_attribute("title") == "8 · ``"
    page.keyboard.press("Shift+T")
    wraps = page.locator(".tree-wrap")
    first, second = wraps.nth(0).bounding_box(), wraps.nth(1).bounding_box()
    assert abs(first["y"] - second["y"]) < 2 and second["x"] > first["x"], "the trees are not side by side"

    page.set_viewport_size({"width": 1920, "height": 1080})
    page.keyboard.press("Shift+H")
    make.screenshot(page, "editor-layout-phenomena-1920")
    assert box(page, ".phenomena .ph")["y"] < 1080
    page.keyboard.press("Shift+T")
    make.screenshot(page, "editor-layout-trees-1920")
    violations = axe_violations(page)
    assert not violations, describe(violations)
