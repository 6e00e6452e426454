"""URLs of the annotation area, the editor (included by annotator.urls, namespace `annotator`)."""

from django.urls import path

from annotator.annotation import recommender_views, views

PAIR = "projects/<int:project_pk>/pairs/<int:pair_pk>/"

urlpatterns = [
    path("projects/<int:project_pk>/queue/", views.queue, name="queue"),
    path(
        "projects/<int:project_pk>/recommender/",
        recommender_views.project_recommender,
        name="project-recommender",
    ),
    path(PAIR, views.pair_edit, name="pair-edit"),
    path(PAIR + "label/", views.pair_label, name="pair-label"),
    path(PAIR + "comment/", views.pair_comment, name="pair-comment"),
    path(PAIR + "phenomena/", views.phenomenon_create, name="phenomenon-create"),
    path(PAIR + "phenomena/<int:phenomenon_pk>/", views.phenomenon_update, name="phenomenon-update"),
    path(PAIR + "phenomena/<int:phenomenon_pk>/delete/", views.phenomenon_delete, name="phenomenon-delete"),
    path(
        PAIR + "suggestions/accept/", views.phenomenon_suggestion_accept, name="phenomenon-suggestion-accept"
    ),
    path(
        PAIR + "suggestions/reject/", views.phenomenon_suggestion_reject, name="phenomenon-suggestion-reject"
    ),
    path(PAIR + "links/", views.link_add, name="link-add"),
    path(PAIR + "links/remove/", views.link_remove, name="link-remove"),
    path(PAIR + "links/toggle/", views.link_toggle, name="link-toggle"),
    path(PAIR + "links/accept/", views.link_accept, name="link-accept"),
    path(PAIR + "phrases/", views.phrase_alignment_add, name="phrase-alignment-add"),
    path(PAIR + "phrases/accept/", views.phrase_suggestion_accept, name="phrase-suggestion-accept"),
    path(
        PAIR + "phrases/<int:alignment_pk>/delete/",
        views.phrase_alignment_remove,
        name="phrase-alignment-remove",
    ),
    path(PAIR + "undo/", views.pair_undo, name="pair-undo"),
    path(PAIR + "redo/", views.pair_redo, name="pair-redo"),
    path(PAIR + "next/", views.pair_next, name="pair-next"),
    path(PAIR + "previous/", views.pair_previous, name="pair-previous"),
    path(PAIR + "postpone/", views.pair_postpone, name="pair-postpone"),
    path(PAIR + "done/", views.pair_done, name="pair-done"),
    path(PAIR + "time/", views.pair_time, name="pair-time"),
]
