"""When re-evaluation sets are drawn: not before any unit is finalized, and by themselves when the last
unit is (tests/annotator/evaluation/test_reevaluation.py holds what the sets are)."""

import pytest
from django.core.exceptions import ValidationError

from annotator.evaluation import reevaluation
from annotator.models import ReevaluationSet
from tests import make

pytestmark = pytest.mark.django_db


def test_nothing_to_reevaluate_before_any_unit_is_finalized():
    project = make.evaluation_project(n_units=1, raters=tuple(make.raters(2)))
    with pytest.raises(ValidationError, match="nothing to re-evaluate"):
        reevaluation.build_reevaluation_sets(project, seed=0)


@pytest.mark.usefixtures("eager_celery")
def test_sets_are_drawn_automatically_when_the_last_unit_is_finalized(django_capture_on_commit_callbacks):
    raters = make.raters(2)
    project = make.evaluation_project(n_units=2, raters=tuple(raters))
    units = list(project.units.order_by("position"))
    with django_capture_on_commit_callbacks(execute=True):
        make.rate_unit(units[0], raters[0], "Perfect", "Equivalent")
        make.rate_unit(units[0], raters[1], "Irredeemable", "Equivalent")
        make.rate_unit(units[1], raters[0], "Perfect", "Equivalent")
    assert not ReevaluationSet.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        make.rate_unit(units[1], raters[1], "Perfect", "Equivalent")
    g = ReevaluationSet.objects.get(rater=raters[0], viewpoint="G")
    assert g.seed == 0 and sorted(g.disagreement) == ["u1/u1e1", "u1/u1e2", "u1/u1e3"]
