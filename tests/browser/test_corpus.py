"""An admin imports MRPC into a new project, then ETPC relations with skip-invalid, then exports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache

from annotator.core.tagsets import install_builtin_tagsets
from annotator.models import ParaphraseType, Phenomenon, Project, Tagset
from tests import make
from tests.make import TWO_ROWS, relation, relations_file, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def tasks_in_process() -> Any:
    """Export jobs run as Celery tasks: in-process here, even when REDIS_URL points at a broker."""
    from celery import current_app

    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = eager


@pytest.fixture
def admin(settings: Any, tmp_path: Path) -> Any:
    settings.MEDIA_ROOT = tmp_path
    cache.clear()
    install_builtin_tagsets(Tagset, ParaphraseType)  # transactional tests flush the data migration's rows
    return make.cast().admin


def test_admin_imports_mrpc_then_etpc_then_exports(
    page: Any, live_server: Any, admin: Any, tmp_path: Path
) -> None:
    mrpc = tmp_path / "msr_paraphrase_train.txt"
    mrpc.write_bytes(TWO_ROWS)
    relations = tmp_path / "textual_np_neg.xml"
    relations.write_bytes(
        relations_file(
            relation("2", "1", s1="5", s2="7", s1_text="selling", s2_text="sold", sense="no"),
            relation("2", "6", s1="7, 8", s2="8", s1_text="the chain", s2_text="it", sense="no"),
            relation("2", "25", s1="1", s2="1", sense="no"),
        )
    )
    make.signed_in(page, live_server, make.cast().admin)
    page.goto(f"{live_server.url}/corpus/import/")
    page.fill("input[name=project_name]", "MRPC sample")
    page.select_option("select[name=format]", "mrpc")
    page.set_input_files("input[name=files]", str(mrpc))
    screenshot(page, "corpus-import-new-project")
    page.click("button[type=submit]")
    page.wait_for_selector("text=MRPC sample: created 1 project, 2 pairs")
    project = Project.objects.get(name="MRPC sample")
    assert project.pairs.count() == 2

    page.select_option("select[name=format]", "etpc")
    page.fill("#import input[name=annotator]", "kovatchev")
    page.set_input_files("input[name=files]", str(relations))
    page.check("input[name=skip_invalid]")
    page.click("#import button[type=submit]")
    page.wait_for_selector("text=1 repaired; 1 skipped")
    assert Phenomenon.objects.filter(annotator__username="kovatchev").count() == 2
    assert page.locator('summary:has-text("Skipped (1)")').count() == 1

    page.select_option("#export select[name=format]", "csv")
    page.click("#export button[type=submit]")
    page.wait_for_selector("a.button:has-text('Download')")
    screenshot(page, "corpus-jobs")
    with page.expect_download() as download:
        page.click("a.button:has-text('Download')")
    assert download.value.suggested_filename == "MRPC-sample-phenomena-all.csv"


def test_lead_opens_the_printable_agreement_report(page: Any, live_server: Any, admin: Any) -> None:
    from annotator.agreement.computation import recompute
    from annotator.annotation import services as annotation_services

    cast = make.cast()
    lead, anna, ben = cast.lead, cast.anna, cast.ben
    project = make.project_with_pairs("Printable", n_pairs=2, lead=lead, annotators=(anna, ben))
    diathesis = make.vila().types.get(name="Diathesis")
    with make.batched_agreement():
        for pair in project.pairs.all():
            for user, links in ((anna, [(1, 0), (4, 2)]), (ben, [(1, 0), (5, 3)])):
                annotation_services.set_links(pair, user, links, sure=True, base_version=None)
                annotation_services.add_phenomenon(
                    pair, user, diathesis, scope1=[2], scope2=[1], base_version=None
                )
    recompute(project.pk)
    make.signed_in(page, live_server, make.cast().lead)
    page.goto(f"{live_server.url}/projects/{project.pk}/corpus/agreement-report/")
    page.wait_for_selector("text=Agreement report — Printable")
    assert page.locator("td", has_text="alignment.words.f1").count() >= 1
    screenshot(page, "corpus-report-print")
