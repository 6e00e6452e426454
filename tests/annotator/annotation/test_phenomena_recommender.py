"""The phenomena recommender's rules, features, training and storage (annotator.annotation.phenomena_recommender)."""

from __future__ import annotations

import pytest

from annotator.annotation import phenomena_recommender as rec
from annotator.annotation.phenomena_recommender import ETPC_ROLES, Annotated, PairInput, Token


def tok(form: str, lemma: str | None = None, pos: str = "NOUN") -> Token:
    return Token(form, (lemma or form).lower(), pos, pos)


def pair(pid: str, one: list[Token], two: list[Token]) -> PairInput:
    return PairInput(pid, tuple(one), tuple(two))


SOLD = pair(
    "p1",
    [
        tok("Yucaipa", pos="PROPN"),
        tok("was", "be", "AUX"),
        tok("selling", "sell", "VERB"),
        tok("the", pos="DET"),
        tok("chain"),
        tok("to", pos="ADP"),
        tok("Safeway", pos="PROPN"),
        tok(".", pos="PUNCT"),
    ],
    [
        tok("Yucaipa", pos="PROPN"),
        tok("sold", "sell", "VERB"),
        tok("it", pos="PRON"),
        tok("to", pos="ADP"),
        tok("Safeway", pos="PROPN"),
        tok("in", pos="ADP"),
        tok("1998", pos="NUM"),
        tok(".", pos="PUNCT"),
    ],
)


def by_type(suggestions: list[rec.Suggestion]) -> dict[str, list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    out: dict[str, list[tuple[tuple[int, ...], tuple[int, ...]]]] = {}
    for s in suggestions:
        out.setdefault(s.type, []).append((s.scope1, s.scope2))
    return out


def test_rules_find_identity_inflection_substitution_and_addition() -> None:
    got = by_type(rec.Recommender(ETPC_ROLES).suggest([SOLD], combine="rules"))
    assert got["29"] == [((0, 5, 6, 7), (0, 3, 4, 7))]  # identical anchors, one phenomenon
    assert got["1"] == [((1, 2), (1,))]  # was selling ~ sold: one lemma, with its auxiliary (ETPC)
    assert got["5"] == [((3, 4), (2,))]  # the chain ~ it: a gap on both sides
    assert ((), (5, 6)) in got["25"]  # "in 1998" only in member 2
    assert ((1,), ()) in got["25"]  # "was" only in member 1


def test_crossing_content_words_are_a_change_of_order() -> None:
    one = [tok("civil", pos="ADJ"), tok("or", pos="CCONJ"), tok("criminal", pos="ADJ")]
    two = [tok("criminal", pos="ADJ"), tok("or", pos="CCONJ"), tok("civil", pos="ADJ")]
    got = by_type(rec.Recommender(ETPC_ROLES).suggest([pair("p", one, two)], combine="rules"))
    assert got["26"] == [((0, 1), (1, 2))]  # the chain keeps criminal–criminal; the rest moved


def test_a_moved_function_word_is_not_a_change_of_order() -> None:
    one = [tok("the", pos="DET"), tok("cat", pos="NOUN"), tok("the", pos="DET")]
    two = [tok("cat", pos="NOUN"), tok("the", pos="DET")]
    p = PairInput("p", tuple(one), tuple(two), links=((0, 1), (1, 0)))
    assert "26" not in by_type(rec.Recommender(ETPC_ROLES).suggest([p], combine="rules"))


def test_suggestions_respect_the_types_scope_sides() -> None:
    for s in rec.Recommender(ETPC_ROLES).suggest([SOLD], combine="rules"):
        assert ETPC_ROLES.fits(s.type, s.scope1, s.scope2), s


def test_labels_keep_identity_for_the_identity_candidate_alone() -> None:
    identity = Annotated("29", frozenset({0, 6}), frozenset({0, 4}))
    added = Annotated("25", frozenset(), frozenset({5, 6}))
    named = Annotated("7", frozenset({6}), frozenset({6}))
    widened = rec.Candidate("widened", (6,), (4, 5, 6), None)
    assert rec.labels(widened, [identity], ETPC_ROLES) == set()
    assert rec.labels(widened, [identity, added, named], ETPC_ROLES) == {"25", "7"}  # both, to learn
    whole = rec.Candidate("identity", (0, 6), (0, 4), "identity")
    assert rec.labels(whole, [identity, added, named], ETPC_ROLES) == {"29"}


def test_an_auxiliary_on_one_side_makes_the_verb_form_inflectional() -> None:
    one = [
        tok("They", pos="PRON"),
        tok("had", "have", "AUX"),
        tok("lost", "lose", "VERB"),
        tok("it", pos="PRON"),
    ]
    two = [tok("They", pos="PRON"), tok("lost", "lose", "VERB"), tok("it", pos="PRON")]
    got = by_type(rec.Recommender(ETPC_ROLES).suggest([pair("p", one, two)], combine="rules"))
    assert got["1"] == [((1, 2), (1,))]  # "had lost" ~ "lost", as ETPC scopes it
    both = [tok("They", pos="PRON"), tok("have", "have", "AUX"), tok("lost", "lose", "VERB")]
    got = by_type(rec.Recommender(ETPC_ROLES).suggest([pair("q", one[:3], both)], combine="rules"))
    assert got["1"] == [((1,), (1,))]  # auxiliaries on both sides: "had" ~ "have" alone


def test_moved_words_make_one_change_of_order_and_repeated_words_none() -> None:
    one = [
        tok("Smith", pos="PROPN"),
        tok("and", pos="CCONJ"),
        tok("Jones", pos="PROPN"),
        tok("and", pos="CCONJ"),
    ]
    two = [
        tok("Jones", pos="PROPN"),
        tok("and", pos="CCONJ"),
        tok("Smith", pos="PROPN"),
        tok("and", pos="CCONJ"),
    ]
    p = PairInput("p", tuple(one), tuple(two), links=((0, 2), (1, 1), (2, 0), (3, 3)))
    got = by_type(rec.Recommender(ETPC_ROLES).suggest([p], combine="rules"))
    assert got["26"] == [((0, 1), (1, 2))]  # one phenomenon: the run that moved with "Smith"
    again = [tok("the", pos="DET"), tok("cat", pos="NOUN"), tok("the", pos="DET"), tok("cat", pos="NOUN")]
    q = PairInput("q", tuple(again), tuple(again[2:]), links=((1, 1), (2, 0)))  # "cat" twice in member 1
    assert "26" not in by_type(rec.Recommender(ETPC_ROLES).suggest([q], combine="rules"))


def training_set() -> tuple[list[PairInput], dict[str, list[Annotated]]]:
    pairs, gold = [], {}
    for n in range(12):
        p = PairInput(f"p{n}", SOLD.tokens1, SOLD.tokens2)
        pairs.append(p)
        gold[p.pair] = [
            Annotated("29", frozenset({0, 5, 6, 7}), frozenset({0, 3, 4, 7})),
            Annotated("6", frozenset({3, 4}), frozenset({2})),  # the team calls it contextual
            Annotated("25", frozenset(), frozenset({5, 6})),
        ]
    return pairs, gold


def test_model_learns_the_teams_type_for_a_substitution() -> None:
    pairs, gold = training_set()
    model = rec.train(pairs, gold, ETPC_ROLES)
    assert model.trained_on == 12
    got = by_type(model.suggest([SOLD], combine="both"))
    assert got["6"] == [((3, 4), (2,))] and "5" not in got
    assert ((), (5, 6)) in got["25"]


def test_training_without_annotations_says_so() -> None:
    with pytest.raises(ValueError, match="nothing to learn: the 0 annotated pairs give 0 candidate spans"):
        rec.train([SOLD], {}, ETPC_ROLES)


def test_stored_model_suggests_the_same() -> None:
    pairs, gold = training_set()
    model = rec.train(pairs, gold, ETPC_ROLES)
    again = rec.loads(rec.dumps(model))
    assert again.suggest([SOLD]) == model.suggest([SOLD])


def test_roles_from_type_names() -> None:
    roles = rec.roles_from_types(
        [("1", "Identical", "any"), ("2", "Change of order", "both"), ("3", "Addition/deletion", "one")]
    )
    assert roles.codes == {"identity": "1", "order": "2", "addition_deletion": "3"}
    assert not roles.fits("3", [1], [2])


def test_analyse_keeps_the_given_tokens() -> None:
    (one,) = rec.analyse([["They", "sold", "chains", "."]])
    assert [t.form for t in one] == ["They", "sold", "chains", "."]
    assert one[1].lemma == "sell" and one[2].lemma == "chain" and one[3].pos == "PUNCT"


def test_threshold_keeps_the_precision_floor_and_never_suggests_a_hopeless_type() -> None:
    scores = [0.9, 0.8, 0.7, 0.6, 0.5]
    # 3 of 4 right down to 0.6; the threshold lies halfway to the next score down, 0.5
    assert rec._threshold(scores, [True, True, False, True, False], 0.7) == pytest.approx(0.55)
    assert rec._threshold(scores, [False] * 5, 0.5) == 2.0


def test_rules_are_trusted_only_where_they_were_right_on_the_training_pairs() -> None:
    pairs, gold = training_set()
    model = rec.train(pairs, gold, ETPC_ROLES)
    assert "identity" in model.trusted_rules  # always right here
    assert "substitution" not in model.trusted_rules  # the team says contextual, the rule habitual


def test_one_sided_halves_of_a_two_member_suggestion_are_left_out() -> None:
    def sugg(t: str, s1: tuple[int, ...], s2: tuple[int, ...], pair: str = "p") -> rec.Suggestion:
        return rec.Suggestion(pair, t, s1, s2, "model", 0.9)

    whole, left, right = sugg("6", (3, 4), (2,)), sugg("6", (3,), ()), sugg("6", (), (2,))
    other_type, other_pair, outside = sugg("5", (3,), ()), sugg("6", (), (2,), "q"), sugg("6", (), (5,))
    kept = rec._without_halves([whole, left, right, other_type, other_pair, outside])
    assert kept == [whole, other_type, other_pair, outside]


def test_a_version_stored_with_one_multiclass_model_still_suggests() -> None:
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    cands = [(SOLD, c) for c in rec.candidates(SOLD)]
    vectorizer = DictVectorizer()
    x = vectorizer.fit_transform([rec.features(p, c) for p, c in cands])
    y = ["6" if c.kind == "gap2" else rec.NONE for _, c in cands]
    old = rec.Recommender(ETPC_ROLES, vectorizer, LogisticRegression(C=100).fit(x, y), thresholds={"6": 0.5})
    assert old.columns() == ["6", rec.NONE]
    assert by_type(old.suggest([SOLD], combine="model"))["6"] == [((3, 4), (2,))]


def test_a_non_paraphrase_label_gates_the_suggestions_when_the_team_annotates_such_pairs_whole() -> None:
    import dataclasses

    pairs, gold = training_set()
    for n in range(4):  # four more pairs, labelled non-paraphrase and annotated as one whole
        p = PairInput(f"np{n}", SOLD.tokens1, SOLD.tokens2, label=rec.NON_PARAPHRASE)
        pairs.append(p)
        gold[p.pair] = [Annotated("30", frozenset(range(8)), frozenset(range(8)))]
    model = rec.train(pairs, gold, ETPC_ROLES)
    assert model.label_gate == "30"
    assert model.trained_on == 12  # the label decides those four: the model learns from the others
    labelled = dataclasses.replace(SOLD, label=rec.NON_PARAPHRASE)
    (whole,) = model.suggest([labelled])
    assert (whole.type, whole.scope1, whole.scope2) == ("30", tuple(range(8)), tuple(range(8)))
    as_paraphrase = dataclasses.replace(SOLD, label="paraphrase")
    assert model.suggest([as_paraphrase]) == model.suggest([SOLD])  # no label or paraphrase: as before
    assert "6" in by_type(model.suggest([as_paraphrase]))


def test_no_gate_when_pairs_labelled_non_paraphrase_carry_atomic_phenomena() -> None:
    pairs, gold = training_set()
    model = rec.train(
        [PairInput(p.pair, p.tokens1, p.tokens2, label=rec.NON_PARAPHRASE) for p in pairs], gold, ETPC_ROLES
    )
    assert model.label_gate is None
    assert model.trained_on == 12


def test_a_type_is_learnt_and_suggested_with_the_scope_shape_its_phenomena_take() -> None:
    contextual = Annotated("6", frozenset({3, 4}), frozenset({2}))
    added = Annotated("25", frozenset(), frozenset({5, 6}))
    sides = rec.learnt_sides([contextual] * 3 + [added] * 3)
    assert sides == {"6": "both", "25": "one"}
    assert rec.learnt_sides([contextual] * 2) == {}  # too few to tell
    side = rec.Candidate("gap2side", (3, 4), (), None)  # one member of the substitution's gap
    assert rec.labels(side, [contextual], ETPC_ROLES) == {"6"}  # without shapes: overlap alone
    assert rec.labels(side, [contextual], ETPC_ROLES, sides) == set()  # never one-sided: not learnt
    model = rec.Recommender(ETPC_ROLES, sides=sides)
    assert model.fits("6", (3, 4), (2,)) and not model.fits("6", (3, 4), ())
    assert not model.fits("25", (3,), (2,))  # the tagset's own rule too
    pairs, gold = training_set()
    assert rec.train(pairs, gold, ETPC_ROLES).sides == {"29": "both", "6": "both", "25": "one"}


def test_one_suggestion_per_one_sided_gap_the_one_most_above_its_threshold() -> None:
    def made(kind: str, gap: int, s1: tuple[int, ...], s2: tuple[int, ...], code: str, margin: float):
        c = rec.Candidate(kind, s1, s2, None, gap)
        return c, rec.Suggestion("p", code, s1, s2, "model", 0.5 + margin), margin

    added = made("gap1", 2, (), (5, 6, 7), "25", 0.10)
    widened = made("widened", 2, (4,), (4, 5, 6, 7), "7", 0.25)  # "Kilpatrick" ~ "Kilpatrick who was"
    elsewhere = made("gap1", 3, (9,), (), "25", 0.01)
    substitution = made("gap2", 0, (1,), (1, 2), "6", 0.3)
    side = made("gap2side", 0, (), (2,), "25", 0.05)  # both readings of a two-sided gap stay
    identity = (
        rec.Candidate("identity", (0,), (0,), "identity"),
        rec.Suggestion("p", "29", (0,), (0,), "rule", 1.0),
        1.0,
    )
    kept = rec._one_per_gap([added, widened, elsewhere, substitution, side, identity])
    assert kept == [widened[1], elsewhere[1], substitution[1], side[1], identity[1]]
    tie = made("widened", 2, (8,), (5, 6, 7, 8), "7", 0.10)
    assert rec._one_per_gap([added, tie]) == [added[1]]  # one, also on a tie


def test_analyse_gives_each_token_its_dependency_relation_and_head() -> None:
    (one,) = rec.analyse([["They", "sold", "chains", "."]])
    assert one[1].dep == "ROOT" and one[1].head == 1
    assert one[0].head == 1 and one[2].head == 1


def test_features_read_the_dependency_tree_and_the_pairs_other_candidates() -> None:
    def dep(form: str, pos: str, relation: str, head: int) -> Token:
        return Token(form, form.lower(), pos, pos, relation, head)

    one = (dep("They", "PRON", "nsubj", 1), dep("sold", "VERB", "ROOT", 1), dep("chains", "NOUN", "dobj", 1))
    two = (dep("They", "PRON", "nsubj", 1), dep("sold", "VERB", "ROOT", 1), dep("stores", "NOUN", "dobj", 1))
    p = PairInput("p", one, two)
    cands = rec.candidates(p)
    gap = next(c for c in cands if c.kind == "gap2")
    f = rec.features(p, gap, cands)
    assert f["s1dep=dobj"] == f["s2dep=dobj"] == 1.0 and f["s1gov_pos=VERB|dep=dobj"] == 1.0
    assert f["s1subtree"] == 1.0 and f["s1before=sold"] == 1.0 and f["s1after=</s>"] == 1.0
    assert f["pair_gap2side=2"] == 1.0 and f["kind=gap2|overlaps=gap2side"] == 1.0
    assert "pair_gap2=1" not in f  # the candidate itself is not among its surroundings
