"""Data model: corpus (tagsets, projects, pairs), work (assignments), annotations, evaluation, agreement."""

from .agreement import AgreementSnapshot, AgreementState
from .annotations import AlignmentLink, AnnotationHistory, PairLabel, Phenomenon, PhraseAlignment
from .automatic import AlignerRun, AlignmentSystem, SystemAlignment
from .corpus import Membership, Pair, ParaphraseType, Project, Tagset
from .evaluation import EvaluationItem, EvaluationUnit, Judgement, ReevaluationSet
from .jobs import CorpusJob
from .work import Assignment, ReannotationRound

__all__ = [
    "AgreementSnapshot",
    "AlignerRun",
    "AlignmentSystem",
    "SystemAlignment",
    "AgreementState",
    "AlignmentLink",
    "AnnotationHistory",
    "Assignment",
    "CorpusJob",
    "EvaluationItem",
    "EvaluationUnit",
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
