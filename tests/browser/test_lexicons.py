"""Fujita's lexicon evaluation end to end in the browser: the lead builds units from a small lexicon and
sentence file, assigns raters, a rater judges in two steps, and the lead reads precision per lexicon,
per union and against the score threshold. Also the dashboard's statistics and sense-layer panels."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.core.tagsets import install_builtin_tagsets
from annotator.models import EvaluationUnit, LexiconItem, ParaphraseType, Tagset
from annotator.projects import services as project_setup
from tests import make
from tests.annotator.evaluation.lexicon_files import LEXICON, SENTENCES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def in_process_tasks():
    """Tasks in-process (as without REDIS_URL) even when the suite runs against Redis: no worker here."""
    from celery import current_app

    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = eager


def settled(page):
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def answer(page, item, step, *choices):
    card = page.locator(f"#judgement-{item.pk}-{step}")
    for choice in choices:
        with page.expect_response(lambda r: r.request.method == "POST"):
            card.locator("button.answer", has_text=re.compile(f"^{re.escape(choice)}$")).click()
        settled(page)


def test_lead_builds_units_from_a_lexicon_raters_judge_and_the_lead_reads_precision(
    page, live_server, in_process_tasks, tmp_path
):
    lead, rita, otto = make.user("lena"), make.user("rita"), make.user("otto")
    project = project_setup.create_project(
        lead,
        name="Lexicons",
        layer_evaluation=True,
        layer_pair_label=False,
        layer_phenomena=False,
        layer_word_alignment=False,
    )
    for rater in (rita, otto):
        project.memberships.create(user=rater, role="annotator")
    lexicon, sentences = tmp_path / "lexicon.tsv", tmp_path / "sentences.txt"
    lexicon.write_text(LEXICON)
    sentences.write_text(SENTENCES)

    make.signed_in(page, live_server, "lena")
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/setup/")
    page.get_by_role("link", name="Lexicon evaluation").click()
    page.wait_for_url(re.compile(r"/evaluation/lexicons/$"))
    form = page.locator("#build-from-lexicon")
    form.get_by_label("Lexicon file").set_input_files(str(lexicon))
    form.get_by_label("Sentence file").set_input_files(str(sentences))
    form.get_by_label("Seed").fill("7")
    form.get_by_label("Sentences per phrase").fill("1")
    form.get_by_label("Paraphrases per unit").fill("3")
    form.get_by_role("button", name="Preview").click()
    page.wait_for_load_state("networkidle")
    preview = page.locator("#lexicon-preview").inner_text()
    assert "Preview: 1 unit with 3 candidate sentences from P_Del, P_Seed: 1 of 2 phrases kept." in preview
    assert not EvaluationUnit.objects.filter(project=project).exists()
    make.screenshot(page, "lexicons-preview")
    form.get_by_label("Lexicon file").set_input_files(str(lexicon))
    form.get_by_label("Sentence file").set_input_files(str(sentences))
    form.get_by_role("button", name="Build units").click()
    page.wait_for_load_state("networkidle")
    message = page.locator(".messages").inner_text()
    assert "Built 1 unit with 3 candidate sentences from P_Del, P_Seed: 1 of 2 phrases kept." in message
    assert "1 with fewer than 3 paraphrases: 'fell sharply' (1)." in message
    assert "Fujita §5.1: phrases with at least 3 paraphrases" in page.locator("#lexicons").inner_text()
    unit = EvaluationUnit.objects.get(project=project)
    assert LexiconItem.objects.filter(item__unit=unit).count() == 4  # "rose" is in both lexicons
    make.screenshot(page, "lexicons-built")

    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/setup/")
    page.locator("#assign-raters").get_by_label("Raters per unit (r)").fill("2")
    page.locator("#assign-raters").get_by_role("button", name="Assign").click()
    page.wait_for_load_state("networkidle")

    items = {i.paraphrase: i for i in unit.items.all()}
    make.rate_unit(
        unit,
        otto,
        "Perfect",
        ["Equivalent" if i.paraphrase != "increased" else "Completely Different" for i in unit.items.all()],
    )
    page.context.clear_cookies()
    make.signed_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/")
    page.click("#next-unit")
    page.wait_for_url(re.compile(r"/grammaticality/$"))
    assert "Ignore errors that the substitution did not cause" in page.content()
    assert unit.source_sentence not in page.content()
    for item in unit.items.all():
        answer(page, item, "grammaticality", "Yes", "Perfect")
    page.get_by_role("button", name=re.compile("Submit grammaticality")).click()
    page.wait_for_url(re.compile(r"/meaning/$"))
    for item in unit.items.all():
        answer(page, item, "meaning", *(("No",) if item.paraphrase == "increased" else ("Yes", "No", "Yes")))
    page.get_by_role("button", name="Finalize unit").click()
    page.wait_for_load_state("networkidle")

    page.context.clear_cookies()
    make.signed_in(page, live_server, "lena")
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation/lexicons/")
    table = page.locator("#lexicon-precision table")
    rows = {r.locator("td").first.inner_text(): r.inner_text() for r in table.locator("tbody tr").all()}
    assert set(rows) == {"P_Del", "P_Seed", "P_Del ∪ P_Seed"}
    # Both raters: rose and climbed OK on both steps; increased "Completely Different" → P_Del 0.5.
    assert "0.500" in rows["P_Del"] and "1.000" in rows["P_Seed"] and "0.667" in rows["P_Del ∪ P_Seed"]
    charts = page.locator("#lexicon-precision svg")  # G, M and both
    assert charts.count() == 3
    # per chart: 2 scores in each lexicon, 3 in their union (rose with its higher score, 0.9)
    assert [charts.nth(n).locator("circle").count() for n in range(3)] == [7, 7, 7]
    assert items["rose"].lexicons.count() == 2
    make.screenshot(page, "lexicons-precision")


@pytest.fixture
def etpc_like_team(in_process_tasks):
    cache.clear()
    install_builtin_tagsets(Tagset, ParaphraseType)
    lead = make.user("lead")
    anns = (make.user("ana"), make.user("bo"), make.user("cleo"))
    project = make.project_with_pairs("Sense project", n_pairs=6, lead=lead, annotators=anns)
    types = [make.vila().types.get(name=n) for n in ("Diathesis", "Synthetic/analytic", "Inflectional")]
    with make.batched_agreement():
        for n, pair in enumerate(project.pairs.order_by("position")):
            for k, who in enumerate(anns):
                annotation_services.add_phenomenon(
                    pair,
                    who,
                    types[0],
                    scope1=[2],
                    scope2=[1],
                    sense_preserving=(n + k) % 3 != 0,
                    base_version=None,
                )
                if (n + k) % 2:
                    annotation_services.add_phenomenon(
                        pair,
                        who,
                        types[1],
                        scope1=[0, 1],
                        scope2=[0],
                        projection="local",
                        sense_preserving=True,
                        base_version=None,
                    )
                annotation_services.set_links(
                    pair, who, [(1, 0), (4, 2)] if k else [(1, 0), (2, 1)], sure=True, base_version=None
                )
    recompute(project.pk)
    return project


def test_dashboard_shows_sense_layers_and_the_statistics_panel(page, live_server, etpc_like_team):
    project = etpc_like_team
    make.signed_in(page, live_server, "lead")
    page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
    layers = page.locator("table.sense-layers")
    assert layers.is_visible()
    text = layers.inner_text()
    assert "ETPC(+)" in text and "ETPC(−)" in text and "ETPC(+/−)" in text
    page.wait_for_selector("#statistics h3")
    stats = page.locator("#statistics")
    assert "mirrors Vila et al. 2015, Table 3" in stats.inner_text()
    assert "mirrors Cohn, Callison-Burch & Lapata 2008, Fig. 4" in stats.inner_text()
    assert stats.locator("svg").count() == 2
    make.screenshot(page, "dashboard-sense-and-statistics")
    page.locator("#phenomena-agreement").screenshot(
        path=str(make.screenshot(page, "dashboard-sense-layers-panel"))
    )
    page.locator("#statistics").screenshot(path=str(make.screenshot(page, "dashboard-statistics-panel")))
