"""The annotation services: validation, optimistic concurrency, history, recompute after commit."""

import pytest
from django.core.exceptions import ValidationError

from annotator.annotation import services as annotation_services
from annotator.annotation.services import ConflictError
from annotator.models import AlignmentLink, AnnotationHistory, ParaphraseType, Phenomenon
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    anna = make.cast().anna
    project = make.project_with_pairs(annotators=(anna,))
    pair = project.pairs.first()
    types = {t.name: t for t in ParaphraseType.objects.filter(tagset=project.tagset)}
    return anna, pair, types


def test_first_save_from_an_empty_sheet_starts_at_version_zero(setup):
    anna, pair, types = setup
    assert annotation_services.sheet_version(pair, anna) == 0
    version = annotation_services.set_pair_label(pair, anna, "paraphrase", base_version=0)
    assert version == 2 and annotation_services.sheet_version(pair, anna) == 2


def test_stale_version_gets_conflict_and_changes_nothing(setup):
    anna, pair, types = setup
    v = annotation_services.set_pair_label(pair, anna, "paraphrase", base_version=0)
    annotation_services.set_links(pair, anna, [(0, 0)], sure=True, base_version=v)
    with pytest.raises(ConflictError) as err:
        annotation_services.set_links(pair, anna, [(1, 1)], sure=True, base_version=v)
    assert err.value.current_version == v + 1
    assert list(AlignmentLink.objects.filter(pair=pair).values_list("i", "j")) == [(0, 0)]


def test_phenomenon_rules_give_messages_at_the_field(setup):
    anna, pair, types = setup
    with pytest.raises(ValidationError) as err:
        annotation_services.add_phenomenon(
            pair, anna, types["Same polarity"], scope1=[1], scope2=[0], base_version=None
        )
    assert "projection" in err.value.message_dict
    with pytest.raises(ValidationError) as err:
        annotation_services.add_phenomenon(
            pair, anna, types["Same polarity"], scope1=[99], scope2=[0], projection="local", base_version=None
        )
    assert "outside member 1" in err.value.message_dict["scope1"][0]
    with pytest.raises(ValidationError) as err:
        annotation_services.add_phenomenon(
            pair,
            anna,
            types["Addition/deletion"],
            scope1=[0],
            scope2=[1],
            projection="local",
            base_version=None,
        )
    assert "one member only" in err.value.message_dict["scope2"][0]
    with pytest.raises(ValidationError) as err:
        annotation_services.add_phenomenon(
            pair, anna, types["Same polarity"], scope1=[1], scope2=[], projection="local", base_version=None
        )
    assert "member 2" in err.value.message_dict["scope2"][0]
    with pytest.raises(ValidationError) as err:
        annotation_services.add_phenomenon(
            pair,
            anna,
            types["Same polarity"],
            scope1=[1],
            scope2=[0],
            projection="local",
            key1=[1],
            base_version=None,
        )
    assert "no key elements" in err.value.message_dict["key1"][0]
    assert not Phenomenon.objects.exists()


def test_discontinuous_scope_with_keys_is_stored_sorted_with_history(setup):
    anna, pair, types = setup
    phenomenon, version = annotation_services.add_phenomenon(
        pair, anna, types["Diathesis"], scope1=[3, 0, 1], scope2=[1, 0], key1=[2], key2=[1], base_version=0
    )
    assert phenomenon.scope1 == [0, 1, 3] and phenomenon.key1 == [2]
    updated, version = annotation_services.update_phenomenon(phenomenon, scope1=[0, 1], base_version=version)
    assert updated.version == 2
    annotation_services.delete_phenomenon(updated, base_version=version)
    actions = list(
        AnnotationHistory.objects.filter(model="phenomenon").order_by("id").values_list("action", flat=True)
    )
    assert actions == ["create", "update", "delete"]
    deleted = AnnotationHistory.objects.get(model="phenomenon", action="delete")
    assert deleted.before["scope1"] == [0, 1] and deleted.owner == anna


def test_links_toggle_between_sure_and_possible(setup):
    anna, pair, types = setup
    v = annotation_services.set_links(pair, anna, [(0, 0), (1, 1)], sure=True, base_version=0)
    v = annotation_services.set_links(pair, anna, [(1, 1)], sure=False, base_version=v)
    assert dict(AlignmentLink.objects.filter(pair=pair).values_list("i", "sure")) == {0: True, 1: False}
    annotation_services.remove_links(pair, anna, [(0, 0)], base_version=v)
    assert AlignmentLink.objects.filter(pair=pair).count() == 1


def test_phrase_alignment_to_null_and_both_null_rejected(setup):
    anna, pair, types = setup
    alignment, v = annotation_services.add_phrase_alignment(pair, anna, 1, None, base_version=0)
    assert alignment.node2 is None
    with pytest.raises(ValidationError):
        annotation_services.add_phrase_alignment(pair, anna, None, None, base_version=v)
    with pytest.raises(ValidationError) as err:
        annotation_services.add_phrase_alignment(pair, anna, 99, 0, base_version=v)
    assert "outside tree 1" in err.value.message_dict["node1"][0]


def test_each_save_marks_the_project_changed(setup):
    anna, pair, types = setup
    annotation_services.set_pair_label(pair, anna, "paraphrase", base_version=None)
    assert pair.project.agreement_state.changed_at is not None
