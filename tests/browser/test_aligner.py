"""The automatic aligner in Chromium, as a lead and an annotator use it: the lead presses "Train
aligner" on the import/export page and sees the run finish; the annotator opens a pair and sees the
trained links as suggestions (a non-identical one among them), accepts one and corrects the rest; the
dashboard shows the annotator against the aligner and which baseline κ_C used.
Screenshots go to artifacts/screenshots/aligner-*.png."""

from __future__ import annotations

import pytest

from annotator.agreement.computation import recompute
from annotator.corpus import projects
from annotator.models import AlignerRun, AlignmentLink, Pair
from annotator.projects import services as project_setup
from tests import make
from tests.make import screenshot as save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SENTENCES = [
    ("John bought a new car yesterday .", "Yesterday John purchased a new car ."),
    ("Mary bought a house .", "Mary purchased a house ."),
    ("They bought two tickets .", "They purchased two tickets ."),
    ("She bought bread .", "She purchased bread ."),
]


def screenshot(page, name):
    page.evaluate("window.scrollTo(0, 0)")
    return save_screenshot(page, name)


@pytest.fixture
def world():
    cast = make.cast()
    ann, lead = cast.anna, cast.lead
    project = project_setup.create_project(lead, name="Aligner", tagset=make.vila())
    pairs = []
    for n in range(24):
        s1, s2 = SENTENCES[n % len(SENTENCES)]
        pairs.append(projects.add_pair(project, f"p{n}", tokens1=s1.split(), tokens2=s2.split()))
    projects.assign_pairs(project, [ann], pairs)
    return {"project": project, "pair": pairs[0], "ann": ann, "lead": lead}


def test_lead_trains_and_annotator_accepts_and_corrects_suggestions(page, live_server, world, eager_celery):
    project, pair, ann = world["project"], world["pair"], world["ann"]
    make.signed_in(page, live_server, world["lead"])
    page.goto(f"{live_server.url}/projects/{project.pk}/corpus/")
    page.click("[data-train-aligner]")
    page.wait_for_selector("#aligner-run-1.job-succeeded", timeout=60_000)
    assert "posterior/per-kind v1" in page.locator("#aligner .baseline").inner_text()
    screenshot(page, "aligner-trained-1280")
    run = AlignerRun.objects.get(project=project)
    assert run.version == 1 and run.report["written"] == 24
    pair = Pair.objects.get(pk=pair.pk)
    assert [1, 2] in pair.initial_alignment  # bought ↔ purchased
    # the lead shows only the surest links strongly: those under the threshold are drawn faintly
    page.fill("#id_suggestion_threshold", "0.99")
    page.click("[data-set-threshold]")
    page.wait_for_selector('#id_suggestion_threshold[value="0.99"]')
    n_faint = sum(1 for c in pair.initial_alignment_confidence if c < 0.99)

    page.context.clear_cookies()
    make.signed_in(page, live_server, ann)
    page.goto(f"{live_server.url}/projects/{project.pk}/pairs/{pair.pk}/")
    page.keyboard.press("Shift+A")
    n_suggested = len(pair.initial_alignment)
    assert page.locator(".link-lines line.link.suggested").count() == n_suggested
    assert page.locator(".link-lines line.link.suggested.faint").count() == n_faint
    assert page.locator(".sugg.faint").count() == n_faint
    assert "bought – purchased" in page.locator(".suggestion-list").inner_text()
    screenshot(page, "aligner-suggestions-1280")
    assert not AlignmentLink.objects.filter(annotator=ann).exists()  # opening recorded nothing
    page.locator(".sugg", has_text="bought – purchased").click()
    page.wait_for_selector('#save-status.is-saved[data-pending="0"]')
    assert list(AlignmentLink.objects.filter(annotator=ann).values_list("i", "j", "sure")) == [(1, 2, True)]
    assert page.locator(".link-lines line.link.suggested").count() == n_suggested - 1
    page.click("[data-accept-all]")
    page.wait_for_selector('#save-status.is-saved[data-pending="0"]')
    page.wait_for_function("document.querySelectorAll('.link-lines line.link.suggested').length === 0")
    screenshot(page, "aligner-accepted-1280")
    assert AlignmentLink.objects.filter(annotator=ann).count() == n_suggested

    recompute(project.pk)
    page.context.clear_cookies()
    make.signed_in(page, live_server, world["lead"])
    page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
    text = page.content()
    assert "Annotators against the automatic aligner" in text and "κ_C baseline" in text
    screenshot(page, "aligner-dashboard-1280")
