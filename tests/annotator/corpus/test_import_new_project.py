"""The project an import creates is made by the projects' own `create_project`: its defaults, its
checks, its creator as lead."""

from __future__ import annotations

import pytest

from annotator.core.tagsets import VILA_NAME
from annotator.corpus.services import import_corpus
from annotator.models import Membership, Project, Tagset
from annotator.projects.services import REANNOTATION_DEFAULTS
from tests import make
from tests.make import TWO_ROWS, counts

pytestmark = pytest.mark.django_db


def test_the_set_up_forms_project_has_the_chosen_tagset_the_defaults_and_its_creator_as_lead(cast):
    vila = Tagset.objects.get(name=VILA_NAME)
    report = import_corpus(
        "mrpc",
        "From the form",
        [("train.txt", TWO_ROWS)],
        actor=cast.lead,
        new_project={"language": "es", "tagset_id": vila.pk},
    )
    assert report.ok and report.created["projects"] == 1
    project = Project.objects.get(name="From the form")
    assert (project.language, project.tagset, project.reannotation_rules) == (
        "es",
        vila,
        REANNOTATION_DEFAULTS,
    )
    assert list(project.memberships.values_list("user__username", "role")) == [
        (cast.lead.username, Membership.Role.LEAD)
    ]


def test_a_command_line_import_makes_a_project_without_a_lead_on_the_languages_tagset():
    report = import_corpus("mrpc", "From the shell", [("train.txt", TWO_ROWS)])
    assert report.ok
    project = Project.objects.get(name="From the shell")
    assert project.tagset is not None and project.tagset.name.startswith("ETPC")
    assert not project.memberships.exists()


def test_a_new_project_with_a_bad_setting_is_a_problem_and_nothing_is_written(cast):
    make.vila()
    before = counts()
    report = import_corpus(
        "mrpc", "Bad", [("train.txt", TWO_ROWS)], actor=cast.lead, new_project={"language": "xx"}
    )
    assert not report.ok
    assert [(p.field, p.message[:25]) for p in report.problems] == [("language", "Unknown language 'xx'; ch")]
    assert counts() == before
