"""The tree-parsing job like the aligner's training: one at a time, its progress as a bar polled while it
runs and in the API, leads only, and a job the queue cannot take fails at once, saying so."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotator.core.auto_trees import ParserUnavailable
from annotator.corpus import projects, tree_parsing
from annotator.projects import services as project_setup
from tests import make
from tests.make import HTMX, logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    cast = make.cast()
    project = project_setup.create_project(cast.lead, name="Parse", tagset=make.vila())
    pair = projects.add_pair(project, "p", tokens1="A cat sat .".split(), tokens2="The cat sat .".split())
    projects.assign_pairs(project, [cast.anna], [pair])
    other = project_setup.create_project(cast.other_lead, name="Elsewhere", tagset=make.vila())
    cache.delete(tree_parsing.PROGRESS_KEY.format(project.pk))
    yield project, cast, other
    cache.delete(tree_parsing.PROGRESS_KEY.format(project.pk))


def _page(project):
    return reverse("annotator:corpus-trees", args=[project.pk])


def _api(project):
    return reverse("api-trees-list", kwargs={"project_pk": project.pk})


def test_a_queued_job_shows_a_polled_progress_bar_and_is_sent_to_a_worker(
    world, task_queue, django_capture_on_commit_callbacks
):
    project, cast, _ = world
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in(cast.lead).post(_page(project), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="aligner"' in html and "every 1s" in html  # the panel polls itself while the job runs
    assert 'role="progressbar" aria-label="Tree parsing"' in html and "waiting for a worker" in html
    assert "data-parse-trees disabled" in html
    assert task_queue.args_of("annotator.parse_trees") == [(project.pk, "spacy")]
    state = tree_parsing.tree_progress(project.pk)
    assert state["status"] == "queued" and state["started_by"] == cast.lead.username


def test_the_running_job_shows_its_members_and_percent(world, task_queue):
    project, cast, _ = world
    tree_parsing.start_parsing(project, cast.lead)
    tree_parsing._set(project.pk, status="running", done=3, total=4, summary="")
    html = logged_in(cast.lead).get(reverse("annotator:corpus-aligner", args=[project.pk]), **HTMX)
    html = html.content.decode()
    assert 'aria-valuenow="75"' in html and "3 of 4 members parsed" in html and "every 1s" in html


def test_one_job_at_a_time(world, task_queue):
    project, cast, _ = world
    tree_parsing.start_parsing(project, cast.lead)
    response = logged_in(cast.lead).post(_page(project), **HTMX)
    assert response.status_code == 422 and "already queued" in response.content.decode()
    api = logged_in(cast.lead).post(_api(project), {}, content_type="application/json")
    assert api.status_code == 400 and "already queued" in api.json()["project"][0]


def test_two_starts_at_the_same_moment_start_one_job(world, task_queue):
    project, cast, _ = world
    cache.add(tree_parsing.STARTING_KEY.format(project.pk), 1, 30)  # another request is starting it
    try:
        with pytest.raises(tree_parsing.ParsingError, match="already being started"):
            tree_parsing.start_parsing(project, cast.lead)
    finally:
        cache.delete(tree_parsing.STARTING_KEY.format(project.pk))
    assert not task_queue.sent and tree_parsing.tree_progress(project.pk) is None
    tree_parsing.start_parsing(project, cast.lead)  # the mark is released after a start
    assert cache.get(tree_parsing.STARTING_KEY.format(project.pk)) is None


def test_a_project_without_pairs_cannot_be_parsed(world, task_queue):
    _, cast, other = world
    with pytest.raises(tree_parsing.ParsingError, match="no pairs to parse"):
        tree_parsing.start_parsing(other, cast.other_lead)
    assert not task_queue.sent


def test_a_job_the_queue_cannot_take_fails_at_once_and_says_why(
    world, task_queue, django_capture_on_commit_callbacks
):
    project, cast, _ = world
    task_queue.refuse_with = ConnectionError("broker down")
    with django_capture_on_commit_callbacks(execute=True):
        logged_in(cast.lead).post(_page(project), **HTMX)
    # (outside a test's transaction the enqueue runs before the panel is rendered)
    panel = logged_in(cast.lead).get(reverse("annotator:corpus-aligner", args=[project.pk]), **HTMX)
    html = panel.content.decode()
    assert "Failed" in html and "task queue is unreachable" in html and "Nothing was parsed" in html
    assert "every 1s" not in html  # nothing to poll
    state = logged_in(cast.lead).get(_api(project)).json()
    assert state["status"] == "failed" and "unreachable" in state["summary"]


def test_a_parser_that_fails_marks_the_job_failed_and_fails_loudly(world, task_queue, monkeypatch):
    project, cast, _ = world
    tree_parsing.start_parsing(project, cast.lead)

    def unavailable(*args, **kwargs):
        raise ParserUnavailable("spaCy is not installed")

    monkeypatch.setattr(tree_parsing, "parse_members", unavailable)
    with pytest.raises(ParserUnavailable):
        tree_parsing.run_parsing(project.pk, "spacy")
    state = tree_parsing.tree_progress(project.pk)
    assert state["status"] == "failed" and "spaCy is not installed" in state["summary"]
    assert tree_parsing.run_parsing(10**9) is None  # a deleted project is skipped


def test_api_starts_the_job_and_reports_its_progress(world, task_queue, django_capture_on_commit_callbacks):
    project, cast, _ = world
    client = logged_in(cast.lead)
    assert client.get(_api(project)).json()["status"] == "never"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(_api(project), {"parser": "spacy"}, content_type="application/json")
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued" and body["backend"] == "spacy" and body["poll"].endswith(_api(project))
    tree_parsing._set(project.pk, status="running", done=1, total=2, summary="")
    state = client.get(_api(project)).json()
    assert (state["status"], state["done"], state["total"], state["percent"]) == ("running", 1, 2, 50)
    bad = client.post(_api(project), {"parser": "stanza"}, content_type="application/json")
    assert bad.status_code == 400 and "parser" in bad.json()


def test_only_the_projects_leads_may_start_or_read_it(world, task_queue):
    project, cast, _ = world
    for person, codes in ((cast.anna, (403, 404)), (cast.other_lead, (404,))):
        assert logged_in(person).post(_page(project), **HTMX).status_code in codes
        assert logged_in(person).get(_api(project)).status_code in codes
        assert logged_in(person).post(_api(project), {}, content_type="application/json").status_code in codes
    assert not task_queue.sent and tree_parsing.tree_progress(project.pk) is None


def test_the_job_runs_to_the_end(world, eager_celery, django_capture_on_commit_callbacks):
    pytest.importorskip("spacy", reason="spaCy is not installed")
    project, cast, _ = world
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = logged_in(cast.lead).post(_api(project), {}, content_type="application/json")
    except ParserUnavailable as exc:
        pytest.skip(str(exc))
    assert response.status_code == 202
    state = logged_in(cast.lead).get(_api(project)).json()
    assert state["status"] == "succeeded" and state["done"] == state["total"] == 2 and state["percent"] == 100
