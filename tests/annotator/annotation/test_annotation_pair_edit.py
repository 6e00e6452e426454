"""The editor page: the annotator's own sheet, the automatic alignment as suggestions, nobody else's work."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.annotation import services as annotation_services
from annotator.core.aligner import SOURCE
from annotator.corpus import projects
from annotator.models import AlignmentLink, Assignment, Pair
from tests import make
from tests.make import fill, logged_in, long_pair, url

pytestmark = pytest.mark.django_db


def test_page_shows_both_members_as_selectable_tokens_and_the_grouped_palette():
    desk = make.desk()
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert html.count('class="member ') == 2
    assert html.count('<span class="tok') == len(desk.pair.tokens1) + len(desk.pair.tokens2)
    assert 'data-group="Morpholexicon-based changes"' in html
    assert 'aria-expanded="true" title="Show or hide the Morpholexicon-based changes types">' in html
    assert 'class="psub-name">Morphology-based changes' in html
    assert 'data-shortcut="1"' in html and "static/annotation/editor.js" in html


def test_opening_shows_the_initial_alignment_as_suggestions_and_records_nothing():
    desk = make.desk()
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert not AlignmentLink.objects.filter(pair=desk.pair).exists()
    assert annotation_services.sheet_version(desk.pair, desk.anna) == 0
    assert "<strong>3</strong> suggested by the" in html and "Accept all 3" in html
    assert '"suggested": [[1, 0, true], [4, 2, true], [5, 3, true]]' in html


def test_suggestions_the_annotator_already_linked_are_not_suggested_again():
    desk = make.desk()
    annotation_services.set_links(desk.pair, desk.anna, [(1, 0)], sure=False, base_version=None)
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert '"suggested": [[4, 2, true], [5, 3, true]]' in html and "Accept all 2" in html


def test_suggested_links_below_the_projects_confidence_threshold_are_shown_faintly():
    desk = make.desk()
    Pair.objects.filter(pk=desk.pair.pk).update(initial_alignment_confidence=[0.95, 0.4, 0.8])
    desk.project.suggestion_threshold = 0.8
    desk.project.save(update_fields=["suggestion_threshold"])
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert '"suggested": [[1, 0, true], [4, 2, false], [5, 3, true]]' in html
    assert html.count('class="sugg faint"') == 1 and "confidence 0.40, below the project" in html
    # confidences that are not the stored links' (another count) are ignored: every link is likely
    Pair.objects.filter(pk=desk.pair.pk).update(initial_alignment_confidence=[0.1])
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert '"suggested": [[1, 0, true], [4, 2, true], [5, 3, true]]' in html


def test_pair_without_initial_alignment_suggests_identical_tokens_without_storing_them():
    desk = make.desk()
    pair = projects.add_pair(
        desk.project, "plain", tokens1=["A", "cat", "sat"], tokens2=["the", "Cat", "sat"]
    )
    projects.assign_pairs(desk.project, [desk.anna], [pair])
    html = logged_in(desk.anna).get(url("pair-edit", pair)).content.decode()
    pair.refresh_from_db()
    assert pair.initial_alignment is None and pair.initial_alignment_source == ""
    assert not AlignmentLink.objects.filter(pair=pair).exists()
    assert f"suggested by the {SOURCE} aligner" in html and "cat – Cat" in html


def test_projects_without_word_alignment_copy_nothing_and_show_no_alignment_tab():
    desk = make.desk(layer_word_alignment=False)
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert not AlignmentLink.objects.exists()
    assert 'data-mode="align"' not in html and 'data-mode="phenomena"' in html


def test_phrase_alignment_tab_appears_only_when_the_project_has_the_layer_and_the_pair_has_trees():
    desk = make.desk(layer_phrase_alignment=True)
    client = logged_in(desk.anna)
    assert 'data-mode="phrase"' in client.get(url("pair-edit", desk.pair)).content.decode()
    flat = projects.add_pair(desk.project, "flat", tokens1=["a"], tokens2=["a"])
    projects.assign_pairs(desk.project, [desk.anna], [flat])
    assert 'data-mode="phrase"' not in client.get(url("pair-edit", flat)).content.decode()
    Pair.objects.filter(pk=desk.pair.pk)  # the tree pair draws both trees as SVG
    assert client.get(url("pair-edit", desk.pair)).content.decode().count('<svg class="tree"') == 2


def test_phenomena_wait_for_the_paraphrase_label_in_paraphrases_only_projects():
    desk = make.desk(phenomena_for="paraphrases")
    client = logged_in(desk.anna)
    assert 'data-open="0"' in client.get(url("pair-edit", desk.pair)).content.decode()
    annotation_services.set_pair_label(desk.pair, desk.anna, "paraphrase", base_version=None)
    assert 'data-open="1"' in client.get(url("pair-edit", desk.pair)).content.decode()


def test_annotator_never_sees_another_annotators_work_in_the_html():
    desk = make.desk()
    logged_in(desk.ben).get(url("pair-edit", desk.pair))
    annotation_services.set_comment(desk.pair, desk.ben, "BOBS-SECRET-NOTE", base_version=None)
    annotation_services.add_phenomenon(
        desk.pair, desk.ben, desk.types["Diathesis"], scope1=[0, 1], scope2=[0], base_version=None
    )
    annotation_services.set_links(desk.pair, desk.ben, [(0, 1), (2, 3)], sure=False, base_version=None)
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert "BOBS-SECRET-NOTE" not in html and "Diathesis</strong>" not in html
    assert "data-scope1=" not in html
    assert "<strong>0</strong> possible" in html


def test_opening_a_pair_leaves_it_to_do_and_the_first_save_puts_it_in_progress():
    desk = make.desk()
    client = logged_in(desk.anna)
    client.get(url("pair-edit", desk.pair))
    assignment = Assignment.objects.get(annotator=desk.anna, pair=desk.pair)
    assert assignment.status == "todo" and assignment.started_at is None
    annotation_services.set_comment(desk.pair, desk.anna, "first thought", base_version=None)
    assignment.refresh_from_db()
    assert assignment.status == "in_progress" and assignment.started_at is not None
    ben = Assignment.objects.get(annotator=desk.ben, pair=desk.pair)
    assert ben.status == "todo" and ben.started_at is None


def test_htmx_request_naming_a_target_gets_just_that_partial():
    desk = make.desk()
    response = logged_in(desk.anna).get(
        url("pair-edit", desk.pair), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="links"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="links"') and "<html" not in html


def test_listed_phenomena_carry_what_their_lanes_are_drawn_from():
    desk = make.desk()
    inflectional, diathesis = desk.types["Inflectional"], desk.types["Diathesis"]
    annotation_services.add_phenomenon(
        desk.pair,
        desk.anna,
        inflectional,
        scope1=[1, 2],
        scope2=[0, 1],
        projection="local",
        base_version=None,
    )
    annotation_services.add_phenomenon(
        desk.pair, desk.anna, diathesis, scope1=[2, 4], scope2=[1], key1=[2], base_version=None
    )
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    assert f'data-name="Inflectional" data-colour="{inflectional.colour}"' in html
    assert 'data-scope1="2,4" data-scope2="1" data-key1="2" data-key2=""' in html
    assert html.count('<div class="lanes" aria-hidden="true"></div>') == 2


def test_editor_has_no_style_attributes():
    """A Content-Security-Policy without 'unsafe-inline' styles: colours and widths are set by the script."""
    desk = make.desk()
    annotation_services.add_phenomenon(
        desk.pair, desk.anna, desk.types["Diathesis"], scope1=[2, 4], scope2=[1], key1=[2], base_version=None
    )
    html = logged_in(desk.anna).get(url("pair-edit", desk.pair)).content.decode()
    editor = html[html.index('<div id="editor"') :]
    assert "style=" not in editor
    assert f'data-colour="{desk.types["Diathesis"].colour}"' in editor and "data-width=" in editor


def test_page_query_count_does_not_depend_on_the_amount_of_work():
    desk = make.desk()
    small, large = long_pair(desk.project, (desk.anna,), n_tokens=8), long_pair(desk.project, (desk.anna,))
    inflectional = desk.types["Inflectional"]
    fill(small, desk.anna, inflectional, n_phenomena=1, n_links=1)
    fill(large, desk.anna, inflectional, n_phenomena=20, n_links=40)
    client = logged_in(desk.anna)
    client.get(url("pair-edit", small))
    client.get(url("pair-edit", large))
    counts = []
    for pair in (small, large):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url("pair-edit", pair)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_page_query_count(django_assert_num_queries):
    desk = make.desk()
    client = logged_in(desk.anna)
    client.get(url("pair-edit", desk.pair))
    # the pair, its project and the access facts in one statement (was four for access); one query asks
    # whether there is a guidelines version the annotator has not read, one whether there is a trained
    # recommender whose phenomena suggestions to offer
    with django_assert_num_queries(14):
        client.get(url("pair-edit", desk.pair))
