"""ETPC's sense-preserving layer: the document attribute and per-layer agreement (docs/measures.md#sense-layers)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from metrics.document import parse_document
from metrics.layers import layer_phenomena
from metrics.multi import tpo_multi
from metrics.report import build_report
from metrics.types import DocumentError

REPO = Path(__file__).resolve().parents[2]


def x(pair: str, type_: str, s1: list[int], s2: list[int], sense: bool | None) -> dict[str, Any]:
    return {"pair": pair, "type": type_, "s1": s1, "s2": s2, "sense_preserving": sense}


def etpc_like(extra: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """Two annotators; A and B agree on every scope, but B marks the Negation + and p2's SA −."""
    phenomena = {
        "A": [
            x("p1", "SA", [0, 1], [0], True),
            x("p1", "Negation", [2], [], False),
            x("p2", "SA", [0], [0], True),
        ],
        "B": [
            x("p1", "SA", [0], [0], True),
            x("p1", "Negation", [2], [], True),
            x("p2", "SA", [0], [0], False),
        ],
        **(extra or {}),
    }
    return {
        "format": "paraphrase-agreement/1",
        "annotators": list(phenomena),
        "tagset": {"types": [{"name": "SA"}, {"name": "Negation"}]},
        "pairs": [
            {"id": "p1", "tokens1": ["a", "b", "not"], "tokens2": ["c"]},
            {"id": "p2", "tokens1": ["d"], "tokens2": ["e"]},
        ],
        "phenomena": phenomena,
    }


def measures(data: dict[str, Any]) -> dict[str, Any]:
    return build_report(parse_document(data))["measures"]


def test_per_layer_agreement_of_two_annotators_matches_hand_computation():
    m = measures(etpc_like())
    # + layer: A {SA p1 (s1 0,1), SA p2}, B {SA p1 (s1 0), Negation p1}. Only SA p1 matches:
    # overlapping(A→B) = 0.5·(1/2 + 1) = 0.75, (B→A) = 0.5·(1 + 1) = 1 → K = 0.375 and 0.5.
    assert m["iapta.sense.plus.n.ph"]["value"] == 1.0
    assert m["iapta.sense.plus.tpo.partial.f1"]["value"] == 0.5
    assert m["iapta.sense.plus.do.k"]["by_ordered_pair"] == {"A>B": 0.375, "B>A": 0.5}
    assert m["iapta.sense.plus.do.f1"]["value"] == pytest.approx(3 / 7, abs=1e-15)
    # − layer: A's Negation p1 against B's SA p2: nothing can match.
    assert m["iapta.sense.minus.tpo.partial.f1"]["value"] == 0.0
    assert m["iapta.sense.minus.do.f1"]["value"] == 0.0
    # both: SA (+) p1 is the only match; K = 0.75/3 and 1/3 → F1 = 2/7.
    assert m["iapta.sense.both.tpo.partial.f1"]["value"] == pytest.approx(1 / 3, abs=1e-15)
    assert m["iapta.sense.both.do.f1"]["value"] == pytest.approx(2 / 7, abs=1e-15)
    assert set(m["iapta.sense.both.do.f1.by_type"]["by_pair"]["A|B"]) == {"SA (+)", "Negation (-)"} | {
        "Negation (+)",
        "SA (-)",
    }
    # ignoring the layer, the identical one-sided Negations and p2's SAs agree (spec 1.1): 22/23
    assert m["iapta.do.f1"]["value"] == pytest.approx(22 / 23, abs=1e-15)
    assert m["iapta.sense.unmarked.count"] == {"by_annotator": {"A": 0, "B": 0}}


def test_a_sense_mismatch_is_not_agreement_in_any_layer():
    one = x("p1", "Negation", [2], [], True)
    data = etpc_like({"A": [one], "B": [dict(one, sense_preserving=False)]})
    m = measures(data)
    assert m["iapta.tpo.total.f1"]["value"] == 1.0  # the plain keys ignore the layer
    for layer in ("plus", "minus", "both"):
        assert m[f"iapta.sense.{layer}.tpo.total.f1"]["value"] == 0.0, layer
        assert m[f"iapta.sense.{layer}.do.f1"]["value"] == 0.0, layer


def test_every_iapta_key_is_given_for_every_layer():
    m = measures(etpc_like())
    plain = {
        k.removeprefix("iapta.") for k in m if k.startswith("iapta.") and not k.startswith("iapta.sense")
    }
    for layer in ("plus", "minus", "both"):
        assert {
            k.removeprefix(f"iapta.sense.{layer}.") for k in m if k.startswith(f"iapta.sense.{layer}.")
        } == (plain)


def test_multi_annotator_tpo_per_layer_equals_tpo_multi_of_the_layer():
    data = etpc_like()
    data["phenomena"]["C"] = copy.deepcopy(data["phenomena"]["A"])
    data["annotators"] = ["A", "B", "C"]
    m = measures(data)
    doc = parse_document(data)
    for layer in ("plus", "minus", "both"):
        phenomena = layer_phenomena(doc.phenomena or {}, layer)  # type: ignore[arg-type]
        for crit in ("partial", "total"):
            expected = tpo_multi(phenomena, criterion=crit)  # type: ignore[arg-type]
            assert m[f"iapta.sense.{layer}.tpo.{crit}.union"]["value"] == expected.union
            assert m[f"iapta.sense.{layer}.tpo.{crit}.gold"]["value"] == expected.gold
            assert m[f"iapta.sense.{layer}.tpo.{crit}.f1"]["value"] == pytest.approx(expected.avg)


def test_unmarked_phenomena_take_part_in_no_layer():
    data = etpc_like()
    data["phenomena"]["A"].append(x("p2", "Negation", [0], [], None))
    m = measures(data)
    assert m["iapta.sense.unmarked.count"]["by_annotator"] == {"A": 1, "B": 0}
    assert m["iapta.sense.both.phenomena.count"]["by_annotator"] == {"A": 3, "B": 3}
    assert m["iapta.phenomena.count"]["by_annotator"] == {"A": 4, "B": 3}


def test_documents_without_the_attribute_give_exactly_the_report_they_gave_before(vila_document_data):
    data = vila_document_data()
    before = build_report(parse_document(data))
    assert not [k for k in before["measures"] if k.startswith("iapta.sense")]
    marked_null = copy.deepcopy(data)
    for xs in marked_null["phenomena"].values():
        for p in xs:
            p["sense_preserving"] = None
    assert build_report(parse_document(marked_null)) == before
    # the headline numbers of Vila's Fig. 3 (spec cases) are untouched
    assert before["measures"]["iapta.n.ph"]["value"] == 0.75


def test_marking_does_not_change_the_plain_keys():
    data = etpc_like()
    unmarked = copy.deepcopy(data)
    for xs in unmarked["phenomena"].values():
        for p in xs:
            del p["sense_preserving"]
    plain = measures(unmarked)
    marked = measures(data)
    assert {k: v for k, v in marked.items() if not k.startswith("iapta.sense")} == plain


@pytest.mark.parametrize("bad", ["yes", 1, 0, [], {}])
def test_a_sense_mark_that_is_not_true_false_or_null_is_refused_at_its_field(bad: Any):
    data = etpc_like()
    data["phenomena"]["B"][1]["sense_preserving"] = bad
    with pytest.raises(DocumentError) as caught:
        parse_document(data)
    assert caught.value.field == "phenomena.B[1].sense_preserving"
    assert "must be true, false or null" in caught.value.message


def test_cli_prints_the_layers_as_json_and_as_a_table(tmp_path: Path):
    path = tmp_path / "etpc.json"
    path.write_text(json.dumps(etpc_like()))
    run = [sys.executable, "-m", "metrics", "report", str(path)]
    out = subprocess.run(run, capture_output=True, text=True, cwd=REPO, timeout=120, check=True)
    report = json.loads(out.stdout)
    assert report["measures"]["iapta.sense.both.do.f1"]["value"] == pytest.approx(2 / 7)
    table = subprocess.run(
        [*run, "--format", "table"], capture_output=True, text=True, cwd=REPO, timeout=120, check=True
    ).stdout
    row = next(
        line for line in table.splitlines() if line.startswith("iapta.sense.plus.do.f1 ") and "value" in line
    )
    assert row.split()[-1] == "0.4286"
