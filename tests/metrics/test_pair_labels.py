"""Pair-label agreement (extension section `pair_labels`): Cohen per annotator pair, Fleiss overall."""

import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from metrics.document import parse_document
from metrics.report import build_report
from metrics.types import DocumentError

LABELS = ("paraphrase", "non_paraphrase")


def document(labels: dict[str, dict[str, str]], n_pairs: int) -> dict:
    return {
        "format": "paraphrase-agreement/1",
        "annotators": sorted(labels),
        "pairs": [{"id": f"p{n}", "tokens1": ["a"], "tokens2": ["b"]} for n in range(n_pairs)],
        "pair_labels": labels,
    }


def random_labels(seed: int, n_annotators: int = 3, n_pairs: int = 40) -> dict[str, dict[str, str]]:
    rng = np.random.default_rng(seed)
    return {
        f"a{k}": {f"p{n}": LABELS[int(rng.random() < 0.3)] for n in range(n_pairs)}
        for k in range(n_annotators)
    }


@pytest.mark.parametrize("seed", range(5))
def test_cohen_per_pair_equals_scikit_learn(seed):
    labels = random_labels(seed)
    measures = build_report(parse_document(document(labels, 40)))["measures"]
    for a, b in (("a0", "a1"), ("a0", "a2"), ("a1", "a2")):
        ids = sorted(labels[a])
        expected = cohen_kappa_score([labels[a][i] for i in ids], [labels[b][i] for i in ids])
        assert measures["pair_labels.cohen"]["by_pair"][f"{a}|{b}"] == pytest.approx(expected, abs=1e-9)
        assert measures["pair_labels.cohen"]["n_items"][f"{a}|{b}"] == 40


@pytest.mark.parametrize("seed", range(5))
def test_fleiss_equals_statsmodels_when_everyone_labelled_everything(seed):
    labels = random_labels(seed)
    measures = build_report(parse_document(document(labels, 40)))["measures"]
    ids = sorted(labels["a0"])
    ratings = np.array([[LABELS.index(labels[a][i]) for a in sorted(labels)] for i in ids])
    expected = fleiss_kappa(aggregate_raters(ratings)[0], method="fleiss")
    assert measures["pair_labels.fleiss"]["value"] == pytest.approx(expected, abs=1e-9)
    assert measures["pair_labels.fleiss"]["n_items"] == 40


def test_pairs_labelled_by_one_annotator_only_are_left_out_of_fleiss():
    labels = {
        "A": {"p0": "paraphrase", "p1": "paraphrase", "p2": "non_paraphrase"},
        "B": {"p0": "paraphrase", "p1": "non_paraphrase"},
    }
    measures = build_report(parse_document(document(labels, 3)))["measures"]
    assert measures["pair_labels.fleiss"]["n_items"] == 2
    assert measures["pair_labels.cohen"]["n_items"]["A|B"] == 2
    assert measures["pair_labels.disagreeing"]["value"] == 1


def test_identical_constant_labels_are_undefined_not_one():
    labels = {"A": {"p0": "paraphrase"}, "B": {"p0": "paraphrase"}}
    measures = build_report(parse_document(document(labels, 1)))["measures"]
    assert measures["pair_labels.cohen"]["by_pair"]["A|B"] is None
    assert measures["pair_labels.fleiss"]["value"] is None


def test_unknown_pair_and_undeclared_annotator_are_rejected_with_the_field():
    doc = document({"A": {"p9": "paraphrase"}}, 1)
    with pytest.raises(DocumentError) as err:
        parse_document(doc)
    assert err.value.field == "pair_labels.A.p9"
    doc = document({"A": {"p0": "paraphrase"}}, 1)
    doc["annotators"] = ["B"]
    with pytest.raises(DocumentError) as err:
        parse_document(doc)
    assert err.value.field == "pair_labels.A"


def test_cli_reports_pair_labels(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document(random_labels(1), 40)))
    out = subprocess.run(
        [sys.executable, "-m", "metrics", "report", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "pair_labels.fleiss" in json.loads(out.stdout)["measures"]
