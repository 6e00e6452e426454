"""Aligner training, tree parsing and the explorer refresh run once: a task the broker delivers again
while a live worker runs the job leaves it, one whose worker died runs it; a cancel during the run stops
it at its next checkpoint and nothing is written (simulated redelivery, as the import jobs' tests do)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotator.annotation import services as ann
from annotator.corpus import aligner_training as training
from annotator.corpus import projects, run_once, tree_parsing
from annotator.leadtools import explorer_rows
from annotator.models import AlignerRun, ExplorerState, ExplorerValue, Pair
from annotator.projects import services as project_setup
from tests import make
from tests.make import logged_in

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

SENTENCES = [
    ("He bought a car .", "He purchased a car ."),
    ("She bought the house .", "She purchased the house ."),
    ("They sold a car .", "They sold an automobile ."),
]


@pytest.fixture
def world(settings: Any, monkeypatch: Any) -> Any:
    make.isolate_cache(settings)
    cache.clear()
    monkeypatch.setattr(run_once, "CHECK_EVERY", 0.0)  # every checkpoint reads the cancel flag
    cast = make.cast()
    project = project_setup.create_project(cast.lead, name="Long", tagset=make.vila())
    pairs = [
        projects.add_pair(project, f"p{n}", tokens1=s1.split(), tokens2=s2.split())
        for n, (s1, s2) in enumerate(SENTENCES * 4)
    ]
    projects.assign_pairs(project, [cast.anna], pairs)
    return {"cast": cast, "project": project, "pairs": pairs}


def alignments(project: Any) -> list[Any]:
    return list(
        Pair.objects.filter(project=project).order_by("pk").values_list("initial_alignment_source", flat=True)
    )


# ---- aligner training ------------------------------------------------------------------------------


def queued_run(project: Any) -> AlignerRun:
    return training.create_run(project, None, training.settings_from("intersection"))


def test_a_training_delivered_again_while_a_live_worker_trains_is_left_to_it(world, monkeypatch):
    run = queued_run(world["project"])
    real = training._train_and_store
    second: list[Any] = []

    def delivered_again_meanwhile(*args: Any, **kwargs: Any) -> Any:
        second.append(training.run_training(run.pk))  # the broker's second delivery, on another worker
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "_train_and_store", delivered_again_meanwhile)
    assert training.run_training(run.pk) == AlignerRun.Status.SUCCEEDED
    assert second == [None]
    assert training.run_training(run.pk) is None  # a late delivery of the finished run changes nothing
    run.refresh_from_db()
    assert run.status == AlignerRun.Status.SUCCEEDED and run.report["written"] == len(world["pairs"])


def test_a_training_whose_worker_died_is_run_by_the_next_delivery(world):
    run = queued_run(world["project"])
    AlignerRun.objects.filter(pk=run.pk).update(status=AlignerRun.Status.RUNNING, stage="training")
    assert training.run_training(run.pk) == AlignerRun.Status.SUCCEEDED  # nothing holds it: the worker died


def test_a_cancel_during_training_stops_it_and_no_alignment_changes(world, monkeypatch):
    run = queued_run(world["project"])
    before = alignments(world["project"])
    stages: list[str] = []
    real_call = training._Progress.__call__

    def cancel_at_first_report(self: Any, stage: str, done: int, total: int) -> None:
        stages.append(stage)
        if len(stages) == 1:
            training.cancel_training(run)
        real_call(self, stage, done, total)

    monkeypatch.setattr(training._Progress, "__call__", cancel_at_first_report)
    assert training.run_training(run.pk) == AlignerRun.Status.CANCELLED
    assert stages == ["training"]  # stopped at the report where the cancel arrived
    run.refresh_from_db()
    assert run.status == AlignerRun.Status.CANCELLED and "no alignment was changed" in run.report["summary"]
    assert alignments(world["project"]) == before


def test_a_queued_training_cancelled_from_the_page_never_runs(world):
    run = queued_run(world["project"])
    url = reverse("annotator:corpus-aligner", args=[world["project"].pk])
    assert logged_in(world["cast"].lead).post(url, {"cancel_run": str(run.pk)}).status_code == 302
    run.refresh_from_db()
    assert run.status == AlignerRun.Status.CANCELLED
    assert training.run_training(run.pk) is None
    assert logged_in(world["cast"].other_lead).post(url, {"cancel_run": str(run.pk)}).status_code == 404


# ---- tree parsing -----------------------------------------------------------------------------------


def fake_parser(monkeypatch: Any, during: Any = None) -> list[int]:
    """A parser standing in for spaCy: reports progress every member (the real one every 200)."""
    reports: list[int] = []

    def parse(sentences: Any, *, backend: str, language: str, progress: Any) -> list[str]:
        out = []
        for n, tokens in enumerate(sentences):
            reports.append(n)
            progress(n)
            if during is not None:
                during(n)
            out.append("(S " + " ".join(f"(X {t})" for t in tokens) + ")")
        return out

    monkeypatch.setattr(tree_parsing, "parse_members", parse)
    return reports


def queued_parsing(project: Any, user: Any, monkeypatch: Any, task_queue: Any) -> None:
    monkeypatch.setattr(tree_parsing, "model_for", lambda language, backend: object())
    monkeypatch.setattr(tree_parsing, "parser_source", lambda backend, language="en": "fake 1.0")
    tree_parsing.start_parsing(project, user)
    assert tree_parsing.tree_progress(project.pk)["status"] == "queued"


def trees(project: Any) -> list[str]:
    return list(Pair.objects.filter(project=project).order_by("pk").values_list("tree1", flat=True))


def test_a_parsing_delivered_again_while_a_live_worker_parses_is_left_to_it(world, monkeypatch, task_queue):
    project = world["project"]
    queued_parsing(project, world["cast"].lead, monkeypatch, task_queue)
    second: list[Any] = []
    fake_parser(monkeypatch, during=lambda n: n == 0 and second.append(tree_parsing.run_parsing(project.pk)))
    summary = tree_parsing.run_parsing(project.pk)
    assert summary is not None and summary["pairs"] == len(world["pairs"]) and second == [None]
    assert tree_parsing.run_parsing(project.pk) is None  # delivered after it ended: nothing is parsed again
    assert tree_parsing.tree_progress(project.pk)["status"] == "succeeded"


def test_a_cancel_during_parsing_stops_it_within_a_report_and_no_tree_changes(world, monkeypatch, task_queue):
    project = world["project"]
    queued_parsing(project, world["cast"].lead, monkeypatch, task_queue)
    before = trees(project)
    reports = fake_parser(monkeypatch, during=lambda n: n == 2 and tree_parsing.cancel_parsing(project))
    assert tree_parsing.run_parsing(project.pk) is None
    assert reports == [0, 1, 2, 3]  # the report after the cancel stopped it
    state = tree_parsing.tree_progress(project.pk)
    assert state["status"] == "cancelled" and "no tree was changed" in state["summary"]
    assert trees(project) == before


def test_a_queued_parsing_cancelled_from_the_page_never_runs(world, monkeypatch, task_queue):
    project = world["project"]
    queued_parsing(project, world["cast"].lead, monkeypatch, task_queue)
    url = reverse("annotator:corpus-trees", args=[project.pk])
    assert logged_in(world["cast"].lead).post(url, {"cancel": "1"}).status_code == 302
    assert tree_parsing.tree_progress(project.pk)["status"] == "cancelled"
    reports = fake_parser(monkeypatch)
    assert tree_parsing.run_parsing(project.pk) is None and reports == []


# ---- explorer refresh -------------------------------------------------------------------------------


def test_an_explorer_refresh_delivered_again_while_one_runs_is_left_to_it(world, monkeypatch):
    project = world["project"]
    real = explorer_rows.refresh
    second: list[Any] = []

    def delivered_again_meanwhile(p: Any, **options: Any) -> int:
        second.append(explorer_rows.refresh_once(p))
        return real(p, **options)

    monkeypatch.setattr(explorer_rows, "refresh", delivered_again_meanwhile)
    stored = explorer_rows.refresh_once(project)
    assert second == [None] and stored == ExplorerValue.objects.filter(project=project).count()
    assert not run_once.is_held(f"explorer-refresh:{project.pk}")  # the claim goes with the run
    monkeypatch.setattr(explorer_rows, "refresh", real)
    assert explorer_rows.refresh_once(project) == stored  # a later refresh runs


def explorer_stored(project: Any) -> tuple[Any, ...]:
    """The project's stored explorer rows and state, as they are."""
    values = list(ExplorerValue.objects.filter(project=project).order_by("pk").values())
    state = ExplorerState.objects.filter(project=project).values("source", "counts", "n_compared").get()
    return values, state


def changed_since_the_refresh(world: Any) -> Any:
    """The project after a refresh and then one more annotation: its rows are not current."""
    project = world["project"]
    explorer_rows.refresh(project)
    before = explorer_stored(project)
    ann.set_pair_label(world["pairs"][0], world["cast"].anna, "paraphrase", base_version=None)
    assert not explorer_rows.rows_current(project)
    return before


def test_a_cancel_stops_the_explorer_refresh_between_batches_and_keeps_the_previous_rows(world, monkeypatch):
    project = world["project"]
    before = changed_since_the_refresh(world)
    monkeypatch.setattr(explorer_rows, "BATCH", 2)  # 12 pairs: 6 batches
    real, read = explorer_rows.batch_rows, []

    def the_lead_cancels_during_the_second(*args: Any) -> Any:
        read.append(args[2])
        if len(read) == 2:
            assert explorer_rows.cancel_refresh(project) is True  # it was running
        return real(*args)

    monkeypatch.setattr(explorer_rows, "batch_rows", the_lead_cancels_during_the_second)
    assert explorer_rows.refresh_once(project) is None
    assert len(read) == 2  # stopped before its third batch
    assert explorer_stored(project) == before  # rolled back: the previous refresh's rows
    name = f"explorer-refresh:{project.pk}"
    assert not run_once.is_held(name) and cache.get(run_once.CANCEL_KEY.format(name)) is None
    monkeypatch.setattr(explorer_rows, "batch_rows", real)
    explorer_rows.resume_refresh(project)  # no broker here: refreshed within the call
    assert explorer_rows.rows_current(project) and not explorer_rows.is_paused(project)


def test_the_lead_stops_the_queued_explorer_refresh_from_the_page_and_asks_again(world, task_queue):
    project = world["project"]
    before = changed_since_the_refresh(world)
    client = logged_in(world["cast"].lead)
    page = reverse("annotator:explorer", args=[project.pk])
    url = reverse("annotator:explorer-refresh", args=[project.pk])
    assert client.post(url).status_code == 302  # the lead asks: a GET sends nothing
    assert task_queue.sent == [(explorer_rows.REFRESH_TASK, (project.pk,))]
    answer = client.get(page).content.decode()
    assert "data-explorer-cancel" in answer and len(task_queue.sent) == 1
    assert client.post(url, {"cancel": "1"}).status_code == 302
    assert explorer_rows.refresh_once(project) is None  # the queued task, delivered now, stops at once
    assert explorer_stored(project) == before
    answer = client.get(page).content.decode()
    assert "The refresh was stopped" in answer and "recomputing…" not in answer
    assert len(task_queue.sent) == 1  # none asked for while it is stopped
    assert client.post(url).status_code == 302
    assert task_queue.sent[1:] == [(explorer_rows.REFRESH_TASK, (project.pk,))]
    assert explorer_rows.refresh_once(project) == ExplorerValue.objects.filter(project=project).count()
    assert explorer_rows.rows_current(project)
    assert logged_in(world["cast"].anna).post(url, {"cancel": "1"}).status_code in (403, 404)


def test_the_api_stops_the_explorer_refresh_and_asks_again(world, task_queue):
    project = world["project"]
    before = changed_since_the_refresh(world)
    client = make.api_client(world["cast"].lead)
    base = f"/api/projects/{project.pk}/explorer"
    assert client.get(f"{base}/").json()["current"] is False
    answer = client.post(f"{base}/cancel/")
    assert answer.status_code == 200 and answer.json() == {"running": False, "current": False, "paused": True}
    assert explorer_rows.refresh_once(project) is None and explorer_stored(project) == before
    assert client.get(f"{base}/").json()["paused"] is True and task_queue.sent == []  # a GET sends nothing
    answer = client.post(f"{base}/refresh/")
    assert answer.status_code == 200 and answer.json()["paused"] is False and len(task_queue.sent) == 1
    assert make.api_client(world["cast"].anna).post(f"{base}/cancel/").status_code == 403


def test_the_api_cancels_the_projects_queued_training_and_parsing(world, monkeypatch, task_queue):
    project, lead = world["project"], world["cast"].lead
    client = make.api_client(lead)
    base = f"/api/projects/{project.pk}"
    assert client.post(f"{base}/aligner/cancel/").status_code == 400  # nothing to cancel: said so
    run = queued_run(project)
    response = client.post(f"{base}/aligner/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert training.run_training(run.pk) is None
    queued_parsing(project, lead, monkeypatch, task_queue)
    response = client.post(f"{base}/trees/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert client.post(f"{base}/trees/cancel/").status_code == 400
    assert make.api_client(world["cast"].anna).post(f"{base}/trees/cancel/").status_code == 403
