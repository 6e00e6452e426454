"""Agreement measures for paraphrase annotation (pure Python + numpy; never imports Django).

``docs/measures.md`` defines every measure (formula, range, undefined cases, sources); the modules are
``types`` (data model), ``document`` (interchange input), ``iapta`` (N-, TPO-, DO-measures),
``multi`` (multi-annotator TPO), ``kappa`` (Fleiss, Cohen, Krippendorff), ``reeval``
(re-evaluation sets), ``alignment``/``chance``/``spade`` (alignment measures), ``bootstrap`` and
``report`` (the report), ``layers`` (ETPC's sense layers), ``corpus_statistics`` (the papers'
corpus tables); ``python -m metrics report FILE.json`` prints a report.
"""

from metrics.types import (
    Document,
    DocumentError,
    Evaluations,
    Judgement,
    Options,
    Pair,
    Phenomenon,
    PhraseAlignment,
    Tagset,
    TypeDef,
    WordAlignment,
)

__all__ = [
    "Document",
    "DocumentError",
    "Evaluations",
    "Judgement",
    "Options",
    "Pair",
    "Phenomenon",
    "PhraseAlignment",
    "Tagset",
    "TypeDef",
    "WordAlignment",
]
