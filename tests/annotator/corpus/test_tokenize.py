"""annotator.corpus.tokenize reproduces NLTKWordTokenizer exactly, only faster."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.tokenize import NLTKWordTokenizer, word_tokenize

from annotator.corpus.tokenize import tokenize

NLTK = NLTKWordTokenizer()


def mrpc_sentences(corpora: Path) -> list[str]:
    out = []
    for name in ("msr_paraphrase_train.txt", "msr_paraphrase_test.txt"):
        lines = (corpora / "mrpc" / name).read_text(encoding="utf-8-sig").splitlines()[1:]
        out += [s for line in lines if line for s in line.split("\t")[3:5]]
    return out


def test_same_tokens_as_nltk_on_every_mrpc_sentence(corpora_dir: Path) -> None:
    sentences = mrpc_sentences(corpora_dir)
    assert len(sentences) == 2 * 5801
    different = [s for s in sentences if tokenize(s) != NLTK.tokenize(s)]
    assert different == []


@pytest.mark.parametrize(
    "text",
    [
        'He said, "I cannot go." She didn\'t.',
        "Europe’s second-biggest drug company rose 3.5% (to $ 12) -- really...",
        "'Tis the season; gonna wanna gimme lemme gotta d'ye more'n 'twas",
        "CANNOT Gonna \u017ftis İstanbul",
        "  spaces\tand\u00a0odd\u2003whitespace \n",
        "“Quotes” ‘single’ «guillemets» and [brackets] {braces} <angles>.",
        "",
        "...",
        "a.",
    ],
)
def test_same_tokens_as_nltk_on_hard_cases(text: str) -> None:
    assert tokenize(text) == NLTK.tokenize(text)


@settings(max_examples=400, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("aAsStTnN '\"`.,:;?!()[]{}<>-–—’‘“”«»$%&*\t\n\u00a0cdgilmorwy0123")),
        max_size=40,
    )
)
def test_same_tokens_as_nltk_on_generated_text(text: str) -> None:
    assert tokenize(text) == NLTK.tokenize(text)


def test_differs_from_word_tokenize_only_by_not_splitting_sentences() -> None:
    """word_tokenize without Punkt (preserve_line=True) is exactly what we do."""
    text = "The company said. Shares rose 5 percent."
    assert tokenize(text) == word_tokenize(text, preserve_line=True)
    assert tokenize(text) == ["The", "company", "said.", "Shares", "rose", "5", "percent", "."]
