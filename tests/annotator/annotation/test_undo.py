"""Undo as a service: inverse changes through the annotation services, one save at a time, backwards."""

import pytest
from django.core.exceptions import ValidationError

from annotator.annotation import services as annotation_services
from annotator.annotation import undo
from annotator.annotation.services import ConflictError, sheet_version
from annotator.models import AlignmentLink, AnnotationHistory, PairLabel, Phenomenon, PhraseAlignment
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    cast = make.cast()
    anna, ben = cast.anna, cast.ben
    project = make.project_with_pairs(annotators=(anna, ben), layer_phrase_alignment=True)
    pair = project.pairs.first()
    types = {t.name: t for t in project.tagset.types.all()}
    return pair, anna, ben, types


def v(pair, user):
    return sheet_version(pair, user)


def links(pair, user):
    return set(AlignmentLink.objects.filter(pair=pair, annotator=user).values_list("i", "j", "sure"))


def test_history_rows_of_one_save_share_a_batch(world):
    pair, anna, _, _ = world
    version = annotation_services.set_links(pair, anna, [(0, 0), (1, 1), (2, 2)], sure=True, base_version=0)
    batches = set(AnnotationHistory.objects.filter(owner=anna).values_list("batch", flat=True))
    assert batches == {version}


def test_a_block_of_links_is_undone_in_one_step(world):
    pair, anna, _, _ = world
    annotation_services.set_links(pair, anna, [(0, 0)], sure=True, base_version=0)
    annotation_services.set_links(
        pair, anna, [(1, 1), (2, 2), (1, 2)], sure=False, base_version=v(pair, anna)
    )
    done = undo.undo_last(pair, anna, base_version=v(pair, anna))
    assert links(pair, anna) == {(0, 0, True)} and done.description == "3 new links"
    assert done.version == v(pair, anna)


def test_link_changes_and_removals_are_restored_with_their_kind(world):
    pair, anna, _, _ = world
    annotation_services.set_links(pair, anna, [(0, 0), (1, 1)], sure=True, base_version=0)
    annotation_services.set_links(pair, anna, [(0, 0)], sure=False, base_version=v(pair, anna))
    annotation_services.remove_links(pair, anna, [(1, 1)], base_version=v(pair, anna))
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    assert links(pair, anna) == {(0, 0, False), (1, 1, True)}
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    assert links(pair, anna) == {(0, 0, True), (1, 1, True)}


def test_repeated_undo_steps_back_instead_of_redoing(world):
    pair, anna, _, _ = world
    annotation_services.set_pair_label(pair, anna, "paraphrase", base_version=0)
    annotation_services.set_comment(pair, anna, "hm", base_version=v(pair, anna))
    assert undo.undo_last(pair, anna, base_version=v(pair, anna)).description == "the comment edit"
    assert undo.undo_last(pair, anna, base_version=v(pair, anna)).description == "the pair label change"
    sheet = PairLabel.objects.get(annotator=anna)
    assert (sheet.label, sheet.comment) == ("", "")
    with pytest.raises(ValidationError, match="Nothing to undo"):
        undo.undo_last(pair, anna, base_version=v(pair, anna))


def test_work_after_an_undo_is_undone_first_then_the_older_work(world):
    pair, anna, _, types = world
    annotation_services.set_pair_label(pair, anna, "paraphrase", base_version=0)
    annotation_services.set_comment(pair, anna, "one", base_version=v(pair, anna))
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    annotation_services.set_comment(pair, anna, "two", base_version=v(pair, anna))
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    assert PairLabel.objects.get(annotator=anna).comment == ""
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    assert PairLabel.objects.get(annotator=anna).label == ""


def test_phenomenon_create_update_delete_are_undone_in_reverse(world):
    pair, anna, _, types = world
    ph, _ = annotation_services.add_phenomenon(
        pair, anna, types["Diathesis"], scope1=[1], scope2=[0], key1=[1], base_version=0
    )
    annotation_services.update_phenomenon(
        ph,
        ptype=types["Inflectional"].pk,
        scope1=[1, 2],
        projection="local",
        key1=[],
        base_version=v(pair, anna),
    )
    annotation_services.delete_phenomenon(Phenomenon.objects.get(pk=ph.pk), base_version=v(pair, anna))
    undo.undo_last(pair, anna, base_version=v(pair, anna))  # the deletion: recreated (new id)
    again = Phenomenon.objects.get(annotator=anna)
    assert (again.ptype.name, again.scope1, again.projection) == ("Inflectional", [1, 2], "local")
    undo.undo_last(pair, anna, base_version=v(pair, anna))  # the update, applied to the recreated row
    again.refresh_from_db()
    assert (again.ptype.name, again.scope1, again.key1, again.projection) == ("Diathesis", [1], [1], "")
    undo.undo_last(pair, anna, base_version=v(pair, anna))  # the creation
    assert not Phenomenon.objects.filter(annotator=anna).exists()


def test_phrase_alignments_are_undone(world):
    pair, anna, _, _ = world
    alignment, _ = annotation_services.add_phrase_alignment(pair, anna, 1, 1, base_version=0)
    annotation_services.add_phrase_alignment(pair, anna, 6, None, sure=False, base_version=v(pair, anna))
    annotation_services.remove_phrase_alignment(alignment, base_version=v(pair, anna))
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    assert set(PhraseAlignment.objects.values_list("node1", "node2", "sure")) == {
        (1, 1, True),
        (6, None, False),
    }
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    assert set(PhraseAlignment.objects.values_list("node1", "node2")) == {(1, 1)}


def test_undo_is_version_checked_and_changes_nothing_when_stale(world):
    pair, anna, _, _ = world
    annotation_services.set_pair_label(pair, anna, "paraphrase", base_version=0)
    stale = v(pair, anna)
    annotation_services.set_comment(pair, anna, "other tab", base_version=stale)
    with pytest.raises(ConflictError):
        undo.undo_last(pair, anna, base_version=stale)
    assert PairLabel.objects.get(annotator=anna).comment == "other tab"


def test_undo_never_touches_another_annotators_work(world):
    pair, anna, ben, _ = world
    annotation_services.set_links(pair, anna, [(0, 0)], sure=True, base_version=0)
    annotation_services.set_links(pair, ben, [(1, 1)], sure=True, base_version=0)
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    assert links(pair, anna) == set() and links(pair, ben) == {(1, 1, True)}


def test_undo_writes_history_marked_as_reverting_the_batch(world):
    pair, anna, _, _ = world
    batch = annotation_services.set_pair_label(pair, anna, "paraphrase", base_version=0)
    undo.undo_last(pair, anna, base_version=v(pair, anna))
    row = AnnotationHistory.objects.filter(owner=anna).order_by("-id").first()
    assert row.reverts == batch and row.after == {"label": ""}


# ---- redo ------------------------------------------------------------------------------------------


def test_redo_brings_back_what_undo_took_away(world):
    pair, ann, _, types = world
    annotation_services.set_pair_label(pair, ann, "paraphrase", base_version=0)
    annotation_services.set_links(pair, ann, [(0, 0), (1, 1)], sure=True, base_version=v(pair, ann))
    undo.undo_last(pair, ann, base_version=v(pair, ann))
    assert links(pair, ann) == set()
    redone = undo.redo_last(pair, ann, base_version=v(pair, ann))
    assert links(pair, ann) == {(0, 0, True), (1, 1, True)} and redone.description == "2 new links"
    assert redone.version == v(pair, ann)


def test_redo_steps_forward_through_several_undos_then_stops(world):
    pair, ann, _, types = world
    annotation_services.set_pair_label(pair, ann, "paraphrase", base_version=0)
    annotation_services.set_comment(pair, ann, "one", base_version=v(pair, ann))
    undo.undo_last(pair, ann, base_version=v(pair, ann))
    undo.undo_last(pair, ann, base_version=v(pair, ann))
    assert undo.redo_last(pair, ann, base_version=v(pair, ann)).description == "the pair label change"
    assert undo.redo_last(pair, ann, base_version=v(pair, ann)).description == "the comment edit"
    sheet = PairLabel.objects.get(annotator=ann)
    assert (sheet.label, sheet.comment) == ("paraphrase", "one")
    with pytest.raises(ValidationError, match="Nothing to redo"):
        undo.redo_last(pair, ann, base_version=v(pair, ann))


def test_undo_after_redo_undoes_the_redone_save_again(world):
    pair, ann, _, types = world
    ph, _ = annotation_services.add_phenomenon(
        pair, ann, types["Diathesis"], scope1=[1], scope2=[0], key1=[1], base_version=0
    )
    undo.undo_last(pair, ann, base_version=v(pair, ann))
    undo.redo_last(pair, ann, base_version=v(pair, ann))
    assert Phenomenon.objects.filter(annotator=ann).count() == 1
    assert undo.undo_last(pair, ann, base_version=v(pair, ann)).description == "the new phenomenon"
    assert Phenomenon.objects.filter(annotator=ann).count() == 0
    undo.redo_last(pair, ann, base_version=v(pair, ann))
    assert Phenomenon.objects.filter(annotator=ann).count() == 1


def test_a_new_save_after_an_undo_ends_what_can_be_redone(world):
    pair, ann, _, _ = world
    annotation_services.set_pair_label(pair, ann, "paraphrase", base_version=0)
    undo.undo_last(pair, ann, base_version=v(pair, ann))
    annotation_services.set_comment(pair, ann, "new work", base_version=v(pair, ann))
    with pytest.raises(ValidationError, match="Nothing to redo"):
        undo.redo_last(pair, ann, base_version=v(pair, ann))
    assert PairLabel.objects.get(annotator=ann).label == ""


def test_redo_is_version_checked_and_changes_nothing_when_stale(world):
    pair, ann, _, _ = world
    annotation_services.set_pair_label(pair, ann, "paraphrase", base_version=0)
    undo.undo_last(pair, ann, base_version=v(pair, ann))
    with pytest.raises(ConflictError):
        undo.redo_last(pair, ann, base_version=v(pair, ann) - 1)
    assert PairLabel.objects.get(annotator=ann).label == ""


def test_phrase_alignments_are_redone(world):
    pair, ann, _, _ = world
    annotation_services.add_phrase_alignment(pair, ann, 1, 1, sure=True, base_version=0)
    undo.undo_last(pair, ann, base_version=v(pair, ann))
    assert not PhraseAlignment.objects.filter(annotator=ann).exists()
    undo.redo_last(pair, ann, base_version=v(pair, ann))
    assert list(PhraseAlignment.objects.filter(annotator=ann).values_list("node1", "node2", "sure")) == [
        (1, 1, True)
    ]
