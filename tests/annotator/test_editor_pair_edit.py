"""The editor page: the annotator's own sheet, the automatic alignment as suggestions, nobody else's work."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.aligner import SOURCE
from annotator.models import AlignmentLink, Assignment, Pair
from annotator.services import annotations, projects
from tests.annotator.editor_helpers import fast_passwords as fast_passwords
from tests.annotator.editor_helpers import fill, logged_in, long_pair, make_desk, url

pytestmark = pytest.mark.django_db


def test_page_shows_both_members_as_selectable_tokens_and_the_grouped_palette():
    desk = make_desk()
    html = logged_in(desk.ann).get(url("pair-edit", desk.pair)).content.decode()
    assert html.count('class="member ') == 2
    assert html.count('<span class="tok') == len(desk.pair.tokens1) + len(desk.pair.tokens2)
    assert 'class="pgroup-name">Morpholexicon-based changes' in html
    assert 'class="psub-name">Morphology-based changes' in html
    assert 'data-shortcut="1"' in html and "static/editor/editor.js" in html


def test_opening_shows_the_initial_alignment_as_suggestions_and_records_nothing():
    desk = make_desk()
    html = logged_in(desk.ann).get(url("pair-edit", desk.pair)).content.decode()
    assert not AlignmentLink.objects.filter(pair=desk.pair).exists()
    assert annotations.sheet_version(desk.pair, desk.ann) == 0
    assert "<strong>3</strong> suggested by the" in html and "Accept all 3" in html
    assert '"suggested": [[1, 0], [4, 2], [5, 3]]' in html


def test_suggestions_the_annotator_already_linked_are_not_suggested_again():
    desk = make_desk()
    annotations.set_links(desk.pair, desk.ann, [(1, 0)], sure=False, base_version=None)
    html = logged_in(desk.ann).get(url("pair-edit", desk.pair)).content.decode()
    assert '"suggested": [[4, 2], [5, 3]]' in html and "Accept all 2" in html


def test_pair_without_initial_alignment_suggests_identical_tokens_without_storing_them():
    desk = make_desk()
    pair = projects.add_pair(
        desk.project, "plain", tokens1=["A", "cat", "sat"], tokens2=["the", "Cat", "sat"]
    )
    projects.assign_pairs(desk.project, [desk.ann], [pair])
    html = logged_in(desk.ann).get(url("pair-edit", pair)).content.decode()
    pair.refresh_from_db()
    assert pair.initial_alignment is None and pair.initial_alignment_source == ""
    assert not AlignmentLink.objects.filter(pair=pair).exists()
    assert f"suggested by the {SOURCE} aligner" in html and "cat – Cat" in html


def test_projects_without_word_alignment_copy_nothing_and_show_no_alignment_tab():
    desk = make_desk(layer_word_alignment=False)
    html = logged_in(desk.ann).get(url("pair-edit", desk.pair)).content.decode()
    assert not AlignmentLink.objects.exists()
    assert 'data-mode="align"' not in html and 'data-mode="phenomena"' in html


def test_phrase_alignment_tab_appears_only_when_the_project_has_the_layer_and_the_pair_has_trees():
    desk = make_desk(layer_phrase_alignment=True)
    client = logged_in(desk.ann)
    assert 'data-mode="phrase"' in client.get(url("pair-edit", desk.pair)).content.decode()
    flat = projects.add_pair(desk.project, "flat", tokens1=["a"], tokens2=["a"])
    projects.assign_pairs(desk.project, [desk.ann], [flat])
    assert 'data-mode="phrase"' not in client.get(url("pair-edit", flat)).content.decode()
    Pair.objects.filter(pk=desk.pair.pk)  # the tree pair draws both trees as SVG
    assert client.get(url("pair-edit", desk.pair)).content.decode().count('<svg class="tree"') == 2


def test_phenomena_wait_for_the_paraphrase_label_in_paraphrases_only_projects():
    desk = make_desk(phenomena_for="paraphrases")
    client = logged_in(desk.ann)
    assert 'data-open="0"' in client.get(url("pair-edit", desk.pair)).content.decode()
    annotations.set_pair_label(desk.pair, desk.ann, "paraphrase", base_version=None)
    assert 'data-open="1"' in client.get(url("pair-edit", desk.pair)).content.decode()


def test_annotator_never_sees_another_annotators_work_in_the_html():
    desk = make_desk()
    logged_in(desk.bob).get(url("pair-edit", desk.pair))
    annotations.set_comment(desk.pair, desk.bob, "BOBS-SECRET-NOTE", base_version=None)
    annotations.add_phenomenon(
        desk.pair, desk.bob, desk.types["Diathesis"], scope1=[0, 1], scope2=[0], base_version=None
    )
    annotations.set_links(desk.pair, desk.bob, [(0, 1), (2, 3)], sure=False, base_version=None)
    html = logged_in(desk.ann).get(url("pair-edit", desk.pair)).content.decode()
    assert "BOBS-SECRET-NOTE" not in html and "Diathesis</strong>" not in html
    assert 'class="mk' not in html
    assert "<strong>0</strong> possible" in html


def test_opening_a_pair_puts_it_in_progress():
    desk = make_desk()
    logged_in(desk.ann).get(url("pair-edit", desk.pair))
    assignment = Assignment.objects.get(annotator=desk.ann, pair=desk.pair)
    assert assignment.status == "in_progress" and assignment.started_at is not None


def test_htmx_request_naming_a_target_gets_just_that_partial():
    desk = make_desk()
    response = logged_in(desk.ann).get(
        url("pair-edit", desk.pair), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="links"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="links"') and "<html" not in html


def test_overlapping_phenomena_get_separate_underline_lanes():
    desk = make_desk()
    inflectional, diathesis = desk.types["Inflectional"], desk.types["Diathesis"]
    annotations.add_phenomenon(
        desk.pair, desk.ann, inflectional, scope1=[1, 2], scope2=[0, 1], projection="local", base_version=None
    )
    annotations.add_phenomenon(
        desk.pair, desk.ann, diathesis, scope1=[2, 4], scope2=[1], key1=[2], base_version=None
    )
    html = logged_in(desk.ann).get(url("pair-edit", desk.pair)).content.decode()
    assert f"--c:{inflectional.colour};--l:0" in html and f"--c:{diathesis.colour};--l:1" in html
    assert 'class="mk key"' in html


def test_page_query_count_does_not_depend_on_the_amount_of_work():
    desk = make_desk()
    small, large = long_pair(desk.project, (desk.ann,), n_tokens=8), long_pair(desk.project, (desk.ann,))
    inflectional = desk.types["Inflectional"]
    fill(small, desk.ann, inflectional, n_phenomena=1, n_links=1)
    fill(large, desk.ann, inflectional, n_phenomena=20, n_links=40)
    client = logged_in(desk.ann)
    client.get(url("pair-edit", small))
    client.get(url("pair-edit", large))
    counts = []
    for pair in (small, large):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url("pair-edit", pair)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_page_query_count(django_assert_num_queries):
    desk = make_desk()
    client = logged_in(desk.ann)
    client.get(url("pair-edit", desk.pair))
    with django_assert_num_queries(14):
        client.get(url("pair-edit", desk.pair))
