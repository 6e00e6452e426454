"""The demo corpus that `make run` loads: sentence pairs written for this project, with parse trees,
a reference annotation and three annotators who partly agree and partly disagree.

Each member is given as its Penn Treebank tree; tokens are the tree's leaves.
Phenomena: (type name in the Vila et al. 2015 tagset, scope1, scope2, projection, key1, key2).
Links: "i-j" sure, "i?j" possible (the Pharaoh convention used by the importer).
"""

from __future__ import annotations

from typing import Any

PAIRS: list[dict[str, Any]] = [
    {
        "id": "demo-01",
        "tree1": "(S (NP (DT The) (NN company)) (VP (VBD bought) (NP (DT a) (JJ small) (NN rival))) (. .))",
        "tree2": "(S (NP (DT The) (NN firm)) (VP (VBD acquired) (NP (DT a) (JJ minor) (NN competitor))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Same polarity", [1], [1], "local", [], []),
            ("Same polarity", [2], [2], "local", [], []),
            ("Same polarity", [4], [4], "local", [], []),
            ("Same polarity", [5], [5], "local", [], []),
            ("Identical", [0, 3, 6], [0, 3, 6], None, [], []),
        ],
        "links": "0-0 1-1 2-2 3-3 4-4 5-5 6-6",
    },
    {
        "id": "demo-02",
        "tree1": "(S (NP (NNS Prices)) (VP (VBD rose) (PP (IN by) (NP (CD 5) (NN percent)))) (. .))",
        "tree2": "(S (NP (NNS Prices)) (VP (VBD increased) (NP (CD 5) (NN %))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Same polarity", [1], [1], "local", [], []),
            ("Format", [4], [3], "local", [], []),
            ("Addition/deletion", [2], [], "local", [], []),
            ("Identical", [0, 3, 5], [0, 2, 4], None, [], []),
        ],
        "links": "0-0 1-1 2?1 3-2 4-3 5-4",
    },
    {
        "id": "demo-03",
        "tree1": "(S (NP (DT The) (NN committee)) (VP (VBD rejected) (NP (DT the) (NN proposal))) (. .))",
        "tree2": "(S (NP (DT The) (NN proposal)) (VP (VBD was) (VP (VBN rejected) (PP (IN by) "
        "(NP (DT the) (NN committee))))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Diathesis", [0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5, 6], None, [2], [2, 3, 4]),
            ("Identical", [5], [7], None, [], []),
        ],
        "links": "0-5 1-6 2-3 2?2 3-0 4-1 5-7",
    },
    {
        "id": "demo-04",
        "tree1": "(S (NP (PRP He)) (VP (VBD did) (RB not) (VP (VB attend) (NP (DT the) (NN meeting)))) (. .))",
        "tree2": "(S (NP (PRP He)) (VP (VBD missed) (NP (DT the) (NN meeting))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Opposite polarity", [1, 2, 3], [1], "local", [], []),
            ("Identical", [0, 4, 5, 6], [0, 2, 3, 4], None, [], []),
        ],
        "links": "0-0 1?1 2-1 3-1 4-2 5-3 6-4",
    },
    {
        "id": "demo-05",
        "tree1": "(S (NP (NNP Smith)) (VP (VBD said) (SBAR (S (NP (DT the) (NN plan)) (VP (VBD was) "
        "(ADJP (JJ risky)))))) (. .))",
        "tree2": "(S (S (NP (DT The) (NN plan)) (VP (VBZ is) (ADJP (JJ risky)))) (, ,) (NP (NNP Smith)) "
        "(VP (VBD said)) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Direct/indirect style", [0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5, 6], None, [1], [6]),
            ("Inflectional", [4], [2], "local", [], []),
            ("Punctuation", [6], [4, 7], None, [], []),
        ],
        "links": "0-5 1-6 2-0 3-1 4-2 5-3 6-7",
    },
    {
        "id": "demo-06",
        "tree1": "(S (NP (DT The) (NNS shares)) (VP (VBD closed) (ADJP (JJR higher)) (PP (IN on) "
        "(NP (NNP Monday)))) (. .))",
        "tree2": "(S (PP (IN On) (NP (NNP Monday))) (, ,) (NP (DT the) (NNS shares)) (VP (VBD ended) "
        "(ADVP (RBR up))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Change of order", [4, 5], [0, 1], "global", [], []),
            ("Same polarity", [2, 3], [5, 6], "local", [], []),
            ("Identical", [0, 1, 6], [3, 4, 7], None, [], []),
        ],
        "links": "0-3 1-4 2-5 3-6 4-0 5-1 6-7",
    },
    {
        "id": "demo-07",
        "tree1": "(S (NP (NNS Officials)) (VP (VBP expect) (NP (DT a) (NN decision)) (ADVP (RB soon))) (. .))",
        "tree2": "(S (NP (NNS Officials)) (VP (VBP expect) (SBAR (S (NP (PRP they)) (VP (MD will) "
        "(VP (VB decide) (ADVP (RB soon))))))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Synthetic/analytic", [2, 3], [2, 3, 4], "local", [], []),
            ("Derivational", [3], [4], "local", [], []),
            ("Identical", [0, 1, 4, 5], [0, 1, 5, 6], None, [], []),
        ],
        "links": "0-0 1-1 2?2 3?3 3-4 4-5 5-6",
    },
    {
        "id": "demo-08",
        "tree1": "(S (NP (DT The) (NN storm)) (VP (VBD killed) (NP (CD three) (NNS people))) (. .))",
        "tree2": "(S (NP (CD Three) (NNS people)) (VP (VBD died) (PP (IN in) (NP (DT the) (NN storm)))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Converse", [2], [2, 3], "local", [], []),
            ("Diathesis", [0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5], None, [2], [2]),
            ("Identical", [1, 3, 4, 5], [5, 0, 1, 6], None, [], []),
        ],
        "links": "0-4 1-5 2-2 2?3 3-0 4-1 5-6",
    },
    {
        "id": "demo-09",
        "tree1": "(S (NP (PRP She)) (VP (VP (VBD wrote) (NP (DT the) (NN report))) (CC and) (VP (VBD sent) "
        "(NP (PRP it)))) (. .))",
        "tree2": "(S (PP (IN After) (S (VP (VBG writing) (NP (DT the) (NN report))))) (, ,) (NP (PRP she)) "
        "(VP (VBD sent) (NP (PRP it))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Subordination and nesting", [1, 2, 3, 4], [0, 1, 2, 3, 4], None, [4], [0]),
            ("Inflectional", [1], [1], "local", [], []),
            ("Change of order", [0], [5], "local", [], []),
            ("Identical", [2, 3, 5, 6, 7], [2, 3, 6, 7, 8], None, [], []),
        ],
        "links": "0-5 1-1 2-2 3-3 4?0 5-6 6-7 7-8",
    },
    {
        "id": "demo-10",
        "tree1": "(S (NP (DT The) (NN bank)) (VP (MD will) (VP (VB cut) (NP (NNS rates)))) (. .))",
        "tree2": "(S (NP (DT The) (NN bank)) (VP (MD may) (VP (VB lower) (NP (NN interest) (NNS rates)))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Modal verb", [2], [2], "local", [], []),
            ("Same polarity", [3], [3], "local", [], []),
            ("Addition/deletion", [], [4], "local", [], []),
            ("Identical", [0, 1, 4, 5], [0, 1, 5, 6], None, [], []),
        ],
        "links": "0-0 1-1 2-2 3-3 4-5 4?4 5-6",
    },
    {
        "id": "demo-11",
        "tree1": "(S (NP (NNP Microsoft)) (VP (VBD released) (NP (DT the) (NN update)) (NP (NNP Tuesday))) (. .))",
        "tree2": "(S (NP (DT The) (NN update)) (VP (VBD came) (PRT (RP out)) (NP (NNP Tuesday))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Addition/deletion", [0], [], "local", [], []),
            ("Synthetic/analytic", [1], [2, 3], "local", [], []),
            ("Diathesis", [0, 1, 2, 3], [0, 1, 2, 3], None, [1], [2]),
            ("Identical", [2, 3, 4, 5], [0, 1, 4, 5], None, [], []),
        ],
        "links": "1-2 1-3 2-0 3-1 4-4 5-5",
    },
    {
        "id": "demo-12",
        "tree1": "(S (NP (DT The) (NN museum)) (VP (VBZ is) (ADJP (JJ open)) (NP (DT every) (NN day))) (. .))",
        "tree2": "(S (NP (DT The) (NN museum)) (VP (VBZ closes) (PP (IN on) (NP (NNPS Mondays)))) (. .))",
        "label": "non_paraphrase",
        "phenomena": [],
        "links": "0-0 1-1 2?2 3?2 6-5",
    },
    {
        "id": "demo-13",
        "tree1": "(S (NP (NNS Sales)) (VP (VBD fell) (NP (CD 10) (NN percent)) (PP (IN in) (NP (NNP May)))) (. .))",
        "tree2": "(S (NP (NNS Sales)) (VP (VBD dropped) (NP (CD 10) (NN percent)) (NP (JJ last) (NN month))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Same polarity", [1], [1], "local", [], []),
            ("Semantics", [4, 5], [4, 5], "global", [], []),
            ("Identical", [0, 2, 3, 6], [0, 2, 3, 6], None, [], []),
        ],
        "links": "0-0 1-1 2-2 3-3 4?4 5-5 6-6",
    },
    {
        "id": "demo-14",
        "tree1": "(S (NP (DT The) (NN mayor)) (VP (VBD announced) (NP (PRP$ her) (NN resignation))) (. .))",
        "tree2": "(S (NP (DT The) (NN mayor)) (VP (VBD said) (SBAR (S (NP (PRP she)) (VP (MD would) "
        "(VP (VB resign)))))) (. .))",
        "label": "paraphrase",
        "phenomena": [
            ("Synthetic/analytic", [3, 4], [3, 4, 5], "local", [], []),
            ("Derivational", [4], [5], "local", [], []),
            ("Same polarity", [2], [2], "local", [], []),
            ("Identical", [0, 1, 5], [0, 1, 6], None, [], []),
        ],
        "links": "0-0 1-1 2-2 3-3 4-5 4?4 5-6",
    },
]

GUIDELINES = (
    "Annotate each pair in three steps.\n\n"
    "1. Decide whether the two sentences are paraphrases (same meaning, possibly different wording).\n\n"
    "2. Mark each paraphrase phenomenon: select its scope in member 1 and member 2 (click, shift-click for a "
    "range, ctrl/cmd-click for discontinuous tokens), choose its type, its projection (local: the change stays "
    "within the scope; global: it affects the rest of the sentence) and, for structure-based types, the key "
    "elements that trigger the change.\n\n"
    "3. Align the words (sure links for clear correspondences, possible links for doubtful ones) and, where "
    "trees are shown, align the phrases.\n\n"
    "When in doubt, leave a comment on the pair and mark it as postponed."
)

EVALUATION_UNITS: list[dict[str, Any]] = [
    {
        "id": "u01",
        "source": "The minister will step down next week.",
        "phrase": "step down",
        "substitutions": [
            ("a", "resign", "lexicon-A"),
            ("b", "step aside", "lexicon-B"),
            ("c", "walk down", "system-X"),
        ],
    },
    {
        "id": "u02",
        "source": "Investors were worried about rising costs.",
        "phrase": "worried about",
        "substitutions": [
            ("a", "concerned about", "lexicon-A"),
            ("b", "anxious of", "system-X"),
            ("c", "troubled by", "lexicon-B"),
        ],
    },
    {
        "id": "u03",
        "source": "The team came up with a new plan.",
        "phrase": "came up with",
        "substitutions": [
            ("a", "devised", "lexicon-A"),
            ("b", "came with", "system-X"),
            ("c", "proposed", "lexicon-B"),
        ],
    },
    {
        "id": "u04",
        "source": "She looked into the complaint carefully.",
        "phrase": "looked into",
        "substitutions": [
            ("a", "investigated", "lexicon-A"),
            ("b", "looked inside", "system-X"),
            ("c", "examined", "lexicon-B"),
        ],
    },
]
