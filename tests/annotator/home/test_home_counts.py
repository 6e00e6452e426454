"""The home page's and the project page's counts are the queues' counts."""

import re

import pytest
from django.urls import reverse

from annotator.annotation import worklist as work
from annotator.evaluation import services as evaluation
from tests import make

pytestmark = pytest.mark.django_db


def test_home_counts_equal_the_editor_queue_and_units_are_counted_apart(client):
    lead, ann = make.user("lead"), make.user("ann")
    project = make.project_with_pairs("P", n_pairs=3, lead=lead, annotators=(ann,), layer_evaluation=True)
    for n in range(2):
        make.unit(project, f"u{n + 1}")
    evaluation.assign_units(project, [ann], r=1, seed=0)
    counts = work.queue_counts(ann, project)
    assert counts.total == 3
    client.force_login(ann)
    for url in (reverse("annotator:home"), reverse("annotator:project-detail", args=[project.pk])):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", client.get(url).content.decode()))
        assert f"Pairs: {counts.done} done · {counts.todo} to do · {counts.postponed} postponed" in text
        assert "Evaluation units: 2 open of 2" in text


def test_a_pair_postponed_in_this_session_counts_as_postponed_on_the_home_and_project_pages(client):
    lead, ann = make.user("lead"), make.user("ann")
    project = make.project_with_pairs("P", n_pairs=3, lead=lead, annotators=(ann,))
    first = work.pair_assignments(ann, project).first()
    client.force_login(ann)
    client.post(reverse("annotator:pair-postpone", args=[project.pk, first.pair_id]))
    for url in (reverse("annotator:home"), reverse("annotator:project-detail", args=[project.pk])):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", client.get(url).content.decode()))
        assert "Pairs: 0 done · 2 to do · 1 postponed" in text
