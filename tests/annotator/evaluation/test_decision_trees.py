import pytest
from django.core.exceptions import ValidationError

from annotator.evaluation import decision_trees as dt
from annotator.models.evaluation import G5_LABELS, M6_LABELS


@pytest.mark.parametrize(
    ("answers", "label"),
    [
        ({"grammatical": "yes", "natural": "perfect"}, "Perfect"),
        ({"grammatical": "yes", "natural": "awkward"}, "Awkward"),
        ({"grammatical": "no", "correctable": "yes", "one_edit": "yes"}, "Minor Problem"),
        ({"grammatical": "no", "correctable": "yes", "one_edit": "no"}, "Major Problem"),
        ({"grammatical": "no", "correctable": "no"}, "Irredeemable"),
    ],
)
def test_grammaticality_answers_lead_to_g5_label(answers, label):
    assert dt.grammaticality_label(answers) == label


@pytest.mark.parametrize(
    ("answers", "label"),
    [
        ({"share": "no"}, "Completely Different"),
        ({"share": "yes", "significant": "yes"}, "Significantly Different"),
        ({"share": "yes", "significant": "no", "equivalent": "yes"}, "Equivalent"),
        ({"share": "yes", "significant": "no", "equivalent": "no", "difference": "loss"}, "Missing Info."),
        (
            {"share": "yes", "significant": "no", "equivalent": "no", "difference": "addition"},
            "Additional Info.",
        ),
        (
            {"share": "yes", "significant": "no", "equivalent": "no", "difference": "other"},
            "Ignorable Change",
        ),
    ],
)
def test_meaning_answers_lead_to_m6_label(answers, label):
    assert dt.meaning_label(answers) == label


def test_every_label_is_reachable_by_exactly_the_answers_for_it():
    for step, labels, find in (
        ("grammaticality", G5_LABELS, dt.grammaticality_label),
        ("meaning", M6_LABELS, dt.meaning_label),
    ):
        assert set(dt.TREES[step].labels) == set(labels)
        for label in labels:
            assert find(dt.answers_for_label(step, label)) == label


def test_answers_off_the_chosen_path_are_dropped():
    walked = dt.walk("grammaticality", {"grammatical": "yes", "natural": "perfect", "one_edit": "no"})
    assert walked.label == "Perfect"
    assert walked.answers == {"grammatical": "yes", "natural": "perfect"}


def test_incomplete_answers_name_the_next_question():
    walked = dt.walk("meaning", {"share": "yes"})
    assert walked.label is None and walked.next_question.id == "significant"
    with pytest.raises(ValidationError) as err:
        dt.meaning_label({"share": "yes"})
    assert "significant" in err.value.message_dict


def test_unknown_answer_is_rejected_at_its_question():
    with pytest.raises(ValidationError) as err:
        dt.grammaticality_label({"grammatical": "maybe"})
    assert "'maybe' is not one of yes, no" in err.value.message_dict["grammatical"][0]


def test_unknown_label_and_step_are_rejected():
    with pytest.raises(ValidationError, match="not a meaning label"):
        dt.answers_for_label("meaning", "Perfect")
    with pytest.raises(ValidationError, match="Step must be"):
        dt.walk("fluency", {})


def test_every_question_has_guidance_and_examples():
    for tree in dt.TREES.values():
        for question in tree:
            assert question.guidance and question.examples
