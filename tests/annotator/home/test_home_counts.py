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
        assert "Evaluation units: 0 of 2 finalized" in text


def test_a_pair_postponed_in_this_session_counts_as_postponed_on_the_home_and_project_pages(client):
    lead, ann = make.user("lead"), make.user("ann")
    project = make.project_with_pairs("P", n_pairs=3, lead=lead, annotators=(ann,))
    first = work.pair_assignments(ann, project).first()
    client.force_login(ann)
    client.post(reverse("annotator:pair-postpone", args=[project.pk, first.pair_id]))
    for url in (reverse("annotator:home"), reverse("annotator:project-detail", args=[project.pk])):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", client.get(url).content.decode()))
        assert "Pairs: 0 done · 2 to do · 1 postponed" in text


def test_a_rater_only_sees_the_rating_queues_counts_and_no_pairs(client):
    from annotator.models import Assignment
    from annotator.projects.roles import grant_role

    lead, rater = make.user("lead"), make.user("rita")
    project = make.project_with_pairs("P", n_pairs=3, lead=lead, annotators=(), layer_evaluation=True)
    grant_role(project, rater, "rater")
    for n in range(3):
        make.unit(project, f"u{n + 1}")
    evaluation.assign_units(project, [rater], r=1, seed=0)
    rows = list(Assignment.objects.filter(annotator=rater, unit__isnull=False))
    Assignment.objects.filter(pk__in=[a.pk for a in rows]).update(status=Assignment.Status.DONE)
    for a in rows:  # a re-evaluation round of the same units, all open
        Assignment.objects.create(
            project=project, annotator=rater, unit_id=a.unit_id, round=1, queue_position=a.queue_position
        )
    client.force_login(rater)
    queue = re.sub(
        r"\s+",
        " ",
        re.sub(
            r"<[^>]+>", "", client.get(reverse("annotator:rating-queue", args=[project.pk])).content.decode()
        ),
    )
    assert "3 of 3 units finalized" in queue
    for url in (reverse("annotator:home"), reverse("annotator:project-detail", args=[project.pk])):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", client.get(url).content.decode()))
        assert "Evaluation units: 3 of 3 finalized · re-evaluation: 3 open" in text
        assert "Pairs:" not in text
