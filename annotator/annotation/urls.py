"""URLs of the editor area (included by annotator.urls, namespace `annotator`)."""

from django.urls import path

from annotator.annotation import recommender_views
from annotator.annotation import views as editor

PAIR = "projects/<int:project_pk>/pairs/<int:pair_pk>/"

urlpatterns = [
    path("projects/<int:project_pk>/queue/", editor.queue, name="queue"),
    path(
        "projects/<int:project_pk>/recommender/",
        recommender_views.project_recommender,
        name="project-recommender",
    ),
    path(PAIR, editor.pair_edit, name="pair-edit"),
    path(PAIR + "label/", editor.pair_label, name="pair-label"),
    path(PAIR + "comment/", editor.pair_comment, name="pair-comment"),
    path(PAIR + "phenomena/", editor.phenomenon_create, name="phenomenon-create"),
    path(PAIR + "phenomena/<int:phenomenon_pk>/", editor.phenomenon_update, name="phenomenon-update"),
    path(PAIR + "phenomena/<int:phenomenon_pk>/delete/", editor.phenomenon_delete, name="phenomenon-delete"),
    path(
        PAIR + "suggestions/accept/", editor.phenomenon_suggestion_accept, name="phenomenon-suggestion-accept"
    ),
    path(
        PAIR + "suggestions/reject/", editor.phenomenon_suggestion_reject, name="phenomenon-suggestion-reject"
    ),
    path(PAIR + "links/", editor.link_add, name="link-add"),
    path(PAIR + "links/remove/", editor.link_remove, name="link-remove"),
    path(PAIR + "links/toggle/", editor.link_toggle, name="link-toggle"),
    path(PAIR + "links/accept/", editor.link_accept, name="link-accept"),
    path(PAIR + "phrases/", editor.phrase_alignment_add, name="phrase-alignment-add"),
    path(PAIR + "phrases/accept/", editor.phrase_suggestion_accept, name="phrase-suggestion-accept"),
    path(
        PAIR + "phrases/<int:alignment_pk>/delete/",
        editor.phrase_alignment_remove,
        name="phrase-alignment-remove",
    ),
    path(PAIR + "undo/", editor.pair_undo, name="pair-undo"),
    path(PAIR + "redo/", editor.pair_redo, name="pair-redo"),
    path(PAIR + "next/", editor.pair_next, name="pair-next"),
    path(PAIR + "previous/", editor.pair_previous, name="pair-previous"),
    path(PAIR + "postpone/", editor.pair_postpone, name="pair-postpone"),
    path(PAIR + "done/", editor.pair_done, name="pair-done"),
    path(PAIR + "time/", editor.pair_time, name="pair-time"),
]
