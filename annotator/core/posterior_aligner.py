"""A deterministic monolingual word aligner with a confidence per link (no Django here).

Four steps, each a public function so the bench can take any of them out (docs/aligner.md):

1. **Lexical evidence** (:func:`related_word_pairs`): which word types of the corpus are the same word
   underneath (identical, inflectional variants, one number, a name and its prefixed form, a shared
   derivational stem), from `annotator.core.alignment_evidence`, and which are synonyms or a word and
   its broader term in WordNet (`annotator.core.wordnet_lexicon`, where its files are installed).
2. **Translation tables by EM** (:func:`train_posteriors`): a fast_align-style model (Dyer, Chahuneau
   & Smith 2013: IBM model 1 with a diagonal preference, p(a_j = i) ∝ exp(−λ |i/n₁ − j/n₂|), and a
   NULL word) trained by expectation–maximisation in both directions (member 1 → member 2 and back).
   The evidence enters as Dirichlet pseudo-counts on the tables (the priors eflomal reads from a
   file; the Giza++ identity lexicon of Cohn et al. 2008 is the identical case). EM has no random
   draw: the same corpus and settings give the same tables, bit for bit.
3. **Decoding**. By default (`decoder="learned"`, :func:`decode_learned`) each cell's probability of
   being a link comes from `annotator.core.link_scorer`: two logistic regressions over the cell's
   evidence — its two posteriors, its kind of lexical evidence, word classes, corpus link count,
   distance from the diagonal, and in the second stage what the first believes of its neighbours
   (Sultan, Bethard & Sumner 2015; the contextual evidence of their 2014 aligner) — with weights
   fitted on the `tune` part of the hand-aligned gold. Links are taken greedily, best first, one per
   word, while the probability reaches the weights' threshold; a link's **confidence** is its
   probability. The hand-set rules (`decoder="rules"`, :func:`decode`) score each cell as the mean
   of the two directions' posteriors (Liang, Taskar & Klein 2006) plus a bonus for its kind of
   evidence and one for the diagonal neighbours linked in a first pass, and take links while the
   score reaches the threshold of its kind (identical or variant forms; two different content words;
   a different function word or punctuation); two different words only within one word class (number,
   punctuation, function word, content word). Then an identical function-word link whose neighbour is
   linked far away is dropped, and two function words of one role in one slot between links are
   linked (`about`/`on`). A link's confidence there is its score, capped at 1.
4. **Acronyms** (:func:`with_acronyms`): an acronym is linked to the capitalised words of the other
   member that spell it (`AOL` ⇄ `America Online`), which co-occurrence cannot do.

Every public function is pure; tokens in, links ``(i, j, confidence)`` out.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from annotator.core import alignment_evidence as ev
from annotator.core import link_scorer, wordnet_lexicon

Progress = Callable[[str, int, int], None]
ScoredLink = tuple[int, int, float]

# Kinds of evidence between two word types (codes in the per-cell arrays); NONE: only the statistics.
NONE, IDENTICAL, LEMMA, NUMBER, NAME, STEM, SYNONYM = range(7)
KIND_NAMES = ("none", "identical", "lemma", "number", "name", "stem", "synonym")
DECODERS = ("learned", "rules")


@dataclass(frozen=True)
class PosteriorSettings:
    """What the posterior aligner depends on (stored with each version). The pieces can be turned off
    one at a time (the ablation in docs/aligner.md)."""

    decoder: str = "learned"  # `learned`: link_scorer's weights; `rules`: the hand-set rules of `decode`
    iterations: int = 5
    diagonal_tension: float = 4.0  # λ of the diagonal preference
    null_probability: float = 0.08
    identity_prior: float = 2.0  # pseudo-count of (w, w) in the tables
    variant_prior: float = 1.0  # pseudo-count of lemma / number / name variants
    stem_prior: float = 0.3
    lemmas: bool = True
    numbers_names: bool = True
    stems: bool = True
    wordnet: bool = True  # synonyms and broader terms from WordNet's files, where they are installed
    wordnet_senses: int = 3  # a word's first senses that count
    wordnet_prior: float = 0.3
    wordnet_bonus: float = 0.7  # added to a WordNet-related pair's score (not scaled by corpus links)
    context: bool = True
    evidence_bonus: float = 0.5  # added to an identical / variant cell's score (stem: a third of it)
    context_bonus: float = 0.4  # per linked diagonal neighbour (two at most)
    context_passes: int = 2  # each pass counts the neighbours linked by the one before
    context_from_same_only: bool = True  # only links of the same word underneath give context
    reliable_count: float = 4.0
    stem_share: float = 0.6  # a shared derivational stem's bonus, as a share of evidence_bonus
    acronyms: bool = True  # an acronym is linked to the words it abbreviates (`AOL` ⇄ `America Online`)
    acronym_confidence: float = 0.9
    same_class: bool = True  # two different words are linked only within one word class
    function_support: bool = False  # a link between two function words needs a supported neighbour
    support_window: int = 1  # how far a supporting link may be (diagonally, on either side)
    function_conflict: bool = True  # a function-word link whose neighbour is linked elsewhere is dropped
    conflict_distance: int = 2  # how far from the link the neighbour's partner may be
    conflict_crossing: bool = False  # a neighbour linked across the link contradicts it too
    function_gaps: bool = True  # two function words of one role between two links are linked
    function_gap_confidence: float = 0.5
    gap_fill: bool = False
    gap_edges: bool = False  # the sentence's start and end count as links around a gap
    gap_confidence: float = 0.6  # a different-word pair's score is scaled by min(1, corpus links / this)
    threshold_same: float = 0.2  # identical and variant forms
    threshold_content: float = 0.75  # two different words, at least one of them a content word
    threshold_function: float = 0.7  # two different function words or punctuation

    def validate(self) -> None:
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {', '.join(DECODERS)}, not {self.decoder!r}")
        if self.iterations < 1:
            raise ValueError(f"iterations must be ≥ 1, not {self.iterations}")
        if not 0 < self.null_probability < 1:
            raise ValueError(f"null_probability must be in (0, 1), not {self.null_probability}")
        for name in ("threshold_same", "threshold_content", "threshold_function"):
            value = getattr(self, name)
            if not 0 <= value <= 2:
                raise ValueError(f"{name} must be in [0, 2], not {value}")


# ---- 1. lexical evidence ---------------------------------------------------------------------------


def _number_keys(form: str) -> list[object]:
    value = ev.number_value(form)
    return [] if value is None else [value]


def _name_parts(form: str) -> list[object]:
    return [part for part in form.split("-") if len(part) >= 3 and part.isalpha()]


def _stem_prefix(form: str) -> list[object]:
    return [form[:5]] if len(form) >= 5 and form.isalpha() else []


def _groups(vocabulary: Sequence[str], keys: Callable[[str], Iterable[object]]) -> dict[object, list[int]]:
    """The word ids under each key that `keys` gives their forms."""
    groups: dict[object, list[int]] = defaultdict(list)
    for index, form in enumerate(vocabulary):
        for key in keys(form):
            groups[key].append(index)
    return groups


def related_word_pairs(vocabulary: Sequence[str], settings: PosteriorSettings) -> dict[tuple[int, int], int]:
    """Ordered pairs of word ids (a ≠ b) with their kind of evidence, found through indexes on the
    keys (lemma, value, name part, stem prefix), so the cost follows the vocabulary, not its square.
    A pair keeps the first kind found, in that order."""
    sources: list[tuple[Callable[[str], Iterable[object]], int, Callable[[str, str], bool] | None]] = []
    if settings.lemmas:
        sources.append((ev.lemma_keys, LEMMA, None))
    if settings.numbers_names:
        sources += [(_number_keys, NUMBER, None), (_name_parts, NAME, ev.name_variant_form)]
    if settings.stems:
        sources.append((_stem_prefix, STEM, ev.stem_related))
    related: dict[tuple[int, int], int] = {}
    for keys, kind, check in sources:
        for members in _groups(vocabulary, keys).values():
            if not 2 <= len(members) <= 200:
                continue
            for a in members:
                for b in members:
                    if (
                        a != b
                        and (a, b) not in related
                        and (check is None or check(vocabulary[a], vocabulary[b]))
                    ):
                        related[(a, b)] = kind
    if settings.wordnet and wordnet_lexicon.available():
        related = {**_wordnet_pairs(vocabulary, settings.wordnet_senses), **related}
    return related


def _wordnet_pairs(vocabulary: Sequence[str], senses: int) -> dict[tuple[int, int], int]:
    """Pairs of content words WordNet relates (`wordnet_lexicon`): sharing a concept, or one's concept
    the other's broader concept; concepts shared by more than 200 words of the corpus are skipped."""
    content = [
        (index, form)
        for index, form in enumerate(vocabulary)
        if len(form) >= 3 and form.isalpha() and ev.word_class(form) == ev.CONTENT
    ]
    found = wordnet_lexicon.concepts((form for _, form in content), senses)
    own: dict[str, list[int]] = defaultdict(list)
    broader: dict[str, list[int]] = defaultdict(list)
    for index, form in content:
        if form in found:
            for concept in found[form][0]:
                own[concept].append(index)
            for concept in found[form][1]:
                broader[concept].append(index)
    pairs: set[tuple[int, int]] = set()
    for concept, members in own.items():
        others = broader.get(concept, [])
        if len(members) + len(others) > 200:
            continue
        pairs.update(itertools.permutations(members, 2))
        pairs.update(itertools.product(members, others))
        pairs.update(itertools.product(others, members))
    pairs.difference_update((a, a) for a in range(len(vocabulary)))
    return dict.fromkeys(pairs, SYNONYM)


# ---- 2. EM in both directions -----------------------------------------------------------------------


@dataclass
class _Cells:
    """Every (i, j) cell of every pair, flat: pair-major, then i, then j."""

    w1: np.ndarray
    w2: np.ndarray
    i: np.ndarray
    j: np.ndarray
    n1: np.ndarray
    n2: np.ndarray
    group1: np.ndarray  # global index of token i of member 1
    group2: np.ndarray  # global index of token j of member 2
    starts: np.ndarray  # first cell of each pair (len(pairs) + 1)
    function1: np.ndarray | None = None  # token i of member 1 is a function word (per cell)
    function2: np.ndarray | None = None
    class1: np.ndarray | None = None  # token i's word class (per cell): `ev.word_class`
    class2: np.ndarray | None = None
    same_role: np.ndarray | None = None  # two function words that can do one job (`in`/`of`)


def _cells(ids1: Sequence[np.ndarray], ids2: Sequence[np.ndarray]) -> _Cells:
    len1 = np.array([len(a) for a in ids1], dtype=np.int64)
    len2 = np.array([len(b) for b in ids2], dtype=np.int64)
    sizes = len1 * len2
    starts = np.concatenate([[0], np.cumsum(sizes)])
    off1 = np.concatenate([[0], np.cumsum(len1)])[:-1]
    off2 = np.concatenate([[0], np.cumsum(len2)])[:-1]
    flat1 = np.concatenate(ids1) if ids1 else np.zeros(0, dtype=np.int64)
    flat2 = np.concatenate(ids2) if ids2 else np.zeros(0, dtype=np.int64)
    pair = np.repeat(np.arange(len(sizes)), sizes)
    within = np.arange(int(starts[-1])) - starts[pair]
    n1, n2 = len1[pair], len2[pair]
    i, j = within // n2, within % n2
    group1, group2 = off1[pair] + i, off2[pair] + j
    return _Cells(flat1[group1], flat2[group2], i, j, n1, n2, group1, group2, starts)


def _direction(
    src: np.ndarray,
    trg: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    distortion: np.ndarray,
    prior: np.ndarray,
    key: np.ndarray,
    key_src: np.ndarray,
    n_words: int,
    settings: PosteriorSettings,
) -> np.ndarray:
    """Posterior p(a_trg = src | pair) of every cell after EM (fast_align's model, priors as pseudo-counts)."""
    n_keys = len(key_src)
    # start: uniform over the words each source word co-occurs with, plus the priors
    t = prior + 1.0
    t /= np.bincount(key_src, weights=t, minlength=n_words)[key_src]
    trg_of_group = np.zeros(n_groups, dtype=np.int64)
    trg_of_group[group] = trg
    t_null = np.full(n_words, 1.0 / max(n_words, 1))
    p0 = settings.null_probability
    z_d = np.bincount(group, weights=distortion, minlength=n_groups)
    d = (1 - p0) * distortion / z_d[group]
    posterior = np.zeros(len(src))
    for _ in range(settings.iterations):
        weight = t[key] * d
        null = p0 * t_null[trg_of_group]
        total = np.bincount(group, weights=weight, minlength=n_groups) + null
        posterior = weight / total[group]
        counts = np.bincount(key, weights=posterior, minlength=n_keys) + prior + 0.01
        t = counts / np.bincount(key_src, weights=counts, minlength=n_words)[key_src]
        null_counts = np.bincount(trg_of_group, weights=null / total, minlength=n_words) + 0.01
        t_null = null_counts / null_counts.sum()
    return posterior


def _word_ids(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
) -> tuple[list[str], list[np.ndarray], list[np.ndarray]]:
    """The corpus vocabulary (normalised words) and each member's tokens as indexes into it."""
    vocabulary: dict[str, int] = {}
    ids1 = [
        np.array([vocabulary.setdefault(ev.word(t), len(vocabulary)) for t in t1], dtype=np.int64)
        for t1, _ in pairs
    ]
    ids2 = [
        np.array([vocabulary.setdefault(ev.word(t), len(vocabulary)) for t in t2], dtype=np.int64)
        for _, t2 in pairs
    ]
    return list(vocabulary), ids1, ids2


def _kinds_of_keys(
    unique: np.ndarray, identical: np.ndarray, related: Mapping[tuple[int, int], int], n_words: int
) -> np.ndarray:
    """The kind of evidence of each word-pair key (`w1 * n_words + w2`): identical, one of the
    related kinds, or none."""
    kind = np.where(identical, IDENTICAL, NONE).astype(np.int64)
    if related:
        rel_codes = np.array([a * n_words + b for a, b in related], dtype=np.int64)
        rel_kinds = np.array(list(related.values()), dtype=np.int64)
        order = np.argsort(rel_codes)
        rel_codes, rel_kinds = rel_codes[order], rel_kinds[order]
        where = np.minimum(np.searchsorted(rel_codes, unique), len(rel_codes) - 1)
        hit = (rel_codes[where] == unique) & (kind == NONE)
        kind[hit] = rel_kinds[where[hit]]
    return kind


def train_posteriors(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    settings: PosteriorSettings,
    *,
    progress: Progress | None = None,
) -> tuple[_Cells, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The cells of all pairs, each cell's two directional posteriors, its kind of evidence and how
    often the corpus links its word pair (the sum of the mean posteriors over every pair)."""
    report = progress or (lambda _stage, _done, _total: None)
    words, ids1, ids2 = _word_ids(pairs)
    n_words = max(len(words), 1)
    cells = _cells(ids1, ids2)
    report("evidence", 0, len(pairs))
    related = related_word_pairs(words, settings)
    code = cells.w1 * n_words + cells.w2
    unique, key = np.unique(code, return_inverse=True)
    key_w1, key_w2 = unique // n_words, unique % n_words
    kind = _kinds_of_keys(unique, key_w1 == key_w2, related, n_words)
    prior_of_kind = np.array(
        [
            0.0,
            settings.identity_prior,
            settings.variant_prior,
            settings.variant_prior,
            settings.variant_prior,
            settings.stem_prior,
            settings.wordnet_prior,
        ]
    )
    prior = prior_of_kind[kind]
    distortion = np.exp(
        -settings.diagonal_tension * np.abs((cells.i + 0.5) / cells.n1 - (cells.j + 0.5) / cells.n2)
    )
    n_groups1 = int(sum(len(a) for a in ids1))
    n_groups2 = int(sum(len(b) for b in ids2))
    report("training", 0, len(pairs))
    forward = _direction(
        cells.w1, cells.w2, cells.group2, n_groups2, distortion, prior, key, key_w1, n_words, settings
    )
    report("training", len(pairs) // 2, len(pairs))
    # the reverse tables t(w1 | w2): the same keys, normalised over member 1's word of each key
    backward = _direction(
        cells.w2, cells.w1, cells.group1, n_groups1, distortion, prior, key, key_w2, n_words, settings
    )
    function_word = np.array([ev.is_function(w) for w in words] or [False])
    cells.function1 = function_word[cells.w1]
    cells.function2 = function_word[cells.w2]
    word_class = np.array([ev.word_class(w) for w in words] or [0], dtype=np.int8)
    cells.class1 = word_class[cells.w1]
    cells.class2 = word_class[cells.w2]
    # two function words that can do one job (`about`/`on`), decided once per word-pair key
    both_function = function_word[key_w1] & function_word[key_w2]
    key_role = np.zeros(len(unique), dtype=bool)
    for k in np.nonzero(both_function)[0]:
        key_role[k] = ev.same_function_role(words[key_w1[k]], words[key_w2[k]])
    cells.same_role = key_role[key]
    # how often the corpus links each word pair (soft count): a pair of different words linked once,
    # in one sentence, is mostly EM pairing up leftovers rather than a paraphrase
    linked = np.bincount(key, weights=(forward + backward) / 2, minlength=len(unique))
    return cells, forward, backward, kind[key], linked[key]


# ---- 3. decoding ------------------------------------------------------------------------------------


def _greedy(score: np.ndarray, threshold: np.ndarray) -> list[ScoredLink]:
    """One link per word, best score first, among the cells whose score reaches their threshold."""
    rows, cols = np.nonzero(score >= threshold)
    values = score[rows, cols]
    used1: set[int] = set()
    used2: set[int] = set()
    links = []
    for k in np.argsort(-values, kind="stable"):
        i, j = int(rows[k]), int(cols[k])
        if i in used1 or j in used2:
            continue
        used1.add(i)
        used2.add(j)
        links.append((i, j, float(values[k])))
    return links


def decode(
    n1: int,
    n2: int,
    forward: np.ndarray,
    backward: np.ndarray,
    kind: np.ndarray,
    linked: np.ndarray,
    function1: np.ndarray,
    function2: np.ndarray,
    settings: PosteriorSettings,
    classes: tuple[np.ndarray, np.ndarray] | None = None,
    same_role: np.ndarray | None = None,
) -> list[ScoredLink]:
    """A pair's links with their confidence, sorted, from its cells' posteriors, kinds of evidence,
    corpus link counts, function-word flags and (optionally) word classes of the two tokens and whether
    two function words can do one job (each flat, n1 × n2)."""
    kinds = kind.reshape(n1, n2)
    base = ((forward + backward) / 2).reshape(n1, n2)
    function1 = function1.reshape(n1, n2)[:, 0]
    function2 = function2.reshape(n1, n2)[0, :]
    function = function1[:, None] & function2[None, :]
    same = (kinds == IDENTICAL) | (kinds == LEMMA) | (kinds == NUMBER) | (kinds == NAME)
    # a pair of different words is believed as far as the corpus links it more than once
    reliability = np.minimum(1.0, linked.reshape(n1, n2) / settings.reliable_count)
    stem = kinds == STEM
    score = np.where(same | stem, base, base * reliability)
    score = score + np.where(
        same, np.where(function, settings.evidence_bonus / 2, settings.evidence_bonus), 0.0
    )
    score = score + np.where(stem, settings.evidence_bonus * settings.stem_share, 0.0)
    synonym = kinds == SYNONYM
    score = np.where(synonym, base + settings.wordnet_bonus, score)
    threshold = np.where(function, settings.threshold_function, settings.threshold_content)
    # variants of one function word (`was`/`is`, `an`/`a`) are as sure as variants of a content word
    threshold = np.where(
        (same | stem) & ~(function & (kinds == IDENTICAL)), settings.threshold_same, threshold
    )
    if settings.same_class and classes is not None:
        # two different words are linked only within one class: a number with a number, a punctuation
        # mark with a punctuation mark, a function word with a function word, a content word with a
        # content word (`1,000`/`cache`, `official`/`,` and `yesterday`/`on` are leftovers paired up)
        differ = classes[0].reshape(n1, n2) != classes[1].reshape(n1, n2)
        threshold = np.where(differ & ~same, np.inf, threshold)
    links = _with_context(score, threshold, same, function, settings)
    if settings.function_support:
        links = _supported(links, function, n1, n2, settings.support_window)
    if settings.function_conflict:
        identical_function = function & (kinds == IDENTICAL)
        links = _without_conflicts(
            links, identical_function, settings.conflict_distance, settings.conflict_crossing
        )
    if settings.function_gaps and same_role is not None:
        links += _function_gaps(links, base, same_role.reshape(n1, n2), n1, n2, settings)
    if settings.gap_fill:
        links += _fill_gaps(links, base, function1, function2, settings)
    return sorted((i, j, round(min(s, 1.0), 3)) for i, j, s in links)


def _with_context(
    score: np.ndarray,
    threshold: np.ndarray,
    same: np.ndarray,
    function: np.ndarray,
    settings: PosteriorSettings,
) -> list[ScoredLink]:
    """The greedy links, first of the anchors (the same content word underneath), then again with the
    context bonus of each diagonal neighbour the pass before linked (Sultan et al. 2014)."""
    links = _greedy(np.where(same & ~function, score, 0.0), threshold)
    if not settings.context:
        return _greedy(score, threshold)
    n1, n2 = score.shape
    for _ in range(settings.context_passes):
        neighbours = np.zeros((n1 + 2, n2 + 2))
        for i, j, _s in links:
            if same[i, j] or not settings.context_from_same_only:
                neighbours[i + 1, j + 1] = 1.0
        support = neighbours[:-2, :-2] + neighbours[2:, 2:]  # (i-1, j-1) and (i+1, j+1) linked
        links = _greedy(score + settings.context_bonus * support, threshold)
    return links


def _supported(
    links: list[ScoredLink], function: np.ndarray, n1: int, n2: int, window: int
) -> list[ScoredLink]:
    """The links, less those between two function words (or punctuation) that no neighbour supports.

    Sultan, Bethard & Sumner (2014) align stop words only on contextual evidence: `of` ⇄ `of` is right
    in `Secretary of State` ⇄ `Secretary of State` and wrong in `constitutionality of outlawing` ⇄
    `Defenders of the`. A function-word link is kept when a link one to `window` words before (or
    after) it in both members is kept: a link with a content word, the sentence's start or end, or a
    function-word link kept that way (so `of the` ⇄ `of the` holds when a content link holds it)."""
    kept = {(i, j) for i, j, _s in links if not function[i, j]} | {(-1, -1), (n1, n2)}
    waiting = [(i, j) for i, j, _s in links if function[i, j]]
    changed = True
    while changed:
        changed = False
        for i, j in list(waiting):
            if any(abs(i - a) <= window and abs(j - b) <= window for a, b in kept):
                kept.add((i, j))
                waiting.remove((i, j))
                changed = True
    return [link for link in links if link[:2] in kept]


def _without_conflicts(
    links: list[ScoredLink], candidates: np.ndarray, distance: int, crossing: bool = True
) -> list[ScoredLink]:
    """The links, less those between the same function word (or punctuation mark) in both members whose
    context contradicts them: a word next to one end is linked to a word on the other side of the other
    end, or more than `distance` words away from it (`for` ⇄ `for` in `cancer for more` ⇄ `surgery for
    cancer`; `'s` ⇄ `'s` in `Nowitzki 's status` ⇄ `team 's morning`, with `Nowitzki` linked), and no
    link on one side, within `distance` words in both members, agrees with them. Identical function
    words are the same word in different roles as often as in one (Sultan, Bethard & Sumner 2014 align
    them on context alone); this keeps the many that have no context either way."""
    n1, n2 = candidates.shape
    partner1 = {i: j for i, j, _s in links}
    partner2 = {j: i for i, j, _s in links}
    # the sentences' starts and ends agree with a link next to them (the final full stops)
    around = [*partner1.items(), (-1, -1), (n1, n2)]
    dropped: set[tuple[int, int]] = set()
    for i, j, _s in links:
        if not candidates[i, j]:
            continue
        agrees = any(
            (a, b) != (i, j)
            and 0 < abs(a - i) <= distance
            and 0 < abs(b - j) <= distance
            and (a - i) * (b - j) > 0
            for a, b in around
        )
        if agrees:
            continue
        contradicts = False
        for d in (-1, 1):
            b = partner1.get(i + d)
            a = partner2.get(j + d)
            if b is not None and (((b - j) * d <= 0 and crossing) or abs(b - j) > distance):
                contradicts = True
            if a is not None and (((a - i) * d <= 0 and crossing) or abs(a - i) > distance):
                contradicts = True
        if contradicts:
            dropped.add((i, j))
    return [link for link in links if link[:2] not in dropped]


def _function_gaps(
    links: list[ScoredLink],
    base: np.ndarray,
    same_role: np.ndarray,
    n1: int,
    n2: int,
    settings: PosteriorSettings,
) -> list[ScoredLink]:
    """Links between two function words of one role in the gap between two consecutive links (or a
    link and the sentence's end), next to one of them: `reports about the` ⇄ `reports tonight on the`
    gives `about` ⇄ `on`; `counts` after `indicted on three` ⇄ `charged with 16` gives `on` ⇄ `with`.
    The gap holds 1–3 unlinked words in each member. Confidence: `function_gap_confidence` plus the
    cell's posterior."""
    aligned1 = {i for i, _, _ in links}
    aligned2 = {j for _, j, _ in links}
    anchors = sorted({(i, j) for i, j, _ in links} | {(-1, -1), (n1, n2)})
    added: list[ScoredLink] = []
    for (i0, j0), (i1, j1) in zip(anchors, anchors[1:], strict=False):
        g1, g2 = i1 - i0 - 1, j1 - j0 - 1
        if not (1 <= g1 <= 3 and 1 <= g2 <= 3) or j1 <= j0:
            continue
        if any(i in aligned1 for i in range(i0 + 1, i1)) or any(j in aligned2 for j in range(j0 + 1, j1)):
            continue
        for i, j in ((i1 - 1, j1 - 1), (i0 + 1, j0 + 1)):
            if same_role[i, j] and not any(i == a or j == b for a, b, _ in added):
                added.append((i, j, settings.function_gap_confidence + float(base[i, j])))
    return added


def _fill_gaps(
    links: list[ScoredLink],
    base: np.ndarray,
    function1: np.ndarray,
    function2: np.ndarray,
    settings: PosteriorSettings,
) -> list[ScoredLink]:
    """Links inside the gaps between two consecutive, monotone links whose words are all unaligned (the
    word between "'s private … ," and "'s … ," is the same role in both members: `lawyer`/`attorney`).

    A gap of 1–3 words on each side; words are paired from the right-hand link backwards (English puts
    a phrase's head last), a content word only with a content word and a function word with a function
    word. Confidence: `gap_confidence` when the two gaps are as long, two thirds of it otherwise, plus
    the cell's posterior.
    """
    n1, n2 = base.shape
    aligned1 = {i for i, _, _ in links}
    aligned2 = {j for _, j, _ in links}
    anchors = sorted((i, j) for i, j, _ in links)
    if settings.gap_edges:
        anchors = [(-1, -1), *anchors, (n1, n2)]
    added: list[ScoredLink] = []
    for (i0, j0), (i1, j1) in zip(anchors, anchors[1:], strict=False):
        g1, g2 = i1 - i0 - 1, j1 - j0 - 1
        if not (1 <= g1 <= 3 and 1 <= g2 <= 3) or j1 <= j0:
            continue
        inside1 = range(i0 + 1, i1)
        inside2 = range(j0 + 1, j1)
        if any(i in aligned1 for i in inside1) or any(j in aligned2 for j in inside2):
            continue
        confidence = settings.gap_confidence if g1 == g2 else settings.gap_confidence * 2 / 3
        for step in range(1, min(g1, g2) + 1):
            i, j = i1 - step, j1 - step
            if function1[i] == function2[j]:
                added.append((i, j, confidence + float(base[i, j])))
    return added


def pair_evidence(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    settings: PosteriorSettings | None = None,
    *,
    progress: Progress | None = None,
) -> list[link_scorer.PairEvidence | None]:
    """Train on the pairs and return each pair's cells as `link_scorer` reads them (None for a pair
    with an empty member, which is left out of training)."""
    settings = settings or PosteriorSettings()
    settings.validate()
    report = progress or (lambda _stage, _done, _total: None)
    usable = [n for n, (t1, t2) in enumerate(pairs) if t1 and t2]
    result: list[link_scorer.PairEvidence | None] = [None for _ in pairs]
    if not usable:
        return result
    subset = [pairs[n] for n in usable]
    cells, forward, backward, kind, linked = train_posteriors(subset, settings, progress=report)
    assert cells.class1 is not None and cells.class2 is not None and cells.same_role is not None
    assert cells.function1 is not None and cells.function2 is not None
    for k, n in enumerate(usable):
        a, b = cells.starts[k], cells.starts[k + 1]
        n1, n2 = len(subset[k][0]), len(subset[k][1])
        result[n] = link_scorer.PairEvidence(
            forward=forward[a:b].reshape(n1, n2),
            backward=backward[a:b].reshape(n1, n2),
            kind=kind[a:b].reshape(n1, n2),
            linked=linked[a:b].reshape(n1, n2),
            class1=cells.class1[a:b].reshape(n1, n2)[:, 0],
            class2=cells.class2[a:b].reshape(n1, n2)[0, :],
            same_role=cells.same_role[a:b].reshape(n1, n2),
            function1=cells.function1[a:b].reshape(n1, n2)[:, 0],
            function2=cells.function2[a:b].reshape(n1, n2)[0, :],
        )
    return result


def _across_classes(evidence: link_scorer.PairEvidence) -> np.ndarray:
    """The cells of two different words of different word classes (a number and a content word, a
    function word and punctuation, …), which `PosteriorSettings.same_class` keeps from being linked."""
    same = np.isin(evidence.kind, (IDENTICAL, LEMMA, NUMBER, NAME))
    return (evidence.class1[:, None] != evidence.class2[None, :]) & ~same


def decode_learned(
    evidence: link_scorer.PairEvidence,
    weights: link_scorer.LinkWeights,
    probability: np.ndarray | None = None,
) -> list[ScoredLink]:
    """A pair's links with their confidence, sorted: each cell's probability by the link scorer (or
    `probability`, already computed), taken greedily, best first, one link per word, while it reaches
    the weights' threshold."""
    if probability is None:
        probability = link_scorer.link_probabilities(evidence, weights)
    links = _greedy(probability, np.full(probability.shape, weights.threshold))
    return sorted((i, j, round(min(p, 1.0), 3)) for i, j, p in links)


def align_scored(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    settings: PosteriorSettings | None = None,
    *,
    weights: link_scorer.LinkWeights | None = None,
    progress: Progress | None = None,
) -> list[list[ScoredLink]]:
    """Train on the pairs and return each pair's links ``(i, j, confidence)``, sorted
    (:func:`pair_evidence`, then :func:`decode_pairs`). Pairs with an empty member get no links and
    are left out of training."""
    settings = settings or PosteriorSettings()
    settings.validate()
    report = progress or (lambda _stage, _done, _total: None)
    evidence = pair_evidence(pairs, settings, progress=report)
    return decode_pairs(pairs, evidence, settings, weights=weights, progress=report)


def decode_pairs(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    evidence: Sequence[link_scorer.PairEvidence | None],
    settings: PosteriorSettings,
    *,
    weights: link_scorer.LinkWeights | None = None,
    progress: Progress | None = None,
) -> list[list[ScoredLink]]:
    """Each pair's links ``(i, j, confidence)``, sorted, from its cells: the `learned` decoder scores
    them with `weights` (by default those of `link_scorer.WEIGHTS_FILE`), the `rules` decoder with
    :func:`decode`; then acronyms (:func:`with_acronyms`) where the settings have them."""
    settings.validate()
    report = progress or (lambda _stage, _done, _total: None)
    report("decoding", 0, len(pairs))
    probabilities: list[np.ndarray | None] = [None] * len(evidence)
    if settings.decoder == "learned":
        weights = weights or link_scorer.load_weights()
        probabilities = link_scorer.link_probabilities_of_pairs(evidence, weights)
    result: list[list[ScoredLink]] = [[] for _ in pairs]
    for n, e in enumerate(evidence):
        if e is None:
            continue
        if weights is not None and settings.decoder == "learned":
            probability = probabilities[n]
            if settings.same_class and probability is not None:
                probability = np.where(_across_classes(e), 0.0, probability)
            result[n] = decode_learned(e, weights, probability)
        else:
            n1, n2 = e.forward.shape
            result[n] = decode(
                n1,
                n2,
                e.forward.ravel(),
                e.backward.ravel(),
                e.kind.ravel(),
                e.linked.ravel(),
                np.repeat(e.function1, n2),
                np.tile(e.function2, n1),
                settings,
                (np.repeat(e.class1, n2), np.tile(e.class2, n1)),
                e.same_role.ravel(),
            )
        if settings.acronyms:
            result[n] = with_acronyms(result[n], pairs[n][0], pairs[n][1], settings.acronym_confidence)
        if n % 500 == 0:
            report("decoding", n, len(pairs))
    return result


def with_acronyms(
    links: list[ScoredLink], tokens1: Sequence[str], tokens2: Sequence[str], confidence: float
) -> list[ScoredLink]:
    """The links with each acronym linked to the words it abbreviates (`ev.acronym_links`) instead of
    whatever its tokens were linked to: co-occurrence cannot pair `AOL` with two words."""
    found = ev.acronym_links(tokens1, tokens2)
    if not found:
        return links
    taken1 = {i for i, _ in found}
    taken2 = {j for _, j in found}
    kept = [link for link in links if link[0] not in taken1 and link[1] not in taken2]
    return sorted(kept + [(i, j, confidence) for i, j in found])
