"""Data model: corpus (tagsets, projects, pairs), work (assignments), annotations, evaluation, agreement."""

from .agreement import AgreementSnapshot, AgreementState
from .annotations import AlignmentLink, AnnotationHistory, PairLabel, Phenomenon, PhraseAlignment
from .corpus import Membership, Pair, ParaphraseType, Project, Tagset
from .evaluation import EvaluationItem, EvaluationUnit, Judgement, ReevaluationSet
from .jobs import CorpusJob
from .setup import GuidelinesVersion, Invitation
from .work import Assignment, ReannotationRound

__all__ = [
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
