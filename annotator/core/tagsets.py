"""The two built-in tagsets: Vila et al. 2015 and ETPC's Extended Paraphrase Typology.

Plain data plus one installer used by the data migration (with historical models) and by tests.
"""

from __future__ import annotations

from typing import Any

from annotator.core.type_definitions import etpc_definition, vila_definition

# 30 colours that stay distinguishable side by side (Tableau 20 plus ten darker/brighter companions).
PALETTE = [
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
    "#aec7e8",
    "#ff7f0e",
    "#98df8a",
    "#c5b0d5",
    "#c49c94",
    "#f7b6d2",
    "#dbdb8d",
    "#9edae5",
    "#393b79",
    "#637939",
    "#843c39",
]
SHORTCUTS = "1234567890qwertyuiopasdfghjklzxcvbm"

MORPHOLEXICON = "Morpholexicon-based changes"
STRUCTURE = "Structure-based changes"
SEMANTICS = "Semantics-based changes"
MISC = "Miscellaneous changes"
EXTREMES = "Paraphrase extremes"

# (class, subclass, name, projection_required, keys_allowed, scope_sides)
VILA_2015: list[tuple[str, str, str, bool, bool, str]] = [
    (MORPHOLEXICON, "Morphology-based changes", "Inflectional", True, False, "both"),
    (MORPHOLEXICON, "Morphology-based changes", "Modal verb", True, False, "both"),
    (MORPHOLEXICON, "Morphology-based changes", "Derivational", True, False, "both"),
    (MORPHOLEXICON, "Lexicon-based changes", "Spelling", True, False, "both"),
    (MORPHOLEXICON, "Lexicon-based changes", "Format", True, False, "both"),
    (MORPHOLEXICON, "Lexicon-based changes", "Same polarity", True, False, "both"),
    (MORPHOLEXICON, "Lexicon-based changes", "Synthetic/analytic", True, False, "both"),
    (MORPHOLEXICON, "Lexicon-based changes", "Opposite polarity", True, False, "both"),
    (MORPHOLEXICON, "Lexicon-based changes", "Converse", True, False, "both"),
    (STRUCTURE, "Syntax-based changes", "Diathesis", False, True, "both"),
    (STRUCTURE, "Syntax-based changes", "Negation switching", False, True, "both"),
    (STRUCTURE, "Syntax-based changes", "Ellipsis", False, True, "both"),
    (STRUCTURE, "Syntax-based changes", "Coordination", False, True, "both"),
    (STRUCTURE, "Syntax-based changes", "Subordination and nesting", False, True, "both"),
    (STRUCTURE, "Discourse-based changes", "Punctuation", False, True, "both"),
    (STRUCTURE, "Discourse-based changes", "Direct/indirect style", False, True, "both"),
    (STRUCTURE, "Discourse-based changes", "Sentence modality", False, True, "both"),
    (STRUCTURE, "Discourse-based changes", "Syntax/discourse structure", False, True, "both"),
    (SEMANTICS, "", "Semantics", True, False, "both"),
    (MISC, "", "Change of order", True, False, "both"),
    (MISC, "", "Addition/deletion", True, False, "one"),
    (EXTREMES, "", "Identical", False, False, "any"),
    (EXTREMES, "", "Non-paraphrase", False, False, "any"),
    (EXTREMES, "", "Entailment", False, False, "any"),
]

# ETPC paraphrase_types.xml: (type_id, type_name, type_category). Sense preservation is per relation.
ETPC_TYPES: list[tuple[str, str, str]] = [
    ("1", "Inflectional Changes", "Morphology"),
    ("2", "Modal Verb Changes", "Morphology"),
    ("3", "Derivational Changes", "Morphology"),
    ("4", "Spelling changes", "Lexicon"),
    ("5", "Same Polarity Substitution (habitual)", "Lexicon"),
    ("6", "Same Polarity Substitution (contextual)", "Lexicon"),
    ("7", "Same Polarity Substitution (named ent.)", "Lexicon"),
    ("8", "Change of format", "Lexicon"),
    ("9", "Opposite polarity substitution (habitual)", "Lex-Synt"),
    ("10", "Opposite polarity substitution (contextual)", "Lex-Synt"),
    ("11", "Synthetic/analytic substitution", "Lex-Synt"),
    ("13", "Converse substitution", "Lex-Synt"),
    ("14", "Diathesis alternation", "Syntax"),
    ("15", "Negation switching", "Syntax"),
    ("16", "Ellipsis", "Syntax"),
    ("17", "Coordination changes", "Syntax"),
    ("18", "Subordination and nesting changes", "Syntax"),
    ("21", "Punctuation changes", "Discourse"),
    ("22", "Direct/indirect style alternations", "Discourse"),
    ("23", "Sentence modality changes", "Discourse"),
    ("24", "Syntax/discourse structure changes", "Discourse"),
    ("25", "Addition/Deletion", "Other"),
    ("26", "Change of order", "Other"),
    ("28", "Semantic based", "Other"),
    ("29", "Identity", "Extremes"),
    ("30", "Non-paraphrase", "Extremes"),
    ("31", "Entailment", "Extremes"),
    ("32", "Synthetic/analytic substitution (named ent.)", "Lex-Synt"),
    ("100", "Negation", "Neg"),
]
# ETPC's released relations give any type a scope in one member only (spec 1.1 allows it for every type
# that is not one-sided), so every type but Addition/Deletion takes a scope in one or both members.
ETPC_SCOPE_SIDES = {"25": "one"}

VILA_NAME = "Vila et al. 2015"
ETPC_NAME = "ETPC (Extended Paraphrase Typology)"


def vila_rows() -> list[dict[str, Any]]:
    return [
        {
            "code": str(n + 1),
            "name": name,
            "type_class": cls,
            "subclass": sub,
            "projection_required": proj,
            "keys_allowed": keys,
            "scope_sides": sides,
            "colour": PALETTE[n % len(PALETTE)],
            "shortcut": SHORTCUTS[n],
            "position": n,
        }
        for n, (cls, sub, name, proj, keys, sides) in enumerate(VILA_2015)
    ]


def etpc_rows() -> list[dict[str, Any]]:
    return [
        {
            "code": code,
            "name": name,
            "type_class": category,
            "subclass": "",
            "projection_required": False,
            "keys_allowed": True,
            "scope_sides": ETPC_SCOPE_SIDES.get(code, "any"),
            "colour": PALETTE[n % len(PALETTE)],
            "shortcut": SHORTCUTS[n],
            "position": n,
        }
        for n, (code, name, category) in enumerate(ETPC_TYPES)
    ]


def install_builtin_tagsets(tagset_model: Any, type_model: Any) -> None:
    """Create (or complete) both built-in tagsets; safe to run twice."""
    for name, description, rows in (
        (
            VILA_NAME,
            "24 paraphrase types in 5 classes and 4 subclasses (Vila, Bertran, Martí & Rodríguez 2015).",
            vila_rows(),
        ),
        (
            ETPC_NAME,
            "The Extended Paraphrase Typology of ETPC (Kovatchev, Martí & Salamó 2018), ids as in "
            "paraphrase_types.xml; sense preservation is marked per phenomenon.",
            etpc_rows(),
        ),
    ):
        tagset, _ = tagset_model.objects.get_or_create(
            name=name, defaults={"description": description, "builtin": True}
        )
        with_definitions = any(f.name == "examples" for f in type_model._meta.get_fields())
        for row in rows:
            if with_definitions:  # not in the historical model of migration 0002
                row = {**row, **_definition(name, row)}
            type_model.objects.update_or_create(tagset=tagset, code=row["code"], defaults=row)


def _definition(tagset_name: str, row: dict[str, Any]) -> dict[str, str]:

    found = vila_definition(row["name"]) if tagset_name == VILA_NAME else etpc_definition(row["code"])
    return {"description": found[0], "examples": found[1]}
