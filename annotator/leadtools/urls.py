"""URLs of the lead's tools (included by annotator.urls, namespace `annotator`)."""

from django.urls import path

from annotator.leadtools import views as leadtools

PROJECT = "projects/<int:project_pk>/"
ADJ = PROJECT + "pairs/<int:pair_pk>/adjudicate/"

urlpatterns = [
    path(PROJECT + "planner/", leadtools.planner, name="planner"),
    path(PROJECT + "planner/reassign/", leadtools.planner_reassign, name="planner-reassign"),
    path(PROJECT + "explorer/", leadtools.explorer, name="explorer"),
    path(PROJECT + "explorer/<int:pair_pk>/", leadtools.explorer_pair, name="explorer-pair"),
    path(PROJECT + "explorer/refresh/", leadtools.explorer_refresh, name="explorer-refresh"),
    path(PROJECT + "reannotation/", leadtools.reannotation_view, name="reannotation"),
    path(ADJ, leadtools.adjudicate, name="adjudicate"),
    path(ADJ + "take/", leadtools.adjudicate_take, name="adjudicate-take"),
    path(ADJ + "merge/", leadtools.adjudicate_merge, name="adjudicate-merge"),
    path(ADJ + "label/", leadtools.adjudicate_label, name="adjudicate-label"),
    path(ADJ + "phenomena/", leadtools.adjudicate_phenomenon_add, name="adjudicate-phenomenon-add"),
    path(
        ADJ + "phenomena/<int:phenomenon_pk>/",
        leadtools.adjudicate_phenomenon_update,
        name="adjudicate-phenomenon-update",
    ),
    path(
        ADJ + "phenomena/<int:phenomenon_pk>/remove/",
        leadtools.adjudicate_phenomenon_remove,
        name="adjudicate-phenomenon-remove",
    ),
    path(ADJ + "links/", leadtools.adjudicate_link_set, name="adjudicate-link-set"),
    path(
        ADJ + "links/<int:link_pk>/remove/", leadtools.adjudicate_link_remove, name="adjudicate-link-remove"
    ),
    path(
        ADJ + "phrases/<int:alignment_pk>/remove/",
        leadtools.adjudicate_phrase_remove,
        name="adjudicate-phrase-remove",
    ),
]
