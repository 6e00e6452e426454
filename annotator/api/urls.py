"""The REST API (DRF) under /api/, its OpenAPI 3 schema and the browsable documentation.

Resources (router `DefaultRouter`, URL names `api-<resource>-list|detail|<action>`): projects (with
members and agreement), tagsets, pairs (with an annotator's sheet), assignments, pair labels, phenomena,
links, phrase alignments, evaluation units, judgements, agreement snapshots, import/export jobs; and the
lead's tools under /api/projects/{project_pk}/ (`annotator.api.leadtools`): planner, explorer,
reannotation, pairs/{pair_pk}/adjudication (with its gold phenomena, links and phrase alignments).
"""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from annotator.api import agreement, annotation, evaluation, jobs, projects, tokens
from annotator.api import corpus as corpus_api
from annotator.api import leadtools as api_leadtools


class Router(DefaultRouter):
    include_format_suffixes = False  # one URL per resource: /api/pairs/, not also /api/pairs.json


router = Router()
router.register("projects", projects.ProjectViewSet, basename="api-project")
router.register("tagsets", projects.TagsetViewSet, basename="api-tagset")
router.register("pairs", projects.PairViewSet, basename="api-pair")
router.register("assignments", projects.AssignmentViewSet, basename="api-assignment")
router.register("pair-labels", annotation.PairLabelViewSet, basename="api-pairlabel")
router.register("phenomena", annotation.PhenomenonViewSet, basename="api-phenomenon")
router.register("links", annotation.AlignmentLinkViewSet, basename="api-link")
router.register("phrase-alignments", annotation.PhraseAlignmentViewSet, basename="api-phrasealignment")
router.register("units", evaluation.EvaluationUnitViewSet, basename="api-unit")
router.register("judgements", evaluation.JudgementViewSet, basename="api-judgement")
router.register("snapshots", agreement.SnapshotViewSet, basename="api-snapshot")
router.register("jobs", jobs.CorpusJobViewSet, basename="api-job")
LEAD = r"projects/(?P<project_pk>[0-9]+)/"
GOLD = LEAD + r"pairs/(?P<pair_pk>[0-9]+)/adjudication"
router.register(LEAD + "planner", api_leadtools.PlannerViewSet, basename="api-planner")
router.register(LEAD + "explorer", api_leadtools.ExplorerViewSet, basename="api-explorer")
router.register(LEAD + "reannotation", api_leadtools.ReannotationViewSet, basename="api-reannotation")
router.register(LEAD + "aligner", corpus_api.AlignerViewSet, basename="api-aligner")
router.register(LEAD + "trees", corpus_api.TreesViewSet, basename="api-trees")
router.register(LEAD + "systems", corpus_api.SystemViewSet, basename="api-systems")
router.register(GOLD, api_leadtools.AdjudicationViewSet, basename="api-adjudication")
router.register(GOLD + "/phenomena", api_leadtools.GoldPhenomenonViewSet, basename="api-gold-phenomenon")
router.register(GOLD + "/links", api_leadtools.GoldLinkViewSet, basename="api-gold-link")
router.register(
    GOLD + "/phrase-alignments", api_leadtools.GoldPhraseAlignmentViewSet, basename="api-gold-phrasealignment"
)

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("token/", tokens.TokenView.as_view(), name="api-token"),
    *router.urls,
]
