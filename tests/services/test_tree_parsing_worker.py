"""Parsing trees through Redis and a real Celery worker (PostgreSQL): the job's state, kept in the shared
cache, reaches the web side; the parsed pairs get automatic phrase suggestions."""

import time

import pytest

from annotator.core.phrase_suggestions import suggested_phrase_alignment
from annotator.corpus import projects, tree_parsing
from annotator.models import Pair
from annotator.projects import services as project_setup
from tests import make

pytestmark = [pytest.mark.services]


def test_worker_parses_and_the_web_side_sees_the_progress(
    postgres_required, redis_required, celery_worker_process
):
    pytest.importorskip("spacy", reason="spaCy is not installed")
    project = project_setup.create_project(
        None, name="Worker trees", tagset=make.vila(), layer_phrase_alignment=True
    )
    for n in range(5):
        projects.add_pair(
            project,
            f"p{n}",
            tokens1=f"Team {n} bought a car .".split(),
            tokens2=f"Team {n} purchased a new car .".split(),
        )
    state = tree_parsing.start_parsing(project)  # outside a transaction: sent to the worker at once
    assert state["status"] in ("queued", "running", "succeeded")
    deadline = time.monotonic() + 120
    while (state := tree_parsing.tree_progress(project.pk))["status"] in tree_parsing.ACTIVE:
        assert time.monotonic() < deadline, state
        time.sleep(0.2)
    if "not installed" in state["summary"] or "model" in state["summary"]:
        pytest.skip(state["summary"])
    assert (
        state["status"] == "succeeded" and state["done"] == state["total"] == 10 and state["percent"] == 100
    )
    pair = Pair.objects.get(project=project, source_id="p0")
    assert pair.tree_source == tree_parsing.parser_source("spacy") and pair.nodes1[0]["end"] == 6
    suggestions, source = suggested_phrase_alignment(pair)
    assert suggestions and source == f"identical-tokens × {tree_parsing.parser_source('spacy')} trees"
