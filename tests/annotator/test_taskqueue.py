"""Without a broker, the tasks a web request sends with `after_response=True` run after its response, in
the same thread, once each and in order; outside a request they run at once (`annotator.taskqueue`).
The receivers are called here as Django's `request_started` / `request_finished` call them (the last
test goes through the signals, with a save through the test client)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.signals import request_finished
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from annotator import taskqueue
from annotator.agreement import scheduling
from annotator.agreement.computation import recompute
from annotator.annotation import services as annotation_services
from annotator.celery import app
from annotator.models import AgreementState
from tests import make

RAN: list[Any] = []
TASK = "tests.taskqueue.record"


@app.task(name=TASK)
def record(value: Any) -> None:
    RAN.append(value)
    if value == "fails":
        raise RuntimeError("the task failed")


@pytest.fixture(autouse=True)
def in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    RAN.clear()
    monkeypatch.setattr(taskqueue, "runs_in_process", lambda: True)
    yield
    taskqueue.run_after_response()  # nothing a failed test left reaches the next one


def test_outside_a_request_a_task_runs_at_once():
    taskqueue.enqueue(TASK, 1, after_response=True)
    assert RAN == [1]


def test_in_a_request_tasks_wait_for_its_end_and_run_once_each_in_order():
    taskqueue.request_started()
    taskqueue.enqueue(TASK, 1, after_response=True)
    taskqueue.enqueue(TASK, 2, after_response=True)
    taskqueue.enqueue(TASK, 1, after_response=True)
    taskqueue.enqueue(TASK, 3)  # not marked: the request waits for it
    assert RAN == [3]
    taskqueue.run_after_response()
    assert RAN == [3, 1, 2]
    taskqueue.enqueue(TASK, 4, after_response=True)  # the request is over
    assert RAN == [3, 1, 2, 4]


def test_a_failing_task_is_logged_the_next_runs_and_nothing_is_left(caplog):
    taskqueue.request_started()
    taskqueue.enqueue(TASK, "fails", after_response=True)
    taskqueue.enqueue(TASK, 2, after_response=True)
    with caplog.at_level(logging.ERROR, logger="annotator.taskqueue"):
        taskqueue.run_after_response()
    assert RAN == ["fails", 2]
    assert "tests.taskqueue.record('fails',)" in caplog.text and "the task failed" in caplog.text
    taskqueue.request_started()
    taskqueue.run_after_response()
    assert RAN == ["fails", 2]


def test_the_tasks_of_a_request_whose_end_never_came_run_when_the_thread_s_next_one_starts():
    taskqueue.request_started()
    taskqueue.enqueue(TASK, 1, after_response=True)
    taskqueue.request_started()
    assert RAN == [1]
    taskqueue.enqueue(TASK, 1, after_response=True)
    assert RAN == [1]
    taskqueue.run_after_response()
    assert RAN == [1, 1]


def test_each_thread_has_its_own_request():
    taskqueue.request_started()
    taskqueue.enqueue(TASK, 1, after_response=True)
    other = threading.Thread(target=taskqueue.enqueue, args=(TASK, 2), kwargs={"after_response": True})
    other.start()
    other.join()
    assert RAN == [2]
    taskqueue.run_after_response()
    assert RAN == [2, 1]


@pytest.mark.django_db
def test_the_tasks_run_before_django_closes_the_request_s_connections(monkeypatch):
    """Django's `close_old_connections` (a `request_finished` receiver too) comes after them."""
    AgreementState.objects.exists()  # the request's connection is open
    monkeypatch.setattr(connection, "close_if_unusable_or_obsolete", lambda: RAN.append("closes"))
    taskqueue.request_started()
    taskqueue.enqueue(TASK, "task", after_response=True)
    request_finished.send(sender=None)
    assert RAN == ["task", "closes"]


def seen_at_response(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[..., HttpResponse]:
    """Middleware (outermost): whether a project waited for its recompute when the response left the
    app."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        AT_RESPONSE.append(AgreementState.objects.filter(queued_at__isnull=False).exists())
        return response

    return middleware


AT_RESPONSE: list[bool] = []


@pytest.mark.django_db(transaction=True)
def test_a_save_answers_before_the_recompute_which_has_run_when_the_test_client_returns(client, settings):
    """The embedded default: the save's response leaves with its change still recorded (the recompute has
    not run); the test client fires `request_finished` before it returns, so the recompute has run by
    then, in the same thread, and the dashboard is no longer behind."""
    settings.MIDDLEWARE = [f"{__name__}.seen_at_response", *settings.MIDDLEWARE]
    AT_RESPONSE.clear()
    lead, ana, bo = make.user("lead"), make.user("ana"), make.user("bo")
    project = make.project_with_pairs(n_pairs=2, lead=lead, annotators=(ana, bo))
    pair = project.pairs.order_by("position").first()
    recompute(project.pk)
    client.force_login(ana)
    threads = set(threading.enumerate())
    response = client.post(
        reverse("annotator:pair-label", args=[project.pk, pair.pk]),
        {"label": "paraphrase", "base_version": annotation_services.sheet_version(pair, ana)},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert AT_RESPONSE == [True]  # the change was waiting for its recompute when the response left
    assert set(threading.enumerate()) == threads
    state = AgreementState.objects.get(project=project)
    assert not state.is_behind and not scheduling.is_queued(project.pk)
    client.force_login(lead)
    status = client.get(
        reverse("annotator:dashboard", args=[project.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="snapshot-status",
    ).content.decode()
    assert "recomputing…" not in status and "behind" not in status
