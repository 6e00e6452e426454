"""Data model: corpus (tagsets, projects, pairs), work (assignments), annotations, evaluation, agreement."""

from annotator.models.agreement import AgreementHeadline, AgreementSnapshot, AgreementState
from annotator.models.annotations import (
    AlignmentLink,
    AnnotationHistory,
    PairLabel,
    Phenomenon,
    PhraseAlignment,
)
from annotator.models.corpus import Membership, Pair, ParaphraseType, Project, Tagset
from annotator.models.evaluation import EvaluationItem, EvaluationUnit, Judgement, ReevaluationSet
from annotator.models.jobs import CorpusJob
from annotator.models.setup import GuidelinesVersion, Invitation
from annotator.models.work import Assignment, ReannotationRound

__all__ = [
    "AgreementHeadline",
    "AgreementSnapshot",
    "AgreementState",
    "AlignmentLink",
    "AnnotationHistory",
    "Assignment",
    "CorpusJob",
    "EvaluationItem",
    "EvaluationUnit",
    "GuidelinesVersion",
    "Invitation",
    "Judgement",
    "Membership",
    "Pair",
    "PairLabel",
    "ParaphraseType",
    "Phenomenon",
    "PhraseAlignment",
    "Project",
    "ReannotationRound",
    "ReevaluationSet",
    "Tagset",
]
