"""The two decision trees of the two-step evaluation: the questions and options of Fujita's appendix,
with guidance and examples of our own.

A rater never picks a label directly: they answer a few yes/no-style questions and the label follows
from the answers. Step 1 (grammaticality, the paraphrased sentence alone) ends in one of the G5
labels, step 2 (meaning, against the original) in one of the M6 labels. The trees are plain data so
the pages, the API and the tests walk the same questions; `grammaticality_label(answers)` and
`meaning_label(answers)` are pure functions of the answers.

Answers are a dict question id → option value, e.g. ``{"grammatical": "no", "correctable": "yes",
"one_edit": "yes"}`` → "Minor Problem". Answers to questions that are not on the path the earlier
answers chose are dropped (they are left over from a changed mind).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError

from annotator.models.evaluation import G5_LABELS, M6_LABELS


@dataclass(frozen=True)
class Option:
    """One answer to a question: it leads either to another question or to a label."""

    value: str
    text: str
    next: str | None = None
    label: str | None = None


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    guidance: str
    options: tuple[Option, ...]
    examples: tuple[tuple[str, str], ...] = field(default=())  # (sentence, what the answer is and why)

    def option(self, value: str) -> Option | None:
        return next((o for o in self.options if o.value == value), None)


@dataclass(frozen=True)
class Tree:
    step: str
    title: str
    root: str
    questions: dict[str, Question]
    labels: tuple[str, ...]

    def __iter__(self):  # the questions in the order they are asked on the longest path
        return iter(self.questions.values())


GRAMMATICALITY = Tree(
    step="grammaticality",
    title="Grammaticality",
    root="grammatical",
    labels=tuple(G5_LABELS),
    questions={
        q.id: q
        for q in (
            Question(
                id="grammatical",
                text="Is the sentence grammatical?",
                guidance="Read the sentence on its own, as if you had never seen another version of it. "
                "Ignore whether it says something true or sensible; ask only whether a fluent speaker "
                "could have written it as it stands.",
                options=(Option("yes", "Yes", next="natural"), Option("no", "No", next="correctable")),
                examples=(
                    ("The museum reopened its doors last spring.", "Yes: nothing needs to change."),
                    ("The museum reopened its doors since last spring.", "No: “since” needs another tense."),
                ),
            ),
            Question(
                id="natural",
                text="Is it perfect, or grammatical but awkward?",
                guidance="A sentence is awkward when nothing is wrong with its grammar but a native "
                "speaker would not phrase it this way: an odd word choice, a clumsy order, an unusual "
                "collocation.",
                options=(
                    Option("perfect", "Perfect", label="Perfect"),
                    Option("awkward", "Awkward", label="Awkward"),
                ),
                examples=(
                    ("She postponed the trip because of the storm.", "Perfect."),
                    (
                        "She made a postponement of the trip because of the storm.",
                        "Awkward: correct, but nobody would say it so.",
                    ),
                ),
            ),
            Question(
                id="correctable",
                text="Could the error be corrected?",
                guidance="Imagine fixing the sentence while keeping the substituted phrase's role. If no "
                "reasonable repair gives a grammatical sentence, answer no.",
                options=(
                    Option("yes", "Yes", next="one_edit"),
                    Option("no", "No", label="Irredeemable"),
                ),
                examples=(
                    ("He have finished the report yesterday.", "Yes: change “have” to “had”."),
                    ("The report of finished yesterday him.", "No: there is no sentence left to repair."),
                ),
            ),
            Question(
                id="one_edit",
                text="Would a single edit correct it?",
                guidance="One edit is one word inserted, deleted or replaced, or one change of inflection "
                "(number, tense, case).",
                options=(
                    Option("yes", "Yes, one edit", label="Minor Problem"),
                    Option("no", "No, it needs more", label="Major Problem"),
                ),
                examples=(
                    ("They was waiting at the station.", "Yes (Minor Problem): “was” → “were”."),
                    (
                        "They waiting the station at.",
                        "No (Major Problem): several words must move or be added.",
                    ),
                ),
            ),
        )
    },
)

MEANING = Tree(
    step="meaning",
    title="Meaning",
    root="share",
    labels=tuple(M6_LABELS),
    questions={
        q.id: q
        for q in (
            Question(
                id="share",
                text="Do the two phrases share some meaning in this context?",
                guidance="Compare the substituted phrase with the phrase it replaced, as each is used in "
                "this sentence (not the two whole sentences, which share the rest of their words). "
                "Overlook grammatical errors as far as you can still tell what the phrase means here.",
                options=(
                    Option("yes", "Yes", next="significant"),
                    Option("no", "No", label="Completely Different"),
                ),
                examples=(
                    (
                        "Original: He turned down the offer. → He refused the offer.",
                        "Yes: “refused” ≈ “turned down”.",
                    ),
                    (
                        "Original: He turned down the offer. → He lowered the offer.",
                        "No: “lowered” shares no meaning with “turned down” here.",
                    ),
                ),
            ),
            Question(
                id="significant",
                text="Is the difference in meaning significant?",
                guidance="A difference is significant when someone reading the paraphrased sentence "
                "would understand something importantly different from the original.",
                options=(
                    Option("yes", "Yes", label="Significantly Different"),
                    Option("no", "No", next="equivalent"),
                ),
                examples=(
                    (
                        "Original: Prices rose sharply. → Prices rose a little.",
                        "Yes: the degree is reversed.",
                    ),
                    ("Original: Prices rose sharply. → Prices climbed sharply.", "No."),
                ),
            ),
            Question(
                id="equivalent",
                text="Are the two sentences perfectly equivalent in meaning?",
                guidance="Perfectly equivalent means every reading of one is a reading of the other: "
                "nothing lost, nothing added, nothing shifted.",
                options=(
                    Option("yes", "Yes", label="Equivalent"),
                    Option("no", "No", next="difference"),
                ),
                examples=(
                    ("Original: She bought a car. → She purchased a car.", "Yes."),
                    ("Original: She bought a car. → She bought a new car.", "No: “new” is added."),
                ),
            ),
            Question(
                id="difference",
                text="What kind of difference is it?",
                guidance="Something of the original is missing, something is added that the original "
                "does not say, or another change: both something lost and something added, or a "
                "shift of nuance, register or emphasis.",
                options=(
                    Option("loss", "Loss of information", label="Missing Info."),
                    Option("addition", "Addition of information", label="Additional Info."),
                    Option(
                        "other", "Other changes, including both loss and addition", label="Ignorable Change"
                    ),
                ),
                examples=(
                    ("Original: the red brick house → the house", "Loss: the colour and material are gone."),
                    ("Original: the house → the old house", "Addition: the age is new."),
                    (
                        "Original: the red house → the old house",
                        "Other: the colour is lost and the age added.",
                    ),
                    ("Original: he got angry → he became angry", "Other: a shift of register only."),
                ),
            ),
        )
    },
)

TREES: dict[str, Tree] = {GRAMMATICALITY.step: GRAMMATICALITY, MEANING.step: MEANING}


def tree_for(step: str) -> Tree:
    try:
        return TREES[step]
    except KeyError:
        raise ValidationError({"step": f"Step must be grammaticality or meaning, not {step!r}."}) from None


@dataclass(frozen=True)
class Walk:
    """Where a set of answers leads: the answered path, then a label or the next question to ask."""

    path: tuple[tuple[Question, Option], ...]
    label: str | None
    next_question: Question | None

    @property
    def answers(self) -> dict[str, str]:
        return {q.id: o.value for q, o in self.path}


def walk(step: str, answers: Mapping[str, Any]) -> Walk:
    """Follow the answers from the root; stop at a label or at the first unanswered question.

    An answer that is not one of its question's options raises `ValidationError` naming the question.
    """
    tree = tree_for(step)
    path: list[tuple[Question, Option]] = []
    question: Question | None = tree.questions[tree.root]
    while question is not None:
        raw = answers.get(question.id)
        if raw in (None, ""):
            return Walk(tuple(path), None, question)
        option = question.option(str(raw))
        if option is None:
            allowed = ", ".join(o.value for o in question.options)
            raise ValidationError({question.id: f"“{question.text}”: {raw!r} is not one of {allowed}."})
        path.append((question, option))
        if option.label is not None:
            return Walk(tuple(path), option.label, None)
        question = tree.questions[option.next] if option.next else None
    raise AssertionError(f"tree {step} has an option leading nowhere")  # the trees above are complete


def _label(step: str, answers: Mapping[str, Any]) -> str:
    result = walk(step, answers)
    if result.label is None:
        assert result.next_question is not None
        raise ValidationError(
            {result.next_question.id: f"Answer “{result.next_question.text}” to reach a label."}
        )
    return result.label


def grammaticality_label(answers: Mapping[str, Any]) -> str:
    """The G5 label the grammaticality answers lead to (Perfect … Irredeemable).

    >>> grammaticality_label({"grammatical": "no", "correctable": "yes", "one_edit": "yes"})
    'Minor Problem'
    """
    return _label(GRAMMATICALITY.step, answers)


def meaning_label(answers: Mapping[str, Any]) -> str:
    """The M6 label the meaning answers lead to (Equivalent … Completely Different).

    >>> meaning_label({"share": "yes", "significant": "no", "equivalent": "no", "difference": "loss"})
    'Missing Info.'
    """
    return _label(MEANING.step, answers)


def answers_for_label(step: str, label: str) -> dict[str, str]:
    """The one set of answers that leads to `label` (each label has exactly one path)."""
    tree = tree_for(step)

    def search(qid: str, sofar: dict[str, str]) -> dict[str, str] | None:
        for option in tree.questions[qid].options:
            here = {**sofar, qid: option.value}
            if option.label == label:
                return here
            if option.next:
                found = search(option.next, here)
                if found is not None:
                    return found
        return None

    found = search(tree.root, {})
    if found is None:
        raise ValidationError(
            {"label": f"{label!r} is not a {tree.title.lower()} label ({', '.join(tree.labels)})."}
        )
    return found
