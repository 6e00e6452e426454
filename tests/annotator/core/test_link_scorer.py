"""The link scorer: its weights as fitted, its features, its probabilities as confidences."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from annotator.core import link_scorer
from annotator.core.posterior_aligner import PosteriorSettings, align_scored, pair_evidence

REPO = Path(__file__).resolve().parents[3]
CORPUS = [
    (
        "the lawyer said the firm bought the plant .".split(),
        "the attorney said the company acquired the plant .".split(),
    ),
    ("shares fell 5 percent on Friday .".split(), "the shares dropped 5 % Friday .".split()),
    ("the firm bought a rival .".split(), "the company acquired a competitor .".split()),
] * 4


@pytest.mark.corpora
@pytest.mark.slow
def test_the_stored_weights_are_those_a_fit_on_the_tune_part_gives(corpora_dir):
    done = subprocess.run(
        [sys.executable, "bench/fit_link_weights.py", "--check"], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_stored_weights_name_every_feature_and_a_threshold():
    weights = link_scorer.load_weights()
    assert len(weights.one) == len(link_scorer.STAGE_ONE)
    assert len(weights.two) == len(link_scorer.STAGE_ONE) + len(link_scorer.STAGE_TWO)
    assert weights.two_stages and 0 < weights.threshold < 1


def test_weights_that_miss_a_feature_are_refused_with_the_file_and_the_feature(tmp_path):
    stored = json.loads(link_scorer.WEIGHTS_FILE.read_text())
    del stored["stage_two"]["coefficients"]["rival"]
    broken = tmp_path / "weights.json"
    broken.write_text(json.dumps(stored))
    with pytest.raises(ValueError, match=r"weights\.json.*'rival'"):
        link_scorer.load_weights(broken)
    stored = json.loads(link_scorer.WEIGHTS_FILE.read_text())
    stored["threshold"] = 1.5
    broken.write_text(json.dumps(stored))
    with pytest.raises(ValueError, match="threshold must be in"):
        link_scorer.load_weights(broken)


def test_the_default_confidences_are_the_scorers_probabilities_and_identical_words_are_linked():
    links = align_scored(CORPUS)
    first = {(i, j): c for i, j, c in links[0]}
    assert {(0, 0), (2, 2), (3, 3), (6, 6), (7, 7), (8, 8)} <= set(first)
    assert all(0 < c <= 1 for c in first.values())  # rounded to three digits: 0.9996 is 1.0
    evidence = pair_evidence(CORPUS)[0]
    assert evidence is not None
    probability = link_scorer.link_probabilities(evidence, link_scorer.load_weights())
    assert all(c == round(float(probability[i, j]), 3) for (i, j), c in first.items())


def test_pairs_of_one_shape_scored_together_get_the_probabilities_they_get_alone():
    evidence = pair_evidence(CORPUS)
    weights = link_scorer.load_weights()
    together = link_scorer.link_probabilities_of_pairs(evidence, weights)
    for e, p in zip(evidence, together, strict=True):
        assert e is not None and p is not None
        assert np.allclose(p, link_scorer.link_probabilities(e, weights))


def test_a_fit_learns_from_the_hand_links_and_leaves_out_what_it_is_told():
    evidence = [e for e in pair_evidence(CORPUS) if e is not None]
    examples = []
    for (t1, t2), e in zip(CORPUS, evidence, strict=True):
        sure = [(i, j) for i, w in enumerate(t1) for j, v in enumerate(t2) if w == v]
        examples.append((e, sure, []))
    weights = link_scorer.fit_weights(examples, without=["distance"])
    assert weights.one[link_scorer.STAGE_ONE.index("distance")] == 0.0
    assert weights.one[link_scorer.STAGE_ONE.index("same_word_content")] > 0
    with pytest.raises(ValueError, match="unknown features"):
        link_scorer.fit_weights(examples, without=["nonsense"])
    with pytest.raises(ValueError, match="no hand-aligned pairs"):
        link_scorer.fit_weights([])


def test_the_decoder_is_validated_by_name():
    with pytest.raises(ValueError, match="decoder must be one of learned, rules, not 'neural'"):
        align_scored(CORPUS, PosteriorSettings(decoder="neural"))
