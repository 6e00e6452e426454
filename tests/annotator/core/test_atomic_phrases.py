"""Atomic phrase pairs (Cohn et al. 2008) of a word alignment."""

from annotator.core.atomic_phrases import atomic_phrase_pairs


def test_one_to_one_links_give_one_word_pairs_and_crossing_links_stay_apart():
    assert atomic_phrase_pairs([(0, 0), (1, 2), (2, 1)]) == {
        ((0, 1), (0, 1)),
        ((1, 2), (2, 3)),
        ((2, 3), (1, 2)),
    }


def test_a_word_linked_twice_takes_its_links_into_one_pair():
    assert atomic_phrase_pairs([(0, 0), (1, 1), (2, 1)]) == {((0, 1), (0, 1)), ((1, 3), (1, 2))}


def test_a_box_grows_until_no_link_leaves_it():
    # from (1, 1): (0, 1) shares its column, so row 0 comes in, and with it (0, 0)'s column
    assert atomic_phrase_pairs([(0, 0), (0, 1), (1, 1), (2, 2)]) == {((0, 2), (0, 2)), ((2, 3), (2, 3))}
    assert atomic_phrase_pairs([]) == set()
