"""Data model: corpus (tagsets, projects, pairs), work (assignments), annotations, evaluation, agreement."""

from annotator.models.agreement import (
    AgreementHeadline,
    AgreementPairPart,
    AgreementPhenomenaPart,
    AgreementPhrasePart,
    AgreementSection,
    AgreementSnapshot,
    AgreementState,
    AgreementSum,
)
from annotator.models.annotations import (
    AlignmentLink,
    AnnotationHistory,
    PairLabel,
    Phenomenon,
    PhraseAlignment,
)
from annotator.models.automatic import AlignerRun, AlignmentSystem, SystemAlignment
from annotator.models.corpus import Membership, Pair, ParaphraseType, Project, Tagset
from annotator.models.counts import AssignmentCount, ProjectSize
from annotator.models.evaluation import (
    EvaluationItem,
    EvaluationUnit,
    Judgement,
    Lexicon,
    LexiconItem,
    ReevaluationSet,
)
from annotator.models.explorer import ExplorerState, ExplorerValue
from annotator.models.jobs import CorpusJob
from annotator.models.kappa_c import KappaCChunk, KappaCRun
from annotator.models.planning import AssignmentPlan, PlannedAssignment
from annotator.models.recommender import RecommenderRun, RecommenderSettings, SuggestionDecision
from annotator.models.setup import GuidelinesVersion, Invitation
from annotator.models.work import Assignment, ReannotationRound

__all__ = [
    "AgreementHeadline",
    "AgreementPairPart",
    "AgreementPhenomenaPart",
    "AgreementPhrasePart",
    "AgreementSection",
    "AgreementSnapshot",
    "AlignerRun",
    "AlignmentSystem",
    "SystemAlignment",
    "AgreementState",
    "AgreementSum",
    "AlignmentLink",
    "AnnotationHistory",
    "Assignment",
    "AssignmentCount",
    "AssignmentPlan",
    "CorpusJob",
    "EvaluationItem",
    "EvaluationUnit",
    "ExplorerState",
    "ExplorerValue",
    "GuidelinesVersion",
    "Invitation",
    "Judgement",
    "KappaCChunk",
    "KappaCRun",
    "Lexicon",
    "LexiconItem",
    "Membership",
    "Pair",
    "PairLabel",
    "ParaphraseType",
    "Phenomenon",
    "PhraseAlignment",
    "PlannedAssignment",
    "Project",
    "ProjectSize",
    "ReannotationRound",
    "RecommenderRun",
    "RecommenderSettings",
    "SuggestionDecision",
    "ReevaluationSet",
    "Tagset",
]
