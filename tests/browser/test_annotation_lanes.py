"""Phenomena drawn as labelled lanes, and word links that never cross the text of wrapped sentences.

Five phenomena of ETPC's tagset overlap on one token of an MRPC-length pair whose sentences wrap at
1280×800: each gets its own lane on that visual line, labelled with its type's name, and no label or bar
overlaps another (nor a token). In word alignment the wrapped sentences are laid out as two columns with
the links in the gutter between them: no link's path crosses a token's box. Screenshots:
artifacts/screenshots/editor-lanes-*.png.
"""

from __future__ import annotations

import pytest

from annotator.annotation import services as annotation_services
from annotator.core.tagsets import ETPC_NAME
from annotator.corpus import projects
from annotator.models import Tagset
from annotator.projects import services as project_setup
from tests import make
from tests.browser.test_annotation import edit_url
from tests.browser.test_annotation_layout import QUOTED1, QUOTED2, chunked_tree

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# All five contain token 3 of member 1 ("brother"); one is discontinuous, one has a key element.
FIVE = (
    ("Same Polarity Substitution (contextual)", [3], [12], []),
    ("Change of order", [0, 1, 2, 3], [10, 11, 12, 13], []),
    ("Syntax/discourse structure changes", [2, 3, 4, 5, 6, 7, 8, 9, 10], [0, 1, 2, 3, 4, 5, 6, 7, 8], [5]),
    ("Addition/Deletion", [3, 4, 8, 9], [], []),
    ("Identity", [1, 2, 3, 4, 5], [11, 12, 13, 14, 15], []),
)


@pytest.fixture
def five_world():
    tagset = Tagset.objects.get(name=ETPC_NAME)
    ann = make.user("ann")
    project = project_setup.create_project(
        None, name="ETPC lanes", tagset=tagset, layer_phrase_alignment=True
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
    for name, scope1, scope2, key1 in FIVE:
        _, version = annotation_services.add_phenomenon(
            pair, ann, types[name], scope1=scope1, scope2=scope2, key1=key1, base_version=version
        )
    # the same word in both members is linked (Amrozi, accused, his, brother, the witness, …)
    links = [(i, QUOTED2.index(t)) for i, t in enumerate(QUOTED1) if t in QUOTED2 and t.isalpha()]
    annotation_services.set_links(pair, ann, links, sure=True, base_version=version)
    return {"pair": pair, "ann": ann, "links": links}


LANE_GEOMETRY = """
() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {x: r.left, y: r.top, r: r.right, b: r.bottom}; };
  const items = Array.from(document.querySelectorAll('#members .lane-item')).map((item) => ({
    ph: item.dataset.ph,
    member: Number(item.closest('.member').dataset.member),
    top: Math.round(item.getBoundingClientRect().top),
    label: item.querySelector('.lane-label').textContent,
    labelBox: box(item.querySelector('.lane-label')),
    bars: Array.from(item.querySelectorAll('.lane-bar, .lane-key')).map(box),
    keys: item.querySelectorAll('.lane-key').length,
    joins: item.querySelectorAll('.lane-join').length,
  }));
  const tok = (m, i) => box(document.querySelector(`.member-${m} .tok[data-i="${i}"]`));
  const tokens = Array.from(document.querySelectorAll('#members .tok')).map(box);
  return {items, token3: tok(1, 3), tokens, hidden: Array.from(document.querySelectorAll('#members .lanes'))
    .every((layer) => layer.getAttribute('aria-hidden') === 'true')};
}
"""

LINK_GEOMETRY = """
() => {
  const toks = Array.from(document.querySelectorAll('#members .tok')).map((t) => t.getBoundingClientRect());
  const svg = document.querySelector('.link-lines').getBoundingClientRect();
  const crossings = [];
  const lines = Array.from(document.querySelectorAll('.link-lines line.link'));
  const linked = lines.filter((line) => !line.classList.contains('suggested')).length;
  for (const line of lines) {
    const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((a) => Number(line.getAttribute(a)));
    const steps = Math.ceil(Math.hypot(x2 - x1, y2 - y1));
    for (let s = 0; s <= steps; s += 1) {
      const x = svg.left + x1 + ((x2 - x1) * s) / steps;
      const y = svg.top + y1 + ((y2 - y1) * s) / steps;
      const hit = toks.findIndex((r) => x > r.left + 1 && x < r.right - 1 && y > r.top + 1 && y < r.bottom - 1);
      if (hit >= 0) { crossings.push(`${line.dataset.i}-${line.dataset.j} crosses token box ${hit}`); break; }
    }
  }
  return {n: linked, drawn: lines.length, crossings, columns: document.querySelector('#members').classList.contains('columns')};
}
"""


def overlaps(a, b) -> bool:
    return a["x"] < b["r"] - 0.5 and b["x"] < a["r"] - 0.5 and a["y"] < b["b"] - 0.5 and b["y"] < a["b"] - 0.5


def open_editor(page, live_server, pair) -> None:
    make.sign_in(page, live_server, "ann")
    page.goto(edit_url(live_server, pair))
    page.wait_for_selector("html.js")
    page.evaluate("() => localStorage.clear()")
    page.keyboard.press("Shift+H")
    page.wait_for_selector("#members .lane-item")


def assert_lanes_legible(geometry) -> None:
    items, token3 = geometry["items"], geometry["token3"]
    over3 = [
        it
        for it in items
        if it["member"] == 1
        and any(b["x"] <= token3["x"] + 2 and b["r"] >= token3["r"] - 2 for b in it["bars"])
    ]
    assert sorted(it["label"] for it in over3) == sorted(name for name, *_ in FIVE)
    assert len({it["top"] for it in over3}) == 5, "the five overlapping phenomena do not have five lanes"
    assert all(it["top"] > token3["b"] for it in over3), "a lane is not under the tokens"
    shapes = [(n, "label", it["labelBox"]) for n, it in enumerate(items)]
    shapes += [(n, "bar", bar) for n, it in enumerate(items) for bar in it["bars"]]
    for k, (n, kind, a) in enumerate(shapes):
        for m, other_kind, b in shapes[k + 1 :]:
            if n != m:
                assert not overlaps(a, b), (
                    f"{kind} of {items[n]['label']} overlaps {other_kind} of {items[m]['label']}"
                )
        if kind == "label":
            assert not any(overlaps(a, t) for t in geometry["tokens"]), (
                f"label {items[n]['label']} covers a token"
            )
    assert geometry["hidden"], "the drawing is not aria-hidden"
    syntax = [it for it in items if it["label"].startswith("Syntax/discourse") and it["member"] == 1]
    assert sum(it["keys"] for it in syntax) == 1, "the key element is not marked"
    addition = [it for it in items if it["label"] == "Addition/Deletion"]
    assert sum(it["joins"] for it in addition) >= 1 or len(addition) == 2, (
        "the discontinuous scope is not joined"
    )


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_five_overlapping_phenomena_get_five_labelled_lanes(page, live_server, five_world, size):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_editor(page, live_server, five_world["pair"])
    assert_lanes_legible(page.evaluate(LANE_GEOMETRY))
    make.screenshot(page, f"editor-lanes-phenomena-{size[0]}")
    members = make.screenshot(page, f"editor-lanes-members-{size[0]}")
    page.locator("#members").screenshot(path=str(members))
    page.keyboard.press("Shift+T")
    make.screenshot(page, f"editor-lanes-trees-{size[0]}")
    page.keyboard.press("Shift+A")
    make.screenshot(page, f"editor-lanes-words-{size[0]}")


def test_focusing_a_listed_phenomenon_highlights_its_lane(page, live_server, five_world):
    open_editor(page, live_server, five_world["pair"])
    item = page.locator(".ph").nth(2)
    item.focus()
    ph = item.get_attribute("data-ph")
    page.wait_for_selector(f'.lane-item.hl[data-ph="{ph}"]')
    assert page.locator(".lane-item.hl").count() == page.locator(f'.lane-item[data-ph="{ph}"]').count()
    assert page.locator("#editor.lane-focus").count() == 1
    page.locator(".palette-filter").focus()
    assert page.locator(".lane-item.hl").count() == 0
    item.locator("[data-edit]").click()  # the phenomenon being edited stays highlighted
    page.wait_for_selector(".selection-info.editing")
    page.locator(".palette-filter").focus()
    assert page.locator(f'.lane-item.hl[data-ph="{ph}"]').count() >= 1


def test_lanes_follow_a_new_phenomenon_and_the_width(page, live_server, five_world):
    open_editor(page, live_server, five_world["pair"])
    before = page.locator(".member-2 .lane-item").count()
    page.locator('.member-2 .tok[data-i="16"]').click()
    page.locator('.member-2 .tok[data-i="17"]').click(modifiers=["Shift"])
    page.locator('.pgroup:not(.precent) .ptype[data-name="Identity"]').click()
    page.wait_for_function(f"() => document.querySelectorAll('.member-2 .lane-item').length > {before}")
    page.set_viewport_size({"width": 1000, "height": 800})
    page.wait_for_timeout(200)
    assert_lanes_legible(page.evaluate(LANE_GEOMETRY))


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_links_never_cross_the_text_of_wrapped_sentences(page, live_server, five_world, size):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_editor(page, live_server, five_world["pair"])
    page.keyboard.press("Shift+A")
    page.wait_for_selector(".link-lines line.link")
    geometry = page.evaluate(LINK_GEOMETRY)
    assert geometry["n"] == len(five_world["links"])
    assert not geometry["crossings"], geometry["crossings"]
    if size == (1280, 800):
        assert geometry["columns"], "the wrapped sentences are not laid out as two columns"
        # the keys do what they do in every layout: → the next token, ↓ the other member
        page.keyboard.press("Shift+1")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => document.activeElement.dataset.i") == "1"
        page.keyboard.press("ArrowDown")
        assert page.evaluate("() => document.activeElement.closest('.member').dataset.member") == "2"
    page.locator('.member-1 .tok[data-i="3"]').hover()  # brother: its link and the linked token stand out
    brother = QUOTED2.index("brother")
    page.wait_for_selector(f'.link-lines line.link.hl[data-i="3"][data-j="{brother}"]')
    assert page.locator(".tok.linked").count() == 1
    assert page.locator(".tok.linked").get_attribute("data-i") == str(brother)
    page.keyboard.press("Shift+H")
    assert page.locator("#members.columns").count() == 0
