"""Agreement measures for paraphrase annotation (pure Python + numpy; never imports Django).

See ``/work/shared/specs/agreement-metrics.md`` (the spec) for the definitions; the modules are
``types`` (data model), ``document`` (interchange input), ``iapta`` (N-, TPO-, DO-measures),
``multi`` (multi-annotator TPO), ``kappa`` (Fleiss, Cohen, Krippendorff), ``reeval``
(re-evaluation sets), ``alignment``/``chance``/``spade`` (alignment measures), ``bootstrap`` and
``report`` (the §10 report); ``python -m metrics report FILE.json`` prints a report.
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
