"""Data types of the agreement measures (docs/measures.md#document; spec §1).

Every type is a frozen, slotted dataclass; sets of token indices are ``frozenset[int]`` and links
are ``(i, j)`` tuples with ``i`` in member 1 and ``j`` in member 2. A section of the interchange
document that is absent is ``None`` on :class:`Document`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "G5",
    "M6",
    "G2_OK",
    "M2_OK",
    "DocumentError",
    "Pair",
    "TypeDef",
    "Tagset",
    "Phenomenon",
    "WordAlignment",
    "PhraseAlignment",
    "Judgement",
    "Evaluations",
    "Options",
    "Document",
    "Link",
    "SCALES",
    "scale_label",
]

Link = tuple[int, int]

#: Grammaticality labels (Fujita), in scale order.
G5: tuple[str, ...] = ("Perfect", "Awkward", "Minor Problem", "Major Problem", "Irredeemable")
#: Meaning-equivalence labels (Fujita), in scale order.
M6: tuple[str, ...] = (
    "Equivalent",
    "Missing Info.",
    "Additional Info.",
    "Ignorable Change",
    "Significantly Different",
    "Completely Different",
)
#: Labels that the binary scale G2 maps to ``OK`` (all others map to ``NG``).
G2_OK: frozenset[str] = frozenset({"Perfect", "Awkward"})
#: Labels that the binary scale M2 maps to ``OK`` (all others map to ``NG``).
M2_OK: frozenset[str] = frozenset({"Equivalent", "Missing Info.", "Additional Info.", "Ignorable Change"})


#: The four judgement scales of the two-step evaluation (docs/measures.md#fleiss).
SCALES: tuple[str, ...] = ("G5", "M6", "G2", "M2")


def scale_label(judgement: Judgement, scale: str) -> str | None:
    """The label of ``judgement`` on ``scale`` (G5/M6 as given; G2/M2 mapped to OK/NG); ``None`` if absent."""
    if scale in ("G5", "G2"):
        label = judgement.G
        ok = G2_OK
    elif scale in ("M6", "M2"):
        label = judgement.M
        ok = M2_OK
    else:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if label is None or scale in ("G5", "M6"):
        return label
    return "OK" if label in ok else "NG"


class DocumentError(ValueError):
    """An invalid interchange document; ``field`` is the JSON path of the offending value."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Pair:
    """A paraphrase pair: two tokenized members, an optional automatic initial alignment and an
    optional split of the corpus (``"train"``, ``"dev"``, ``"test"`` …; only the statistics read it)."""

    id: str
    tokens1: tuple[str, ...]
    tokens2: tuple[str, ...]
    initial_alignment: frozenset[Link] | None = None
    split: str | None = None


@dataclass(frozen=True, slots=True)
class TypeDef:
    """A paraphrase type; ``one_sided`` marks ADDITION/DELETION-like types (scope in one member)."""

    name: str
    one_sided: bool = False


@dataclass(frozen=True, slots=True)
class Tagset:
    """The ordered list of types; look a type up with ``tagset[name]`` or ``tagset.get(name)``."""

    types: tuple[TypeDef, ...]
    _by_name: dict[str, TypeDef] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {t.name: t for t in self.types})

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __getitem__(self, name: str) -> TypeDef:
        return self._by_name[name]

    def get(self, name: str) -> TypeDef | None:
        return self._by_name.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.types)

    def is_one_sided(self, name: str) -> bool:
        """The ``one_sided`` flag of type ``name`` (``False`` for an unknown name)."""
        t = self._by_name.get(name)
        return t.one_sided if t is not None else False


@dataclass(frozen=True, slots=True)
class Phenomenon:
    """One annotated paraphrase phenomenon (Vila et al. 2015): scopes, projection and keys.

    ``sense_preserving`` is ETPC's layer (Kovatchev et al.): ``True`` (+), ``False`` (−) or ``None``
    (not marked); it selects the layer in per-layer agreement (docs/measures.md#sense-layers) and is
    ignored by every other measure.
    """

    pair: str
    type: str
    s1: frozenset[int]
    s2: frozenset[int]
    projection: str | None = None
    key1: frozenset[int] = frozenset()
    key2: frozenset[int] = frozenset()
    sense_preserving: bool | None = None


@dataclass(frozen=True, slots=True)
class WordAlignment:
    """One annotator's word alignment of one pair: sure links and possible-only links."""

    sure: frozenset[Link]
    possible: frozenset[Link] = frozenset()

    @property
    def S(self) -> frozenset[Link]:  # noqa: N802 - the paper's symbol
        """Sure links."""
        return self.sure

    @property
    def P(self) -> frozenset[Link]:  # noqa: N802 - the paper's symbol
        """Possible links, ``P = S ∪ possible`` (so ``S ⊆ P``)."""
        return self.sure | self.possible


@dataclass(frozen=True, slots=True)
class PhraseAlignment:
    """A SPADE phrase alignment; identity is ``(pair, s1, s2)`` — the label is carried, not compared."""

    pair: str
    s1: frozenset[int] | None
    s2: frozenset[int] | None
    label: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Judgement:
    """A two-step evaluation judgement (Fujita): grammaticality ``G`` and meaning ``M`` of an item."""

    item: str
    rater: str
    G: str | None  # noqa: N815 - the paper's symbol
    M: str | None  # noqa: N815 - the paper's symbol


@dataclass(frozen=True, slots=True)
class Evaluations:
    """Raters, their initial judgements and the re-evaluation revisions."""

    raters: tuple[str, ...]
    ratings: tuple[Judgement, ...]
    revisions: tuple[Judgement, ...] = ()


@dataclass(frozen=True, slots=True)
class Options:
    """Document options (docs/measures.md#document); defaults are the spec's (§9)."""

    identical_match: str = "exact"
    mc_samples: int = 1000
    mc_seed: int = 0
    reeval_seed: int = 0
    reeval_fraction: float = 0.1


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed, validated interchange document (docs/measures.md#document). Absent sections are ``None``."""

    annotators: tuple[str, ...]
    options: Options = Options()
    tagset: Tagset | None = None
    pairs: tuple[Pair, ...] = ()
    phenomena: dict[str, tuple[Phenomenon, ...]] | None = None
    word_alignments: dict[str, dict[str, WordAlignment]] | None = None
    phrase_alignments: dict[str, tuple[PhraseAlignment, ...]] | None = None
    system_phrase_alignments: dict[str, tuple[PhraseAlignment, ...]] | None = None
    evaluations: Evaluations | None = None
    pair_labels: dict[str, dict[str, str]] | None = None
    pair_by_id: dict[str, Pair] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pair_by_id", {p.id: p for p in self.pairs})

    def section_annotators(self, section: dict[str, object] | None) -> tuple[str, ...]:
        """The declared annotators that appear in ``section``, in ``annotators`` order (docs/measures.md#document)."""
        if section is None:
            return ()
        return tuple(a for a in self.annotators if a in section)

    def annotator_pairs(self, annotators: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
        """Unordered annotator pairs ``(a, b)``, ``a`` before ``b`` in document order
        (docs/measures.md#conventions)."""
        names = self.annotators if annotators is None else annotators
        return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
