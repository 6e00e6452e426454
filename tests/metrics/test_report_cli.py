"""``python -m metrics report``: the §10 report on stdout, one-line errors on stderr (spec §9, §10)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from metrics.document import parse_document
from metrics.report import build_report

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "metrics", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def write(tmp_path: Path, data: Any, name: str = "doc.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def no_nan(value: Any) -> bool:
    if isinstance(value, dict):
        return all(no_nan(v) for v in value.values())
    if isinstance(value, list):
        return all(no_nan(v) for v in value)
    return not (isinstance(value, float) and not math.isfinite(value))


def test_report_prints_json_with_every_iapta_key(vila_document_data, tmp_path):
    proc = run_cli("report", str(write(tmp_path, vila_document_data())))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["format"] == "paraphrase-agreement-report/1"
    m = report["measures"]
    for key in (
        "iapta.n.w",
        "iapta.n.ph.typewise",
        "iapta.n.w.pairwise",
        "iapta.n.ph.pairwise_typewise",
        "iapta.n.w.by_type",
        "iapta.phenomena.count",
        "iapta.tpo.partial.f1",
        "iapta.tpo.total.f1_alt",
        "iapta.tpo.partial.count",
        "iapta.tpo.total.f1_directional",
        "iapta.tpo.partial.union",
        "iapta.tpo.total.gold",
        "iapta.do.f1",
        "iapta.do.f1.typewise",
        "iapta.do.f1.pairwise",
        "iapta.do.f1.pairwise_typewise",
        "iapta.do.f1.by_type",
        "iapta.do.k",
    ):
        assert key in m, key
    assert m["iapta.n.ph"] == {"value": 0.75, "by_pair": {"B|C": 0.75}}
    assert m["iapta.do.k"]["by_ordered_pair"]["C>B"] == 0.625


def test_absent_sections_produce_no_keys():
    report = build_report(parse_document({"format": "paraphrase-agreement/1"}))
    assert report == {"format": "paraphrase-agreement-report/1", "measures": {}}


def test_evaluation_keys_and_revisions(evaluation_ratings):
    doc = parse_document({"format": "paraphrase-agreement/1", "evaluations": evaluation_ratings()})
    m = build_report(doc)["measures"]
    for scale in ("G5", "M6", "G2", "M2"):
        for prefix in (
            "fleiss",
            "fleiss.after",
            "cohen",
            "cohen.after",
            "krippendorff",
            "krippendorff.after",
        ):
            assert f"{prefix}.{scale}" in m
    assert m["fleiss.G2"]["n_items"] == 4
    assert set(m["cohen.G5"]["by_pair"]) == {"E1|E2", "E1|E3", "E2|E3"}
    assert m["cohen.G5"]["n_items"]["E1|E2"] == 4
    assert m["fleiss.M2"]["value"] != m["fleiss.after.M2"]["value"]  # the revision changed one M label
    assert set(m["reeval.G"]["by_rater"]) == {"E1", "E2", "E3"}
    assert no_nan(m)


def test_one_annotator_gives_values_without_pairs(vila_document_data):
    data = vila_document_data()
    data["annotators"] = ["B"]
    del data["phenomena"]["C"]
    m = build_report(parse_document(data))["measures"]
    assert m["iapta.do.f1"] == {"value": None, "by_pair": {}}
    assert m["iapta.phenomena.count"] == {"by_annotator": {"B": 6}}
    assert m["iapta.do.k"] == {"by_ordered_pair": {}}


def test_table_format_is_an_aligned_text_table(vila_document_data, tmp_path):
    proc = run_cli("report", str(write(tmp_path, vila_document_data())), "--format", "table")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["measure", "part", "value"]
    assert any(line.startswith("iapta.n.ph ") and line.rstrip().endswith("0.7500") for line in lines)


def test_ci_flag_adds_bootstrap_intervals(vila_document_data, tmp_path, evaluation_ratings):
    data = vila_document_data()
    data["evaluations"] = evaluation_ratings()
    proc = run_cli("report", str(write(tmp_path, data)), "--ci")
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["measures"]
    assert m["iapta.do.f1.ci95"]["by_pair"]["B|C"] == [pytest.approx(0.6760204081632653)] * 2
    assert "fleiss.G2.ci95" in m and "iapta.tpo.partial.f1.ci95" in m
    lo, hi = m["fleiss.G5.ci95"]["value"]
    assert lo <= hi


def _invalid(data: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return data


INVALID = {
    "index out of range": (["phenomena", "B", 0, "s1"], [0, 50], "phenomena.B[0].s1[1]"),
    "duplicate index": (["phenomena", "B", 0, "s2"], [1, 1], "phenomena.B[0].s2[1]"),
    "unknown type": (["phenomena", "C", 1, "type"], "FOO", "phenomena.C[1].type"),
    "both scopes empty": (["phenomena", "C", 7, "s2"], [], "phenomena.C[7].s1"),
    "one-sided type with both sides": (["phenomena", "C", 6, "s2"], [0], "phenomena.C[6].s2"),
}


@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_document_exits_1_with_one_line_naming_the_field(vila_document_data, tmp_path, case):
    path, value, field = INVALID[case]
    doc = write(tmp_path, _invalid(vila_document_data(), path, value))
    proc = run_cli("report", str(doc))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{doc}: {field}: ")


def test_bad_json_exits_1_without_traceback(tmp_path):
    doc = write(tmp_path, '{"format": ')
    proc = run_cli("report", str(doc))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{doc}: $: invalid JSON") and proc.stderr.count("\n") == 1


def test_missing_format_exits_1(vila_document_data, tmp_path):
    data = vila_document_data()
    del data["format"]
    doc = write(tmp_path, data)
    proc = run_cli("report", str(doc))
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"{doc}: format: missing (expected 'paraphrase-agreement/1')"


def test_missing_file_exits_1(tmp_path):
    proc = run_cli("report", str(tmp_path / "nope.json"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{tmp_path / 'nope.json'}: $: cannot read file")


def test_report_is_json_safe_for_degenerate_input(vila_document_data):
    data = vila_document_data()
    data["phenomena"] = {"B": [], "C": []}
    report = build_report(parse_document(data))
    json.dumps(report, allow_nan=False)
    assert report["measures"]["iapta.do.f1"]["value"] is None
    assert report["measures"]["iapta.tpo.partial.f1"]["by_pair"] == {"B|C": None}


def test_spec_example_document_reports_every_section(full_document, tmp_path):
    proc = run_cli("report", str(write(tmp_path, full_document())))
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["measures"]
    prefixes = {key.split(".")[0] for key in m}
    assert prefixes == {"iapta", "alignment", "kappa_c", "spade", "fleiss", "cohen", "krippendorff", "reeval"}
    assert no_nan(m)


def test_bootstrap_word_counts_reproduce_the_alignment_f1():
    from metrics.synthetic import synthetic_document

    doc = synthetic_document(n_pairs=1, n_annotators=2, phenomena_per_pair=2, seed=4)
    m = build_report(doc, ci=True, ci_resamples=20)["measures"]
    f1 = m["alignment.words.f1"]["by_pair"]["A1|A2"]
    assert m["alignment.words.f1.ci95"]["by_pair"]["A1|A2"] == [pytest.approx(f1, abs=1e-12)] * 2
