"""The lexical evidence of the posterior aligner: inflections, numbers, names, stems, function words."""

import pytest

from annotator.core import alignment_evidence as ev


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
    ],
)
def test_inflectional_variants_share_a_lemma(a, b):
    assert ev.same_lemma(a, b)


@pytest.mark.parametrize(("a", "b"), [("bought", "acquired"), ("state", "statement"), ("is", "it")])
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
