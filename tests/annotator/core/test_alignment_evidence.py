"""The lexical evidence of the posterior aligner: inflections, numbers, names, stems, function words."""

import pytest

from annotator.core import alignment_evidence as ev
from annotator.core import posterior_aligner, wordnet_lexicon


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("declines", "decline"),
        ("populations", "population"),
        ("severed", "severing"),
        ("was", "is"),
        ("'m", "am"),
        ("an", "a"),
        ("stopped", "stop"),
        ("counties", "county"),
        ("%", "percent"),
        ("could", "can"),
        ("would", "will"),
        ("\u201c", "``"),  # a typographic quote and the tokenizer's ASCII one
        ("\u2019", "'"),
    ],
)
def test_inflectional_variants_share_a_lemma(a, b):
    assert ev.same_lemma(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("bought", "acquired"), ("state", "statement"), ("is", "it"), ("could", "may"), ("\u201c", "''")],
)
def test_different_words_share_no_lemma(a, b):
    assert not ev.same_lemma(a, b)


def test_numbers_are_read_by_value_and_names_by_their_hyphenated_part():
    assert ev.number_value("1,000") == ev.number_value("1000") == 1000.0
    assert ev.number_value(".85") == 0.85 and ev.number_value("17-15") is None
    assert ev.name_variant_form("numan", "al-numan") and not ev.name_variant_form("numan", "numan")


def test_derivational_stems_need_five_shared_letters_covering_most_of_the_shorter_word():
    assert ev.stem_related("resignation", "resign") and ev.stem_related("succeed", "successor")
    assert not ev.stem_related("press", "president") and not ev.stem_related("confirm", "conduct")


def test_function_words_and_punctuation():
    assert ev.is_function("the") and ev.is_function(",") and not ev.is_function("lawyer")


def test_word_classes_number_punctuation_function_content():
    assert [
        ev.word_class(w) for w in ("1,000", ".85", ",", "''", "of", "'s", "lawyer", "ADSL".casefold())
    ] == [
        ev.NUMBER,
        ev.NUMBER,
        ev.PUNCTUATION,
        ev.PUNCTUATION,
        ev.FUNCTION,
        ev.FUNCTION,
        ev.CONTENT,
        ev.CONTENT,
    ]


@pytest.mark.parametrize(
    ("short", "long", "words"),
    [
        ("AOL", "No wonder America Online lost", [2, 3]),  # a word may give letters from inside it
        ("SEC", "the Securities and Exchange Commission said", [1, 3, 4]),  # `and` skipped
        ("NASA", "the National Aeronautics and Space Administration", [1, 2, 4, 5]),  # initials first
        ("U.S.", "in the United States and Canada", [2, 3]),  # a full stop after each capital
    ],
)
def test_an_acronym_is_linked_to_every_word_it_abbreviates_in_either_member(short, long, words):
    tokens = long.split()
    assert ev.acronym_links([short, "said"], tokens) == [(0, k) for k in words]
    assert ev.acronym_links(tokens, [short, "said"]) == [(k, 0) for k in words]


@pytest.mark.parametrize(
    ("short", "long"),
    [
        ("AT", "At the time"),  # one word is not an abbreviation of two letters
        ("AOL", "America online"),  # a lower-case word is not part of a name
        ("US", "the UN Security"),  # an all-capital word is not spelled out
        ("Aol", "America Online"),  # not all capitals: not an acronym
        ("U.S", "United States"),  # full stops after some capitals only
        ("Inc.", "Income Nodes"),
    ],
)
def test_no_acronym_link_without_capitalised_words_spelling_it(short, long):
    assert ev.acronym_links([short], long.split()) == []


def test_no_acronym_link_where_the_acronym_or_its_words_are_in_both_members():
    # identical words link each other; the acronym stands for nothing missing
    assert ev.acronym_links("Internet Explorer ( IE ) fell".split(), "Internet Explorer fell".split()) == []
    assert ev.acronym_links("AOL lost".split(), "America Online ( AOL ) lost".split()) == []


def test_function_words_of_one_role_can_do_one_job():
    assert ev.same_function_role("in", "of") and ev.same_function_role("when", "as")
    assert ev.same_function_role("the", "a") and ev.same_function_role("will", "is")
    assert not ev.same_function_role("the", "of") and not ev.same_function_role("and", "in")
    assert not ev.same_function_role("lawyer", "attorney")


def test_wordnet_concepts_are_read_from_its_database_files(tmp_path):
    # a two-synset WordNet in WordNet's own file format: `attorney` and `lawyer` share synset 1 (offset 0),
    # whose direct hypernym is synset 2 (`professional`); `charged` undoes to `charge`
    template = "00000000 18 n 02 lawyer 0 attorney 0 001 @ {:08d} n 0000 | a professional person\n"
    second_at = len(template.format(0))
    first = template.format(second_at)
    second = f"{second_at:08d} 18 n 01 professional 0 000 | a person engaged in a profession\n"
    (tmp_path / "data.noun").write_text(first + second)
    (tmp_path / "index.noun").write_text(
        "  1 header line\nattorney n 1 1 @ 1 0 00000000\n"
        f"lawyer n 1 1 @ 1 0 00000000\nprofessional n 1 0 1 0 {second_at:08d}\n"
    )
    for name in ("verb", "adj", "adv"):
        (tmp_path / f"data.{name}").write_text("")
        (tmp_path / f"index.{name}").write_text("")
    (tmp_path / "noun.exc").write_text("attornies attorney\n")
    assert wordnet_lexicon.available(tmp_path) and not wordnet_lexicon.available(tmp_path / "missing")
    found = wordnet_lexicon.concepts(
        ["lawyer", "attornies", "professional", "unknownword"], directory=tmp_path
    )
    assert found["lawyer"] == found["attornies"] == (frozenset({"n0"}), frozenset({f"n{second_at}"}))
    assert found["professional"] == (frozenset({f"n{second_at}"}), frozenset())
    assert "unknownword" not in found


@pytest.mark.skipif(
    not wordnet_lexicon.available(), reason="WordNet's files (Debian's wordnet-base) are not installed"
)
def test_the_aligner_relates_synonyms_and_a_word_and_its_broader_term_through_wordnet():
    vocabulary = ["lawyer", "attorney", "indicted", "charged", "table", "the"]
    pairs = posterior_aligner._wordnet_pairs(vocabulary, senses=3)
    assert pairs[(0, 1)] == pairs[(1, 0)] == posterior_aligner.SYNONYM
    assert (2, 3) in pairs and (3, 2) in pairs
    assert not any(4 in pair or 5 in pair for pair in pairs)
