"""Definitions and examples of the built-in paraphrase types, for the editor's palette and the guidelines.

Written from the typologies' own descriptions: Vila, Martí & Rodríguez (2014), "Is this a paraphrase?
What kind? Paraphrase boundaries and typology" (Open Journal of Modern Linguistics 4) and Vila, Bertran,
Martí & Rodríguez (2015), "Corpus annotation with paraphrase types" (LRE 49); and the Extended
Paraphrase Typology of ETPC (Kovatchev, Martí & Salamó 2018, LREC), whose `paraphrase_types.xml` gives
the ids and categories. Every type's change is described as what differs between the two members; the
example pairs the changed fragments ("A ⇄ B").
"""

from __future__ import annotations

# name → (definition, examples: one per line)
VILA: dict[str, tuple[str, str]] = {
    "Inflectional": (
        "The members differ in inflectional morphemes only: number, person, tense or gender of the same "
        "lexical unit, without a change of word class.",
        "the company's profit ⇄ the companies' profits\nhe works ⇄ he worked",
    ),
    "Modal verb": (
        "A modal verb is added, removed or replaced (can, may, might, should, must), changing the "
        "modality of the same predicate.",
        "it is possible that he comes ⇄ he may come\nthey will need ⇄ they could need",
    ),
    "Derivational": (
        "Words of the same stem related by derivation, usually with a change of word class "
        "(verb ⇄ noun, adjective ⇄ adverb).",
        "the government decided ⇄ the government's decision\nquick ⇄ quickly",
    ),
    "Spelling": (
        "The same word or expression written differently: spelling variants, abbreviations, "
        "capitalisation, digits written out.",
        "colour ⇄ color\nU.S. ⇄ United States\n9 ⇄ nine",
    ),
    "Format": (
        "The same content in another format or notation: dates, times, quantities, units, symbols.",
        "$ 10 million ⇄ 10 million dollars\nJune 5 ⇄ 5 June",
    ),
    "Same polarity": (
        "A lexical unit replaced by another with the same polarity and essentially the same meaning: "
        "synonyms, near-synonyms, general ⇄ specific terms in context.",
        "buy ⇄ purchase\nthe firm ⇄ the company",
    ),
    "Synthetic/analytic": (
        "A synthetic form ⇄ an analytic form of the same meaning: one word ⇄ several words, a compound "
        "⇄ a phrase, a genitive ⇄ a prepositional phrase.",
        "Microsoft's chief ⇄ the chief of Microsoft\nto decide ⇄ to make a decision",
    ),
    "Opposite polarity": (
        "A lexical unit replaced by one of opposite polarity, with a negation or another change "
        "compensating so that the meaning is kept.",
        "he failed ⇄ he did not succeed\nit is absent ⇄ it is not present",
    ),
    "Converse": (
        "Converse expressions describe the same relation from the other participant's side; the "
        "arguments swap places.",
        "A sold the house to B ⇄ B bought the house from A\nA is older than B ⇄ B is younger than A",
    ),
    "Diathesis": (
        "A change of diathesis (voice): active ⇄ passive, or another alternation of the verb's "
        "arguments with the same meaning.",
        "the police arrested him ⇄ he was arrested by the police",
    ),
    "Negation switching": (
        "A negation moves to another constituent of the sentence without changing the meaning.",
        "nobody has seen it ⇄ it has not been seen by anybody",
    ),
    "Ellipsis": (
        "Material present in one member is elided in the other, and recoverable from the context.",
        "he ate and she ate too ⇄ he ate and she did too",
    ),
    "Coordination": (
        "Coordinated units in one member appear as separate units (or juxtaposed) in the other, or the "
        "coordinated elements change.",
        "he came and he sat down ⇄ he came. He sat down",
    ),
    "Subordination and nesting": (
        "A change in the subordination or nesting of clauses and phrases: a relative clause ⇄ an "
        "adjective, a subordinate ⇄ a main clause, nesting changed.",
        "the man who was tall ⇄ the tall man\nalthough it rained, we left ⇄ it rained, but we left",
    ),
    "Punctuation": (
        "A change of punctuation marks, quotation marks and commas included: a mark added, dropped or "
        "replaced by another mark or by words (a colon, semicolon or parentheses ⇄ a comma or words).",
        "Paris: capital of France ⇄ Paris, which is the capital of France\n"
        'he called it "a disaster" ⇄ he called it a disaster\n'
        "however the plan failed ⇄ however, the plan failed",
    ),
    "Direct/indirect style": (
        "Direct speech ⇄ reported speech.",
        'he said: "I am tired" ⇄ he said that he was tired',
    ),
    "Sentence modality": (
        "A change of sentence modality: declarative ⇄ interrogative ⇄ exclamative ⇄ imperative, with "
        "the same content.",
        "close the door ⇄ could you close the door?",
    ),
    "Syntax/discourse structure": (
        "Other structural reorganisations at the syntactic or discourse level that keep the meaning, "
        "when no more specific type applies.",
        "his arrival surprised us ⇄ we were surprised when he arrived",
    ),
    "Semantics": (
        "The same content expressed with different lexical and syntactic means that cannot be decomposed "
        "into the types above; the change is at the level of meaning (different lexicalisation of the "
        "same situation).",
        "he is a vegetarian ⇄ he does not eat meat",
    ),
    "Change of order": (
        "The same units appear in another order in the two members (words, phrases or clauses).",
        "yesterday he left ⇄ he left yesterday",
    ),
    "Addition/deletion": (
        "Content present in only one member (added or deleted); the scope lies in that member only.",
        "he left early in the morning ⇄ he left early",
    ),
    "Identical": (
        "The fragment is identical in both members: no change. Used to mark identical pairs or spans.",
        "the board met ⇄ the board met",
    ),
    "Non-paraphrase": (
        "The fragments are not paraphrases: their meaning differs beyond what a paraphrase allows.",
        "the price rose ⇄ the price fell",
    ),
    "Entailment": (
        "One member entails the other, but not the reverse: a one-way relation of meaning, not a paraphrase.",
        "he was murdered ⇄ he died",
    ),
}

# ETPC type id → (Vila type whose definition applies, a note specific to ETPC or None)
ETPC_TO_VILA: dict[str, tuple[str, str | None]] = {
    "1": ("Inflectional", None),
    "2": ("Modal verb", None),
    "3": ("Derivational", None),
    "4": ("Spelling", None),
    "5": ("Same polarity", "Habitual: the two units are synonyms in general use, not only in this context."),
    "6": ("Same polarity", "Contextual: the two units mean the same only in this context."),
    "7": ("Same polarity", "Named entity: the same entity named differently (Bill Clinton ⇄ the President)."),
    "8": ("Format", None),
    "9": ("Opposite polarity", "Habitual: the opposite-polarity units are antonyms in general use."),
    "10": ("Opposite polarity", "Contextual: the units have opposite polarity only in this context."),
    "11": ("Synthetic/analytic", None),
    "13": ("Converse", None),
    "14": ("Diathesis", None),
    "15": ("Negation switching", None),
    "16": ("Ellipsis", None),
    "17": ("Coordination", None),
    "18": ("Subordination and nesting", None),
    "21": ("Punctuation", None),
    "22": ("Direct/indirect style", None),
    "23": ("Sentence modality", None),
    "24": ("Syntax/discourse structure", None),
    "25": ("Addition/deletion", None),
    "26": ("Change of order", None),
    "28": ("Semantics", None),
    "29": ("Identical", None),
    "30": ("Non-paraphrase", None),
    "31": ("Entailment", None),
    "32": (
        "Synthetic/analytic",
        "Named entity: a synthetic ⇄ analytic form of a name (IBM ⇄ International Business Machines).",
    ),
}
ETPC_NEGATION = (
    "A negation cue present in one or both members (ETPC's negation layer): mark the cue and its scope; "
    "sense preservation says whether the pair's meaning survives it.",
    "did not approve ⇄ rejected",
)


def vila_definition(name: str) -> tuple[str, str]:
    return VILA.get(name, ("", ""))


def etpc_definition(code: str) -> tuple[str, str]:
    """ETPC types share Vila's definitions; the habitual/contextual/named-entity split adds a sentence."""
    if code == "100":
        return ETPC_NEGATION
    vila, note = ETPC_TO_VILA.get(code, ("", None))
    definition, examples = VILA.get(vila, ("", ""))
    if note:
        definition = f"{definition} {note}"
    return definition, examples
