"""The re-annotation task through Redis and a real Celery worker (PostgreSQL): queued once, even twice sent."""

import pytest

from annotator.core.tagsets import install_builtin_tagsets
from annotator.models import Assignment, ParaphraseType, ReannotationRound, Tagset
from annotator.tasks import queue_reannotation
from tests import make

pytestmark = [pytest.mark.services]


def test_worker_queues_the_round_and_a_repeated_task_changes_nothing(
    postgres_required, celery_worker_process
):
    if not Tagset.objects.filter(builtin=True).exists():
        install_builtin_tagsets(Tagset, ParaphraseType)
    world = make.team(n_pairs=6)
    project = world["project"]
    first = queue_reannotation.delay(project.pk, "do_f1_below", {"threshold": 0.5}, 21, world["lead"].pk)
    assert first.get(timeout=60) == 1
    again = queue_reannotation.delay(project.pk, "do_f1_below", {"threshold": 0.5}, 21, world["lead"].pk)
    assert again.get(timeout=60) == 1
    round_ = ReannotationRound.objects.get(project=project)
    assert round_.flagged == ["p3", "p2"] and round_.created_by == world["lead"]  # by DO F1, then id
    assert Assignment.objects.filter(project=project, round=1).count() == 6
