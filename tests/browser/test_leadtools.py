"""A lead plans work, explores disagreement, opens a pair side by side, queues re-annotation and
adjudicates a gold annotation — in Chromium, with htmx doing the updates without reloads."""

import pytest

from annotator.models import AlignmentLink, Assignment, PairLabel, Phenomenon, ReannotationRound
from tests import make
from tests.make import screenshot

# The explorer's stored rows and the re-annotation queue are built by tasks: no worker runs here, so they
# run in-process (also when the suite has a broker).
pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]


@pytest.fixture
def world():
    # A transactional test database is flushed between tests, data migrations included.
    from annotator.core.tagsets import install_builtin_tagsets
    from annotator.models import ParaphraseType, Tagset

    if not Tagset.objects.filter(builtin=True).exists():
        install_builtin_tagsets(Tagset, ParaphraseType)
    return make.team(n_pairs=6)


def settled(page):
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def mark_page(page):
    """Tag the window so a full reload (which would drop the tag) is detected."""
    page.evaluate("window.__noReload = true")


def not_reloaded(page):
    return page.evaluate("window.__noReload === true")


def test_planner_preview_follows_the_options_without_reload(page, live_server, world):
    project = world["project"]
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/planner/")
    mark_page(page)
    preview = page.locator("#plan-preview")
    assert "18 already assigned" in preview.inner_text()
    page.check("input[name=selection][value=filter]")
    settled(page)
    page.fill("input[name=source_prefix]", "p1")
    page.wait_for_function("document.querySelector('#plan-preview').innerText.includes('1 pair ·')")
    page.check("input[name=selection][value=all]")
    settled(page)
    page.check("input[name=per_pair][value=k]")
    settled(page)
    assert "&amp;" not in page.locator("#plan-preview").inner_text()  # names, not escaped markup
    assert "Pairs shared by two annotators" in page.locator("#plan-preview").inner_text()
    assert not_reloaded(page)
    screenshot(page, "leadtools-planner")
    page.click("#confirm-plan")
    page.wait_for_selector("#plan-result")
    assert "Created 0 new assignments" in page.locator("#plan-result").inner_text()
    assert page.locator("input[name=per_pair][value=k]").is_checked()  # the selection is kept
    assert Assignment.objects.filter(project=project).count() == 18


def test_planner_pages_the_stored_plan_without_reload(page, live_server, world):
    from annotator.corpus import projects

    project = world["project"]
    for n in range(40):
        projects.add_pair(project, f"x{n:02d}", tokens1=["a"], tokens2=["b"])
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/planner/")
    mark_page(page)
    planned = page.locator("#planned")
    assert "Planned assignments 1–100 of 138" in planned.inner_text()
    page.click("#planned summary")
    page.click("#planned a[rel=next]")
    page.wait_for_function("document.querySelector('#planned').innerText.includes('101–138 of 138')")
    assert page.locator("#planned").get_attribute("open") is not None  # still open after the swap
    assert page.locator("#planned tbody tr").count() == 38
    assert not_reloaded(page)
    screenshot(page, "leadtools-planner-plan-page")


def test_explorer_lists_lowest_first_filters_and_opens_the_comparison(page, live_server, world):
    project = world["project"]
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/explorer/")
    mark_page(page)
    rows = page.locator("table.lt-explorer tbody tr")
    assert rows.first.locator("td.mono").inner_text() == "p3"
    screenshot(page, "leadtools-explorer")
    page.select_option("select[name=type]", "Semantics")
    page.wait_for_function("document.querySelectorAll('table.lt-explorer tbody tr').length === 1")
    assert not_reloaded(page) and "type=Semantics" in page.url
    page.select_option("select[name=type]", "")
    page.select_option("select[name=measure]", "labels")
    page.wait_for_function("document.querySelector('table.lt-explorer tbody tr td.mono').innerText === 'p2'")
    page.click("text=p2")
    page.wait_for_selector("#comparison")
    assert "ben: Not a paraphrase" in page.locator(".lt-scores").inner_text()
    mark_page(page)
    page.select_option("select[name=b]", "ben")
    page.select_option("select[name=a]", "cat")
    settled(page)
    assert not_reloaded(page)
    # The other pair's page by its own address (replacing the id in the URL could hit the project's).
    page.goto(f"{live_server.url}/projects/{project.pk}/explorer/{project.pairs.get(source_id='p3').pk}/")
    page.wait_for_selector("#phenomena-comparison")
    assert page.locator("#phenomena-comparison .lt-status-only").count() == 2
    assert page.locator(".lt-matrix td.lt-a").count() == 1
    screenshot(page, "leadtools-explorer-pair")


def test_ticked_pairs_go_to_the_reannotation_queue(page, live_server, world):
    project = world["project"]
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/explorer/")
    page.check("input[name=pick][value=p3]")
    page.check("input[name=pick][value=p2]")
    page.click("#send-selected")
    page.wait_for_selector("#reannotation-preview")
    assert "2 pairs meet the rule" in page.locator("#reannotation-preview").inner_text()
    with make.eager_tasks():
        page.click("#queue-button")
        page.wait_for_selector("#round-1")
    round_ = ReannotationRound.objects.get()
    assert round_.flagged == ["p2", "p3"] and round_.rule == "selected"
    assert Assignment.objects.filter(project=project, round=1).count() == 6
    screenshot(page, "leadtools-reannotation")


def test_lead_builds_the_gold_annotation(page, live_server, world):
    project = world["project"]
    pair = project.pairs.get(source_id="p3")
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/explorer/{pair.pk}/")
    page.click("#adjudicate-link")
    page.wait_for_selector("#adjudication")
    mark_page(page)
    # Take anna's version wholesale.
    page.locator("[data-annotator=anna] .lt-take").click()
    page.wait_for_function("document.querySelector('#gold').innerText.includes('version')")
    assert sorted(
        Phenomenon.objects.filter(pair=pair, is_gold=True).values_list("ptype__name", flat=True)
    ) == ["Same polarity"]
    # Merge ben's Semantics phenomenon.
    page.locator("[data-annotator=ben] input[name=phenomena]").first.check()
    page.click("#merge-button")
    page.wait_for_function("document.querySelector('#gold').innerText.includes('Semantics')")
    # Edit: remove one link, set the label.
    links_before = AlignmentLink.objects.filter(pair=pair, is_gold=True).count()
    page.locator("#gold .lt-gold-chip button[aria-label^='Remove link']").first.click()
    page.wait_for_function(f"document.querySelectorAll('#gold .lt-gold-chip').length === {links_before - 1}")
    settled(page)
    with page.expect_response(lambda r: r.request.method == "POST" and "/label/" in r.url):
        page.select_option("#gold-label", "non_paraphrase")
    settled(page)
    assert not_reloaded(page)
    screenshot(page, "leadtools-adjudicate")
    gold = PairLabel.objects.get(pair=pair, is_gold=True)
    assert gold.label == "non_paraphrase" and gold.annotator == world["lead"]
    assert sorted(
        Phenomenon.objects.filter(pair=pair, is_gold=True).values_list("ptype__name", flat=True)
    ) == [
        "Same polarity",
        "Semantics",
    ]
    assert AlignmentLink.objects.filter(pair=pair, is_gold=True).count() == links_before - 1


def test_a_long_reannotation_queue_is_previewed_a_page_at_a_time(page, live_server, world):
    from tests.lists_scale import big_project

    project = big_project(600, "Long")
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/reannotation/")
    preview = page.locator("#reannotation-preview")
    assert "300 pairs meet the rule" in preview.inner_text()
    assert "Pairs 1–100 of 330" in preview.inner_text()
    first = page.locator("#reannotation-queue span").all_inner_texts()
    mark_page(page)
    preview.get_by_role("link", name="Next ›").click()
    page.wait_for_selector("text=Pairs 101–200 of 330")
    settled(page)
    second = page.locator("#reannotation-queue span").all_inner_texts()
    assert len(first) == len(second) == 100 and not set(first) & set(second)
    assert not_reloaded(page)
    screenshot(page, "leadtools-reannotation-long-queue")
