"""An import changes its own project only: built-in tagsets stay as they are, and the users it creates
follow Django's username rules."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotator.core.tagsets import ETPC_NAME
from annotator.corpus.services import import_corpus
from annotator.models import ParaphraseType, Project, Tagset
from tests.make import TWO_ROWS, counts, relation, relations_file

pytestmark = pytest.mark.django_db

RENAMING = b"""<?xml version="1.0" encoding="UTF-8"?>
<xml><paraphrase_type><type_id>1</type_id><type_name>Renamed by one project</type_name>
<type_category>Morphology</type_category></paraphrase_type>
<paraphrase_type><type_id>99</type_id><type_name>Added by one project</type_name><type_category>Other</type_category>
</paraphrase_type></xml>
"""


def builtin_types() -> list[tuple[str, str, str]]:
    return list(
        ParaphraseType.objects.filter(tagset__name=ETPC_NAME)
        .order_by("code")
        .values_list("code", "name", "type_class")
    )


def test_a_typology_file_never_changes_the_builtin_tagset_other_projects_use():
    assert import_corpus("mrpc", "Other", [("msr_paraphrase_train.txt", TWO_ROWS)]).ok
    other = Project.objects.get(name="Other")
    other.tagset = Tagset.objects.get(name=ETPC_NAME)
    other.save()
    before = builtin_types()

    report = import_corpus(
        "etpc", "Mine", [("msr_paraphrase_train.txt", TWO_ROWS), ("paraphrase_types.xml", RENAMING)]
    )
    assert report.ok, report.problems
    assert builtin_types() == before  # nothing renamed, nothing added
    mine = Project.objects.get(name="Mine").tagset
    assert not mine.builtin and mine.name == f"{ETPC_NAME} (Mine)" and report.created["tagsets"] == 1
    names = set(mine.types.values_list("name", flat=True))
    assert {"Renamed by one project", "Added by one project"} <= names
    assert Project.objects.get(name="Other").tagset.name == ETPC_NAME

    again = import_corpus("etpc", "Mine", [("paraphrase_types.xml", RENAMING)])
    assert again.ok and again.created["tagsets"] == 0  # the project's own copy, reused
    assert Tagset.objects.filter(name__startswith=f"{ETPC_NAME} (Mine)").count() == 1


def test_a_typology_file_that_agrees_uses_the_builtin_tagset():
    same = b"""<?xml version="1.0" encoding="UTF-8"?>
<xml><paraphrase_type><type_id>1</type_id><type_name>Inflectional Changes</type_name>
<type_category>Morphology</type_category></paraphrase_type></xml>
"""
    report = import_corpus(
        "etpc", "Same", [("msr_paraphrase_train.txt", TWO_ROWS), ("paraphrase_types.xml", same)]
    )
    assert report.ok and report.created["tagsets"] == 0
    assert Project.objects.get(name="Same").tagset.name == ETPC_NAME


@pytest.mark.parametrize(
    "username",
    ["<img src=x onerror=alert(1)>", "x" * 151, "with space"],
)
def test_imported_usernames_follow_djangos_rules(username):
    before = counts()
    relations = relations_file(relation("1", "25", s1="1", s2="1"))
    report = import_corpus(
        "etpc", "U", [("msr_paraphrase_train.txt", TWO_ROWS), ("rel.xml", relations)], annotator=username
    )
    assert not report.ok, report.problems
    [problem] = [p for p in report.problems if p.field == "annotator"]
    assert "is not allowed" in problem.message
    assert "rel.xml" in problem.file
    assert counts() == before and not get_user_model().objects.filter(username=username).exists()
