"""The lead watches the dashboard while annotators save: the numbers change without a reload."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from annotator.annotation import services as annotation_services
from annotator.core.tagsets import install_builtin_tagsets
from annotator.models import ParaphraseType, Tagset
from tests import make
from tests.make import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def in_process_tasks():
    """Recompute in-process (as without REDIS_URL) even when the suite runs against Redis: no worker here."""
    from celery import current_app

    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = eager


@pytest.fixture
def project_team(in_process_tasks):
    cache.clear()
    install_builtin_tagsets(Tagset, ParaphraseType)  # transactional tests flush the data migration's rows
    lead = make.cast().lead
    anns = make.cast().annotators
    project = make.project_with_pairs("Live project", n_pairs=4, lead=lead, annotators=anns)
    diathesis = make.vila().types.get(name="Diathesis")
    for n, pair in enumerate(project.pairs.order_by("position")):
        with make.batched_agreement():  # one computation per pair: the trend has a point per pair
            for who in anns:
                annotation_services.add_phenomenon(
                    pair,
                    who,
                    diathesis,
                    scope1=[2] if who != anns[1] or n else [3],
                    scope2=[1],
                    base_version=None,
                )
                annotation_services.set_links(pair, who, [(1, 0), (4, 2)], sure=True, base_version=None)
                annotation_services.set_pair_label(pair, who, "paraphrase", base_version=None)
    return project, lead, anns


def fleiss_text(page) -> str:
    return page.locator("#label-agreement .big-number span").first.inner_text()


def test_dashboard_updates_without_reload_when_an_annotation_is_saved(page, live_server, project_team):
    project, lead, (anna, ben, cat) = project_team
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
    assert page.locator("#snapshot-status").inner_text().startswith("Last snapshot")
    assert fleiss_text(page) == "—"  # everybody said paraphrase so far
    do_before = page.locator("#phenomena-agreement tr.headline td.mean").inner_text()
    page.evaluate("window.__sameDocument = true")
    screenshot(page, "dashboard-before-save")

    pair = project.pairs.order_by("position").first()
    annotation_services.set_pair_label(
        pair, ben, "non_paraphrase", base_version=None
    )  # committed → recompute
    annotation_services.add_phenomenon(
        pair, cat, make.vila().types.get(name="Punctuation"), scope1=[5], scope2=[3], base_version=None
    )

    page.wait_for_function(
        "document.querySelector('#label-agreement .big-number span').innerText !== '—'", timeout=15_000
    )
    assert re.fullmatch(r"-?\d\.\d{3}", fleiss_text(page))
    # the two saves may reach the page in two polls: the label's panel can move before the phenomena's
    page.wait_for_function(
        "before => document.querySelector('#phenomena-agreement tr.headline td.mean').innerText !== before",
        arg=do_before,
        timeout=15_000,
    )
    assert page.evaluate("window.__sameDocument") is True  # no full reload happened
    assert "Punctuation" in page.locator("#phenomena-agreement").inner_text()
    screenshot(page, "dashboard-after-save")


def test_dashboard_at_wide_screen(page, live_server, project_team):
    project, lead, _ = project_team
    page.set_viewport_size({"width": 1920, "height": 1080})
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
    for panel in (
        "progress",
        "trend",
        "heatmap",
        "phenomena-agreement",
        "alignment-agreement",
        "label-agreement",
    ):
        assert page.locator(f"#{panel}").is_visible()
    assert page.locator("#trend svg title").count() > 1
    screenshot(page, "dashboard-1920")


def test_statistics_panel_compares_type_frequencies_with_another_project(page, live_server, project_team):
    project, lead, anns = project_team
    other = make.project_with_pairs("Second corpus", n_pairs=2, lead=lead, annotators=anns)
    diathesis = make.vila().types.get(name="Diathesis")
    for pair in other.pairs.order_by("position"):
        annotation_services.add_phenomenon(
            pair, anns[0], diathesis, scope1=[1], scope2=[1], base_version=None
        )
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{other.pk}/dashboard/")  # its dashboard keeps its statistics
    page.locator("#statistics h3").first.wait_for()
    page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
    panel = page.locator("#statistics")
    panel.get_by_label("Second corpus").check()
    panel.get_by_role("button", name="Correlate").click()
    row = page.locator("#statistics table tr", has_text="Second corpus")
    row.wait_for()
    assert "types compared" in page.locator("#statistics").inner_text()
    assert "Corpus (mean per annotator)" in page.locator("#statistics").inner_text()
    page.locator("#statistics").screenshot(
        path=str(screenshot(page, "dashboard-statistics").with_name("dashboard-statistics-panel.png"))
    )


def test_dashboard_shows_the_intervals_the_agreement_stores(page, live_server, project_team, monkeypatch):
    import functools

    from annotator.agreement import computation, results
    from annotator.agreement.computation import recompute

    monkeypatch.setattr(
        computation, "report_sections", functools.partial(results.report_sections, intervals_seed=0)
    )
    project, lead, _ = project_team
    cache.clear()
    assert recompute(project.pk, full=True).startswith("stored")
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
    table = page.locator("#phenomena-agreement table.measures")
    table.wait_for()
    assert table.locator(".ci").count() >= 3 * 14  # every measure row: 3 annotator pairs and the mean
    assert page.locator("table.kappa .ci").count() == 4  # κ_C per annotator pair and the mean
    page.locator("#phenomena-agreement").screenshot(
        path=str(screenshot(page, "dashboard-intervals").with_name("dashboard-intervals-panel.png"))
    )


def test_measure_explanation_reads_for_a_lead_with_the_hat_over_pi(page, live_server, project_team):
    from django.urls import reverse

    make.signed_in(page, live_server, make.cast().lead)
    page.goto(live_server.url + reverse("annotator:measure-explanation", args=["kappa-c"]))
    article = page.locator("#measure-explanation")
    assert article.locator("p").first.inner_text().startswith("What it answers.")
    hat = article.locator(".hat").first
    box, letter = hat.bounding_box(), hat.evaluate("e => getComputedStyle(e, '::after').content")
    assert box is not None and letter == '"ˆ"'
    screenshot(page, "measure-explanation-kappa-c")
