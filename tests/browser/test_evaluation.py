"""A rater walks through both steps of a unit, postpones one, re-evaluates; a lead looks at the numbers."""

import re

import pytest

from annotator.agreement.computation import recompute
from annotator.evaluation import reevaluation
from annotator.evaluation import services as evaluation
from tests import make
from tests.make import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world():
    cast = make.cast()
    rater, other, lead = cast.anna, cast.ben, cast.lead
    project = make.evaluation_project("Substitutions", n_units=2, raters=(rater, other), lead=lead)
    return project, list(project.units.order_by("position")), rater, other, lead


def settled(page):
    """Wait until htmx has swapped and settled (XHRs do not move Playwright's load states)."""
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def click_and_swap(page, button):
    with page.expect_response(lambda r: r.request.method == "POST"):
        button.click()
    settled(page)


def answer(page, item, step, *choices):
    card = page.locator(f"#judgement-{item.pk}-{step}")
    for choice in choices:
        click_and_swap(page, card.locator("button.answer", has_text=re.compile(f"^{re.escape(choice)}$")))


def badge(page, item, step):
    return page.locator(f"#judgement-{item.pk}-{step} .label-badge").first


def test_rater_walks_through_both_steps_and_never_sees_the_original_in_step_1(page, live_server, world):
    project, (u1, _), rater, _, _ = world
    items = list(u1.items.all())
    make.signed_in(page, live_server, make.cast().anna)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/")
    screenshot(page, "evaluation-queue-start")
    page.click("#next-unit")
    page.wait_for_url(re.compile(r"/grammaticality/$"))
    html = page.content()
    assert u1.source_sentence not in html and "put off" not in html
    assert page.locator("#original").count() == 0
    assert page.get_by_role("button", name=re.compile("Submit grammaticality")).is_disabled()

    answer(page, items[0], "grammaticality", "Yes", "Perfect")
    assert badge(page, items[0], "grammaticality").inner_text() == "Perfect"
    answer(page, items[1], "grammaticality", "No", "Yes", "Yes, one edit")
    assert badge(page, items[1], "grammaticality").inner_text() == "Minor Problem"
    answer(page, items[2], "grammaticality", "No")
    screenshot(page, "evaluation-step1-walking")
    answer(page, items[2], "grammaticality", "No")  # not correctable
    assert badge(page, items[2], "grammaticality").inner_text() == "Irredeemable"
    # revise before submitting: change item 1 to Awkward
    click_and_swap(
        page, page.locator(f"#judgement-{items[0].pk}-grammaticality").get_by_role("button", name="Change")
    )
    answer(page, items[0], "grammaticality", "Yes", "Awkward")
    assert badge(page, items[0], "grammaticality").inner_text() == "Awkward"
    page.wait_for_function("document.querySelector('#unit-actions').innerText.startsWith('3 of 3')")
    assert page.get_by_role("button", name=re.compile("Submit grammaticality")).is_enabled()
    screenshot(page, "evaluation-step1-done")
    assert u1.source_sentence not in page.content()

    page.get_by_role("button", name=re.compile("Submit grammaticality")).click()
    page.wait_for_url(re.compile(r"/meaning/$"))
    assert "put off" in page.locator("#original").inner_text()
    for item, choices in zip(
        items, (("Yes", "No", "Yes"), ("Yes", "No", "No", "Loss of information"), ("No",)), strict=True
    ):
        answer(page, item, "meaning", *choices)
    assert [badge(page, i, "meaning").inner_text() for i in items] == [
        "Equivalent",
        "Missing Info.",
        "Completely Different",
    ]
    screenshot(page, "evaluation-step2-done")
    page.get_by_role("button", name="Finalize unit").click()
    page.wait_for_url(re.compile(r"/grammaticality/$"))  # on to the next unit
    labels = {(j.item_id, j.step): j.label for j in rater.judgements.all()}
    assert (
        labels[items[0].pk, "grammaticality"] == "Awkward"
        and labels[items[1].pk, "meaning"] == "Missing Info."
    )
    assert u1.assignments.get(annotator=rater).step == "finalized"


def test_postponed_unit_returns_after_the_others(page, live_server, world):
    project, (u1, u2), rater, _, _ = world
    make.signed_in(page, live_server, make.cast().anna)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/units/{u1.pk}/grammaticality/")
    page.get_by_role("button", name="Postpone this unit").click()
    page.wait_for_url(re.compile(rf"/units/{u2.pk}/grammaticality/$"))
    assert "comes back after your other units" in page.locator(".messages").inner_text()
    make.rate_unit(u2, rater, "Perfect", "Equivalent")
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/")
    assert page.locator("#postponed-units").is_visible()
    screenshot(page, "evaluation-queue-postponed")
    page.click("#next-unit")
    page.wait_for_url(re.compile(rf"/units/{u1.pk}/grammaticality/$"))


def test_rater_reevaluates_a_disagreed_item_and_the_lead_sees_before_and_after(page, live_server, world):
    project, units, rater, other, _ = world
    for unit in units:
        make.rate_unit(unit, rater, ["Perfect", "Awkward", "Major Problem"], "Equivalent")
        make.rate_unit(
            unit,
            other,
            ["Irredeemable", "Awkward", "Major Problem"],
            ["Equivalent", "Missing Info.", "Completely Different"],
        )
    reevaluation.build_reevaluation_sets(project, seed=0)
    make.signed_in(page, live_server, make.cast().anna)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/")
    page.get_by_role("link", name="Continue re-evaluation").click()
    page.wait_for_url(re.compile(r"/reevaluation/$"))
    first = units[0].items.order_by("position").first()
    card = page.locator(f"#judgement-{first.pk}-grammaticality")
    assert "please look again" in card.inner_text() and "Perfect" in card.inner_text()
    assert "You need not change them" in page.content()
    click_and_swap(page, card.get_by_role("button", name="Change"))
    answer(page, first, "grammaticality", "No", "Yes", "No, it needs more")
    assert "Major Problem" in page.locator(f"#judgement-{first.pk}-grammaticality").inner_text()
    screenshot(page, "evaluation-reevaluation")
    # step 1 does not end the unit: it leads on to the meaning step, which can still be changed
    assert page.get_by_role("button", name="Done with this unit").count() == 0
    page.get_by_role("link", name="Next: 2. Meaning ›").click()
    page.wait_for_url(re.compile(r"\?step=meaning$"))
    meaning = page.locator(f"#judgement-{first.pk}-meaning")
    click_and_swap(page, meaning.get_by_role("button", name="Change"))
    answer(page, first, "meaning", "Yes")  # one question of the tree answered, no label yet
    page.reload()
    meaning = page.locator(f"#judgement-{first.pk}-meaning")
    assert (
        "Do the two phrases share some meaning in this context?" in meaning.locator(".path").inner_text()
    )  # kept
    screenshot(page, "evaluation-reevaluation-meaning")
    page.get_by_role("button", name="Done with this unit").click()
    page.wait_for_load_state("networkidle")
    assert first.judgements.get(rater=rater, step="grammaticality", phase="initial").label == "Perfect"
    assert (
        first.judgements.get(rater=rater, step="grammaticality", phase="reevaluation").label
        == "Major Problem"
    )

    recompute(project.pk)
    page.context.clear_cookies()
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/setup/")
    assert page.locator("#fleiss-table").is_visible() and page.locator("#cohen-heatmap").is_visible()
    g2 = page.locator('#fleiss-table tr[data-scale="G2"]').inner_text()
    assert "—" not in g2.split("\t")[1] if "\t" in g2 else True
    screenshot(page, "evaluation-lead-setup")


def test_lead_builds_a_unit_and_assigns_raters(page, live_server, world):
    project, _, _, _, _ = world
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/setup/")
    form = page.locator("#build-unit")
    form.get_by_label("Source sentence").fill("Prices went up sharply in May.")
    form.get_by_label("Phrase to replace").fill("went up")
    form.get_by_label("Substitutions").fill("rose | lexicon-A\nclimbed | system-X")
    form.get_by_role("button", name="Build unit").click()
    page.wait_for_load_state("networkidle")
    assert "built with 2 candidate sentence(s)" in page.locator(".messages").inner_text()
    page.locator("#assign-raters").get_by_label("Raters per unit (r)").fill("2")
    page.locator("#assign-raters").get_by_role("button", name="Assign").click()
    page.wait_for_load_state("networkidle")
    assert "1 unit(s) assigned to 2 raters each" in page.locator(".messages").inner_text()
    assert (
        evaluation.rating_queue(project, project.members.get(username="anna")).last().unit.phrase == "went up"
    )


def test_a_change_made_in_another_tab_shows_a_conflict_at_the_item(page, live_server, world):
    project, (u1, _), rater, _, _ = world
    item = u1.items.first()
    make.signed_in(page, live_server, make.cast().anna)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/units/{u1.pk}/grammaticality/")
    answer(page, item, "grammaticality", "Yes")
    evaluation.record_judgement(item, rater, "grammaticality", label="Irredeemable")  # the other tab
    answer(page, item, "grammaticality", "Perfect")
    card = page.locator(f"#judgement-{item.pk}-grammaticality")
    assert "changed in another tab or device" in card.locator("[role=alert]").inner_text()
    assert item.judgements.get(rater=rater).label == "Irredeemable"
    screenshot(page, "evaluation-conflict")
    click_and_swap(page, card.get_by_role("button", name="Keep Irredeemable"))
    assert badge(page, item, "grammaticality").inner_text() == "Irredeemable"


def test_a_long_rating_queue_shows_a_page_of_units_at_a_time(page, live_server):
    from annotator.projects.roles import grant_role
    from tests.lists_scale import rated_units

    rater = make.cast().anna
    project = make.evaluation_project("Long queue", n_units=0)
    grant_role(project, rater, "annotator")
    rated_units(project, rater, 250, again_every=2)
    make.signed_in(page, live_server, rater)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/")
    assert "83 of 250 units finalized" in page.locator(".queue-progress").inner_text()
    assert page.locator("#open-units tbody tr").count() == 100
    assert "Units 1–100 of 250" in page.locator("#queue-pages").inner_text()
    assert "Units 1–100 of 125" in page.locator("#reevaluation-pages").inner_text()
    page.locator("#queue-pages").get_by_role("link", name="Next ›").click()
    page.wait_for_selector("text=Units 101–200 of 250")
    rows = [
        page.locator(f"#{section}-units tbody tr").count() for section in ("open", "postponed", "finished")
    ]
    assert rows == [43, 24, 33]  # 143 open, 24 postponed, then the finalized ones
    page.locator("#queue-pages").get_by_role("link", name="Next ›").click()
    page.wait_for_selector("text=Units 201–250 of 250")
    assert page.locator("#finished-units tbody tr").count() == 50
    screenshot(page, "evaluation-rating-queue-long")
