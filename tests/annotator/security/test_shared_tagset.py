"""One project cannot change another's tagset: a tagset that several projects use is changed by an admin
only, and its page names every project a change affects (built-in tagsets and imported typologies:
tests/annotator/corpus/test_import_isolation.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator import access
from annotator.projects import services as project_setup
from annotator.projects import tagsets
from tests import make
from tests.make import logged_in

pytestmark = pytest.mark.django_db

NEW_TYPE = {
    "new-name": "Added",
    "new-type_class": "Other",
    "new-scope_sides": "both",
    "new-colour": "#123456",
}


@pytest.fixture
def world():
    cast = make.cast()
    alpha = project_setup.create_project(cast.lead, name="Alpha", tagset=make.vila())
    own = tagsets.clone_tagset(alpha.tagset, cast.lead, name="Lena's types", project=alpha)
    return cast, alpha, own


def add_type(person, tagset):
    return logged_in(person).post(reverse("annotator:type-create", args=[tagset.pk]), NEW_TYPE)


def test_the_lead_edits_a_tagset_only_her_project_uses(world):
    cast, _alpha, own = world
    assert add_type(cast.lead, own).status_code == 302
    assert own.types.filter(name="Added").exists()


def test_once_another_project_shares_it_only_an_admin_changes_it(world):
    cast, _alpha, own = world
    project_setup.create_project(cast.other_lead, name="Beta", tagset=own)
    for lead in (cast.lead, cast.other_lead):
        refused = add_type(lead, own)
        assert refused.status_code == 403 and "used by 2 projects" in refused.content.decode()
        assert not access.may_edit_tagset(lead, own) and own not in access.editable_tagsets(lead)
    assert not own.types.filter(name="Added").exists()
    page = logged_in(cast.admin).get(reverse("annotator:tagset-detail", args=[own.pk])).content.decode()
    assert "Used by" in page and ">Alpha<" in page and ">Beta<" in page  # what a change affects
    assert add_type(cast.admin, own).status_code == 302 and own.types.filter(name="Added").exists()
