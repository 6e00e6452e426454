"""Two-step evaluation from the keyboard alone: after each answer focus is on the next question.

A rater judges every sentence of two units (grammaticality without the original, then meaning with
it), submits and finalizes, pressing only Tab and Enter and never a mouse or pointer event. After each
answer the test checks where focus is: on the follow-up question that just appeared, on the next
sentence's first question, or, once every sentence is judged, on the unit's main button.
"""

import re

import pytest

from annotator.models import Judgement
from tests import make
from tests.browser.test_annotation_keyboard import COUNT_POINTER, Keys

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Which option each answer picks (its position among the question's buttons) and the label it leads to.
GRAMMATICALITY = {
    "Perfect": [("grammatical", "Yes"), ("natural", "Perfect")],
    "Minor Problem": [("grammatical", "No"), ("correctable", "Yes"), ("one_edit", "Yes, one edit")],
    "Irredeemable": [("grammatical", "No"), ("correctable", "No")],
}
MEANING = {
    "Equivalent": [("share", "Yes"), ("significant", "No"), ("equivalent", "Yes")],
    "Completely Different": [("share", "No")],
}
PLAN = (
    (["Perfect", "Minor Problem", "Irredeemable"], ["Equivalent", "Completely Different", "Equivalent"]),
    (["Irredeemable", "Perfect", "Perfect"], ["Completely Different", "Equivalent", "Equivalent"]),
)

FOCUSED = """(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return "body";
  const card = e.closest(".judgement"), question = e.closest("fieldset.question");
  if (card) return `${card.id}/${question ? question.dataset.question : "-"}:${e.textContent.trim()}`;
  if (e.closest("#unit-actions")) return `actions:${e.textContent.trim()}`;
  return `${e.tagName}#${e.id}:${e.textContent.trim()}`;
})()"""


@pytest.fixture
def world():
    cast = make.cast()
    project = make.evaluation_project("Substitutions", n_units=2, raters=(cast.anna,), lead=cast.lead)
    return project, list(project.units.order_by("position")), cast.anna


def focused(page) -> str:
    return page.evaluate(FOCUSED)


def settled(page) -> None:
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def tab_to(page, keys: Keys, pattern: str, limit: int = 40) -> None:
    """Press Tab until the focused element's description matches `pattern`."""
    for _ in range(limit):
        if re.search(pattern, focused(page)):
            return
        keys.press("Tab")
    raise AssertionError(f"{limit} presses of Tab never reached {pattern!r} (at {focused(page)!r})")


def choose(page, keys: Keys, card_id: str, question: str, option: str) -> None:
    """From the first button of `question`, Tab to `option` and press Enter; wait for the swap."""
    assert focused(page).startswith(f"{card_id}/{question}:"), (question, focused(page))
    buttons = page.locator(f"#{card_id} fieldset[data-question={question}] button.answer").all_inner_texts()
    keys.press("Tab", times=[b.strip() for b in buttons].index(option))
    assert focused(page) == f"{card_id}/{question}:{option}"
    with page.expect_response(lambda r: r.request.method == "POST"):
        keys.press("Enter")
    settled(page)


def judge_step(page, keys: Keys, items, step: str, labels: list[str], main_button: str) -> None:
    tree = GRAMMATICALITY if step == "grammaticality" else MEANING
    first = f"judgement-{items[0].pk}-{step}"
    tab_to(page, keys, rf"^{first}/{tree[labels[0]][0][0]}:")
    for n, (item, label) in enumerate(zip(items, labels, strict=True)):
        card_id = f"judgement-{item.pk}-{step}"
        answers = tree[label]
        for k, (question, option) in enumerate(answers):
            choose(page, keys, card_id, question, option)
            if k + 1 < len(answers):  # the follow-up question that just appeared has focus
                follow_up = answers[k + 1][0]
                assert focused(page).startswith(f"{card_id}/{follow_up}:"), focused(page)
                legend = page.locator(f"#{card_id} fieldset[data-question={follow_up}] legend").inner_text()
                assert page.locator("#eval-status").inner_text() == f"Sentence {n + 1}: {legend}"
        assert page.locator(f"#{card_id} .result .label-badge").inner_text() == label
        if n + 1 < len(items):  # on to the next sentence's first question
            nxt = f"judgement-{items[n + 1].pk}-{step}"
            assert focused(page).startswith(f"{nxt}/{tree[labels[n + 1]][0][0]}:"), focused(page)
            assert page.locator("#eval-status").inner_text().startswith(f"Sentence {n + 1}: {label}. Next")
        else:  # every sentence judged: the unit's main button, once the actions are refreshed
            page.wait_for_function(f"document.activeElement.textContent.trim().startsWith({main_button!r})")
            assert focused(page).startswith(f"actions:{main_button}")
            assert page.locator("#eval-status").inner_text().endswith("Every sentence is judged.")


def test_rater_judges_two_units_from_the_keyboard_with_focus_on_each_next_question(page, live_server, world):
    project, units, rater = world
    page.context.add_init_script(COUNT_POINTER)
    keys = Keys(page)
    page.goto(f"{live_server.url}/accounts/login/")
    page.focus("input[name=username]")
    keys.type(rater.username)
    keys.press("Tab")
    keys.type(make.PASSWORD)
    keys.press("Enter")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/")
    tab_to(page, keys, r"#next-unit:")
    keys.press("Enter")
    for unit, (g_labels, m_labels) in zip(units, PLAN, strict=True):
        page.wait_for_url(re.compile(rf"/units/{unit.pk}/grammaticality/$"))
        items = list(unit.items.order_by("pk"))
        rows = page.locator(".items > li.item").evaluate_all("els => els.map(e => e.id)")
        assert rows == [f"item-{i.pk}" for i in items]
        judge_step(page, keys, items, "grammaticality", g_labels, "Submit grammaticality")
        keys.press("Enter")
        page.wait_for_url(re.compile(rf"/units/{unit.pk}/meaning/$"))
        judge_step(page, keys, items, "meaning", m_labels, "Finalize unit")
        with page.expect_navigation():
            keys.press("Enter")
        got = {(j.item_id, j.step): j.label for j in Judgement.objects.filter(rater=rater, item__unit=unit)}
        assert got == {
            **{(i.pk, "grammaticality"): g for i, g in zip(items, g_labels, strict=True)},
            **{(i.pk, "meaning"): m for i, m in zip(items, m_labels, strict=True)},
        }
        assert unit.assignments.get(annotator=rater).step == "finalized"
    assert page.evaluate("window.__pointer") == 0
    make.screenshot(page, "evaluation-keyboard-done")
