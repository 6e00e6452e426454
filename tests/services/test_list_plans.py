"""The lists' page queries are read through their indexes on PostgreSQL (issue 17): a page, a draw's
picked pairs and the threshold's count each read through its index, not by scanning the project's rows —
what keeps their time the same at 1,000,000 pairs as at 500."""

from __future__ import annotations

import pytest

from annotator.evaluation import services as evaluation
from annotator.models import ExplorerValue, Pair
from annotator.projects.roles import grant_role
from tests import make
from tests.lists_scale import big_project, rated_units

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("postgres_required")]


@pytest.fixture
def project():
    """A 20,000-pair project with 20,000 units in a rater's queue. Not analyzed: ANALYZE writes the
    tables' size estimates in place, past the test's rollback, and estimates left behind misled the
    plans of later tests (the foreign-key checks of a million-row test's teardown, a worker's κ_C
    chunks)."""
    project = big_project(20_000, "Planned")
    grant_role(project, make.cast().anna, "annotator")
    rated_units(project, make.cast().anna, 20_000, again_every=2)
    return project


def _plan(queryset) -> str:
    return queryset.explain()


def test_each_page_query_is_an_index_scan(project):
    whole = ExplorerValue.objects.filter(project=project, annotators="", ptype="")
    plans = {
        "pair list page": (
            _plan(Pair.objects.filter(project=project).order_by("position", "pk")[50:100]),
            "pair_project_position",
        ),
        "evaluation set-up's first units": (
            _plan(project.units.all()[:100]),
            "unit_project_position",
        ),
        "rater's queue page": (
            _plan(evaluation.rating_queue(project, make.cast().anna)[100:200]),
            "assignment_rating_queue",
        ),
        "draw's pairs by label rank": (
            _plan(whole.filter(label_rank__in=[3, 5000, 9999]).values_list("label_rank", "pair__source_id")),
            "explorer_label_rank",
        ),
        "pairs below a DO F1 threshold": (
            _plan(
                whole.filter(do_f1_rank__isnull=False, do_f1__gte=0.5)
                .order_by("do_f1", "do_f1_rank")
                .values_list("do_f1_rank", flat=True)[:1]
            ),
            "explorer_do_f1_threshold",
        ),
    }
    for label, (plan, index) in plans.items():
        assert index in plan, (label, plan)
        assert "Seq Scan" not in plan, (label, plan)
