"""URLs of the evaluation area (included by annotator.urls, namespace `annotator`)."""

from django.urls import path

from annotator.evaluation import views as evaluation

P = "projects/<int:project_pk>/evaluation/"
U = P + "units/<int:unit_pk>/"

urlpatterns: list = [
    path(P, evaluation.rating_queue, name="rating-queue"),
    path(P + "setup/", evaluation.evaluation_setup, name="evaluation-setup"),
    path(P + "lexicons/", evaluation.evaluation_lexicons, name="evaluation-lexicons"),
    path(U + "grammaticality/", evaluation.unit_grammaticality, name="unit-grammaticality"),
    path(
        U + "grammaticality/submit/", evaluation.unit_grammaticality_submit, name="unit-grammaticality-submit"
    ),
    path(U + "meaning/", evaluation.unit_meaning, name="unit-meaning"),
    path(U + "finalize/", evaluation.unit_finalize, name="unit-finalize"),
    path(U + "postpone/", evaluation.unit_postpone, name="unit-postpone"),
    path(U + "reevaluation/", evaluation.unit_reevaluation, name="unit-reevaluation"),
    path(U + "reevaluation/finish/", evaluation.unit_reevaluation_finish, name="unit-reevaluation-finish"),
    path(U + "items/<int:item_pk>/<str:step>/", evaluation.judgement_save, name="judgement-save"),
]
